/**
 * Client-side checks of a registry's Merkle transparency log (docs/transparency.md): the signed-note checkpoint
 * opened with the registry's pinned keys, the inclusion of exactly the pulled entry (type, id, version, hashes,
 * publisher) in the signed tree, and that a newer checkpoint extends the one kept before.
 *
 * Pure functions over answers already fetched; log-proof.ts runs them on every pull.
 */
import type { PublicKey, PublishAttestation } from "@rye/core";
import {
  canonicalJson,
  type Checkpoint,
  fromBase64,
  leafHash,
  noteKeyId,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  RyeError,
  sha256Hex,
  toBase64,
  verifyConsistency,
  verifyInclusion,
} from "@rye/core";

/** A checkpoint that verified: what a client keeps per registry. */
export interface VerifiedTreeCheckpoint {
  origin: string;
  size: number;
  /** Standard base64, as the note writes it. */
  root_hash: string;
  /** The signed note as served (a witness or `rye verify` can re-open it). */
  note: string;
}

/**
 * What the log entry of a pulled version must say: the attestation's subject with its hashes and publisher, exactly
 * as the registry logs it (services/publish.ts, bundles.ts, skills; a mirror's copy adds `mirror_of`).
 */
export type ExpectedEntry = Record<string, unknown> & { kind: string; id: string; version: string; file_sha256: string; content_hash: string; publisher: string };

/** The entry a publish attestation commits to (its log_index names it). */
export function expectedEntryOf(attestation: PublishAttestation & { mirror_of?: unknown }): ExpectedEntry {
  return {
    ...attestation.subject,
    file_sha256: attestation.file_sha256,
    content_hash: attestation.content_hash,
    publisher: attestation.publisher,
    ...(attestation.mirror_of !== undefined ? { mirror_of: attestation.mirror_of } : {}),
  } as ExpectedEntry;
}

/**
 * A public publish logs the subject itself (entries may carry more, such as who pushed it); a private or held one, and
 * a mirror's copy, only the digest of the subject.
 */
function entryMatches(kind: unknown, payload: Record<string, unknown>, expected: ExpectedEntry): boolean {
  if (payload.private === true) return (kind === "publish" || kind === "mirror") && payload.subject_digest === sha256Hex(canonicalJson(expected));
  if (kind !== "publish" || expected.mirror_of !== undefined) return false;
  return Object.entries(expected).every(([key, value]) => key in payload && canonicalJson(payload[key]) === canonicalJson(value));
}

export interface InclusionAnswer {
  index: number;
  /** The leaf bytes, standard base64. */
  leaf: string;
  /** The audit path, standard base64 hashes. */
  proof: string[];
}

/** The note verifiers of a registry's keys: the log's origin is the key name. */
export function treeVerifiers(name: string, keys: readonly PublicKey[]): NoteVerifier[] {
  return keys.map((k) => ({ name, keyId: noteKeyId(name, k.raw), publicKey: k.raw }));
}

function decodeHashes(list: readonly string[], what: string, registryUrl: string): Uint8Array[] {
  return list.map((h) => {
    try {
      const bytes = fromBase64(h);
      if (bytes.length === 32) return bytes;
    } catch {}
    throw new RyeError("MALFORMED_RESPONSE", `${registryUrl} sent a ${what} with a hash that is not 32 bytes of base64; nothing was written`);
  });
}

/**
 * Opens the registry's checkpoint with its pinned keys; BAD_SIGNATURE when no pinned key signed it, MALFORMED_RESPONSE
 * when it is not a checkpoint. The log's origin (its name, and the signing key's name) is the one the client kept for
 * this registry, or on first sight the one the note names: a client may reach a registry by another URL than the one
 * it publishes (a proxy, another host name), and the pinned key already ties the log to the registry.
 */
