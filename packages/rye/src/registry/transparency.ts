/**
 * Client-side checks of a registry's Merkle transparency log (docs/transparency.md): the signed-note checkpoint
 * opened with the registry's pinned keys, the inclusion of exactly the pulled entry (type, id, version, hashes,
 * publisher) in the signed tree, and that a newer checkpoint extends the one kept before.
 *
 * Pure functions over answers already fetched: the pull path (pull.ts) is to call them, and keep what verified
 * (the checkpoint) next to the key pin. Not wired into pulls yet (issue #32).
 */
import type { PublicKey } from "@rye/core";
import {
  canonicalJson,
  type Checkpoint,
  fromBase64,
  leafHash,
  logOrigin,
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

/** What the client expects the log entry of a pulled item to say (the attestation's subject and hashes). */
export interface ExpectedEntry {
  item_type: string;
  id: string;
  version: string;
  file_sha256: string;
  content_hash: string;
  publisher: string;
}

export interface InclusionAnswer {
  index: number;
  /** The leaf bytes, standard base64. */
  leaf: string;
  /** The audit path, standard base64 hashes. */
  proof: string[];
}

/** The note verifiers of a registry's keys: the log's origin is the key name. */
export function treeVerifiers(registryUrl: string, keys: readonly PublicKey[]): NoteVerifier[] {
  const name = logOrigin(registryUrl);
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

/** Opens the registry's checkpoint with its pinned keys; BAD_SIGNATURE when no pinned key signed it, MALFORMED_RESPONSE when it is not a checkpoint of this registry's log. */
export async function openTreeCheckpoint(registryUrl: string, note: string, keys: readonly PublicKey[]): Promise<VerifiedTreeCheckpoint> {
  const opened = await openNote(note, treeVerifiers(registryUrl, keys));
  if (!opened.ok) {
    throw new RyeError(opened.error === "NOTE_MALFORMED" ? "MALFORMED_RESPONSE" : "BAD_SIGNATURE", `The log checkpoint of ${registryUrl} does not verify (${opened.reason}); nothing was written`, {
      hint: "The registry or the network altered it. Do not trust this registry's answers; retry on a trusted network or report it to the registry's operators.",
      details: { registry: registryUrl, check: "checkpoint" },
    });
  }
  const checkpoint: Checkpoint | null = parseCheckpoint(opened.text);
  const origin = logOrigin(registryUrl);
  if (!checkpoint || checkpoint.origin !== origin) {
    throw new RyeError("MALFORMED_RESPONSE", `The log checkpoint of ${registryUrl} is not a checkpoint of ${origin}; nothing was written`, { details: { registry: registryUrl, check: "checkpoint" } });
  }
  return { origin, size: checkpoint.size, root_hash: toBase64(checkpoint.rootHash), note };
}

/** The subject a publish entry logs, as the registry writes it (services/publish.ts), and its private form's digest. */
function entryMatches(payload: Record<string, unknown>, expected: ExpectedEntry): boolean {
  const subject = { kind: "item", item_type: expected.item_type, id: expected.id, version: expected.version, file_sha256: expected.file_sha256, content_hash: expected.content_hash, publisher: expected.publisher };
  if (payload.private === true) return payload.subject_digest === sha256Hex(canonicalJson(subject));
  return canonicalJson(payload) === canonicalJson(subject);
}

/**
 * Checks that the log entry at `answer.index` is exactly the pulled item's publish, and that the signed tree holds it.
 * INTEGRITY_MISMATCH (details.check "entry" or "inclusion") otherwise.
 */
export function verifyPulledEntry(registryUrl: string, checkpoint: VerifiedTreeCheckpoint, answer: InclusionAnswer, expected: ExpectedEntry): void {
  const refuse = (check: "entry" | "inclusion", what: string) =>
    new RyeError("INTEGRITY_MISMATCH", `The publish log of ${registryUrl} ${what}; nothing was written`, {
      hint: "The registry serves an item its signed log does not hold. Do not trust its answers; report it to the registry's operators.",
      details: { registry: registryUrl, check, index: answer.index, tree_size: checkpoint.size },
    });
  let leaf: Uint8Array;
  let entry: { index?: unknown; kind?: unknown; payload?: unknown };
  try {
    leaf = fromBase64(answer.leaf);
    entry = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(leaf)) as typeof entry;
  } catch {
    throw new RyeError("MALFORMED_RESPONSE", `${registryUrl} sent a log entry that is not base64 JSON; nothing was written`);
  }
  if (entry.index !== answer.index || (entry.kind !== "publish" && entry.kind !== "approve") || typeof entry.payload !== "object" || entry.payload === null || !entryMatches(entry.payload as Record<string, unknown>, expected)) {
    throw refuse("entry", `entry ${answer.index} is not the publish of ${expected.item_type} ${expected.id}@${expected.version} by ${expected.publisher}`);
  }
  const proof = decodeHashes(answer.proof, "inclusion proof", registryUrl);
  if (!verifyInclusion(answer.index, checkpoint.size, leafHash(leaf), proof, fromBase64(checkpoint.root_hash))) {
    throw refuse("inclusion", `does not hold entry ${answer.index} in its signed tree of ${checkpoint.size} entries`);
  }
}

/** Checks that `newer` extends `older` (same origin); INTEGRITY_MISMATCH (details.check "consistency") otherwise. */
export function verifyTreeExtends(registryUrl: string, older: VerifiedTreeCheckpoint, newer: VerifiedTreeCheckpoint, proof: readonly string[]): void {
  const ok =
    older.origin === newer.origin &&
    newer.size >= older.size &&
    verifyConsistency(older.size, newer.size, decodeHashes(proof, "consistency proof", registryUrl), fromBase64(older.root_hash), fromBase64(newer.root_hash));
  if (!ok) {
    throw new RyeError("INTEGRITY_MISMATCH", `The publish log of ${registryUrl} at ${newer.size} entries does not extend the one seen at ${older.size} (history rewritten or rolled back); nothing was written`, {
      hint: "A registry's log only grows. Someone is serving you a rewritten or forked log. Do not trust its answers; report it to the registry's operators.",
      details: { registry: registryUrl, check: "consistency", seen: { size: older.size, root_hash: older.root_hash }, served: { size: newer.size, root_hash: newer.root_hash } },
    });
  }
}