export async function openTreeCheckpoint(registryUrl: string, note: string, keys: readonly PublicKey[], keptOrigin?: string): Promise<VerifiedTreeCheckpoint> {
  const origin = keptOrigin ?? note.slice(0, Math.max(0, note.indexOf("\n")));
  const opened = origin ? await openNote(note, treeVerifiers(origin, keys)) : ({ ok: false, error: "NOTE_MALFORMED", reason: "no origin line" } as const);
  if (!opened.ok) {
    throw new RyeError(opened.error === "NOTE_MALFORMED" ? "MALFORMED_RESPONSE" : "BAD_SIGNATURE", `The log checkpoint of ${registryUrl} does not verify (${opened.reason}); nothing was written`, {
      hint: "The registry or the network altered it. Do not trust this registry's answers; retry on a trusted network or report it to the registry's operators.",
      details: { registry: registryUrl, origin, check: "checkpoint" },
    });
  }
  const checkpoint: Checkpoint | null = parseCheckpoint(opened.text);
  if (!checkpoint || checkpoint.origin !== origin) {
    throw new RyeError("MALFORMED_RESPONSE", `The log checkpoint of ${registryUrl} is not a checkpoint of ${origin}; nothing was written`, { details: { registry: registryUrl, origin, check: "checkpoint" } });
  }
  return { origin, size: checkpoint.size, root_hash: toBase64(checkpoint.rootHash), note };
}

/**
 * Checks that the log entry at `answer.index` is exactly the pulled version's publish (LOG_ENTRY_MISMATCH), and that
 * the signed tree holds it (LOG_INCLUSION_INVALID).
 */
export function verifyPulledEntry(registryUrl: string, checkpoint: VerifiedTreeCheckpoint, answer: InclusionAnswer, expected: ExpectedEntry): void {
  const details = { registry: registryUrl, index: answer.index, tree_size: checkpoint.size };
  let leaf: Uint8Array;
  let entry: { index?: unknown; kind?: unknown; payload?: unknown };
  try {
    leaf = fromBase64(answer.leaf);
    entry = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(leaf)) as typeof entry;
  } catch {
    throw new RyeError("MALFORMED_RESPONSE", `${registryUrl} sent a log entry that is not base64 JSON; nothing was written`);
  }
  if (entry.index !== answer.index || typeof entry.payload !== "object" || entry.payload === null || !entryMatches(entry.kind, entry.payload as Record<string, unknown>, expected)) {
    throw new RyeError("LOG_ENTRY_MISMATCH", `The publish log of ${registryUrl} proves entry ${answer.index}, which is not the publish of ${expected.id}@${expected.version} by ${expected.publisher}; nothing was written`, { details });
  }
  const proof = decodeHashes(answer.proof, "inclusion proof", registryUrl);
  if (answer.index >= checkpoint.size || !verifyInclusion(answer.index, checkpoint.size, leafHash(leaf), proof, fromBase64(checkpoint.root_hash))) {
    throw new RyeError("LOG_INCLUSION_INVALID", `The signed publish log of ${registryUrl} (${checkpoint.size} entries) does not hold entry ${answer.index} as served; nothing was written`, { details });
  }
}

/** Checks that `newer` extends `older` (same origin); LOG_INCONSISTENT otherwise. */
export function verifyTreeExtends(registryUrl: string, older: VerifiedTreeCheckpoint, newer: VerifiedTreeCheckpoint, proof: readonly string[]): void {
  const ok =
    older.origin === newer.origin &&
    newer.size >= older.size &&
    verifyConsistency(older.size, newer.size, decodeHashes(proof, "consistency proof", registryUrl), fromBase64(older.root_hash), fromBase64(newer.root_hash));
  if (!ok) {
    throw new RyeError("LOG_INCONSISTENT", `The publish log of ${registryUrl} at ${newer.size} entries does not extend the one verified at ${older.size} (its history was rewritten, or you are shown a fork); nothing was written`, {
      details: { registry: registryUrl, kept: { size: older.size, root_hash: older.root_hash }, served: { size: newer.size, root_hash: newer.root_hash } },
    });
  }
}
