/**
 * The transparency check of every pull (items, bundles, skills: docs/transparency.md). The pull asks with
 * `tlog_from=<the tree size this client kept>` and the answer's `transparency` section must prove, before anything is
 * written:
 * - the checkpoint is a signed note of this registry's log, signed by a pinned registry key (BAD_SIGNATURE), and
 *   cosigned by the witnesses the trust policy requires (LOG_WITNESS_MISSING);
 * - it is not older than the checkpoint kept (LOG_ROLLBACK) and extends it (LOG_INCONSISTENT);
 * - the entry at the attestation's log index is exactly this version's publish (LOG_ENTRY_MISMATCH) and the signed
 *   tree holds it (LOG_INCLUSION_INVALID).
 * An answer without the section is refused (LOG_PROOF_MISSING). The checkpoint is then kept with the key pin.
 */
import type { PublicKey, PublishAttestation, PullTransparencyAnswer, SignedDocument } from "@rye/core";
import { publicKeyFromPem, RyeError } from "@rye/core";
import { readJson, registryFetch } from "./http.ts";
import type { RegistryKeyResult } from "./key-pinning.ts";
import { getRegistryPin, recordTreeCheckpoint } from "./key-pinning.ts";
import { checkWitnessed, witnessPolicyFor } from "./witness-policy.ts";
import { expectedEntryOf, openTreeCheckpoint, type VerifiedTreeCheckpoint, verifyPulledEntry, verifyTreeExtends } from "./transparency.ts";
import { z } from "zod";

/** What a pull verified about the log, kept in the project lock so `rye verify` can check it again offline. */
export interface LogInclusionRecord {
  index: number;
  tree_size: number;
  root_hash: string;
  /** The signed note, as served. */
  checkpoint: string;
  /** The entry's leaf bytes and audit path, standard base64. */
  leaf: string;
  proof: string[];
  /**
   * A mirror's copy (docs/mirroring.md): the attestation's `mirror_of`, exactly as the mirror signed it. The mirror logs
   * its copy as the digest of the subject with `mirror_of`, so an offline recheck needs it to recompute that digest.
   */
  mirror_of?: Record<string, unknown> | undefined;
}

export interface TlogAsk {
  /** The checkpoint kept when the pull was sent: the answer must extend it. */
  kept: VerifiedTreeCheckpoint | undefined;
  /** `tlog_from=<its size>`, the query parameter asking for the transparency section. */
  param: string;
}

/** What a pull sends to ask for the transparency section: the tree size this client kept for the registry. */
export async function tlogAsk(url: string, env: NodeJS.ProcessEnv): Promise<TlogAsk> {
  const kept = (await getRegistryPin(url, env))?.tree;
  return { kept, param: `tlog_from=${kept?.size ?? 0}` };
}

/** The keys a registry's checkpoint may be signed by: the pinned one and those it rotated from (not revoked). */
export function checkpointKeys(pinned: Pick<RegistryKeyResult, "key" | "pin">): PublicKey[] {
  return [pinned.key, ...pinned.pin.retired_keys.map((k) => publicKeyFromPem(k.public_key))];
}

const consistencyAnswerSchema = z.object({ from: z.number().int(), to: z.number().int(), proof: z.array(z.string().max(64)).max(128) });

/** Checks the section against the kept checkpoint and the attestation, then keeps the checkpoint; see the module comment. */
export async function verifyLogProof(
  pinned: RegistryKeyResult,
  section: PullTransparencyAnswer | undefined,
  attestation: SignedDocument<PublishAttestation>,
  ask: TlogAsk,
  context: { env: NodeJS.ProcessEnv; projectPath?: string | undefined },
  label: string,
): Promise<LogInclusionRecord> {
  const { env } = context;
  const url = pinned.url;
  if (!section) {
    throw new RyeError("LOG_PROOF_MISSING", `The registry at ${url} sent ${label} without a proof that it is in its signed publish log; nothing was written`, { details: { registry: url } });
  }
  const served = await openTreeCheckpoint(url, section.checkpoint, checkpointKeys(pinned), ask.kept?.origin);
  // The witnesses the trust policy requires (user and project: witness-policy.ts) cosigned this very checkpoint.
  await checkWitnessed(url, served.note, await witnessPolicyFor(url, context));
  if (ask.kept) extendsKept(url, ask.kept, served, section.consistency);
  if (section.index !== attestation.payload.log_index) {
    throw new RyeError("LOG_ENTRY_MISMATCH", `The registry at ${url} proves log entry ${section.index} for ${label}, whose attestation names entry ${attestation.payload.log_index}; nothing was written`, {
      details: { registry: url, index: section.index, attested: attestation.payload.log_index },
    });
  }
  const payload = attestation.payload as PublishAttestation & { mirror_of?: unknown };
  verifyPulledEntry(url, served, section, expectedEntryOf(payload));
  const now = await recordTreeCheckpoint(url, served, env);
  // A concurrent pull kept a larger checkpoint meanwhile: this one must be a prefix of it.
  if (now.size > served.size) await provePrefix(url, served, now, env);
  const mirrorOf = isPlainObject(payload.mirror_of) ? { mirror_of: payload.mirror_of } : {};
  return { index: section.index, tree_size: served.size, root_hash: served.root_hash, checkpoint: served.note, leaf: section.leaf, proof: section.proof, ...mirrorOf };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function extendsKept(url: string, kept: VerifiedTreeCheckpoint, served: VerifiedTreeCheckpoint, consistency: PullTransparencyAnswer["consistency"]): void {
  const details = { registry: url, kept: { size: kept.size, root_hash: kept.root_hash }, served: { size: served.size, root_hash: served.root_hash } };
  if (served.size < kept.size) {
    throw new RyeError("LOG_ROLLBACK", `The publish log of ${url} went back from ${kept.size} entries (verified before) to ${served.size}; nothing was written`, { details });
  }
  if (served.size === kept.size) {
    if (served.root_hash !== kept.root_hash) verifyTreeExtends(url, kept, served, []);
    return;
  }
  if (!consistency || consistency.from !== kept.size) {
    throw new RyeError("LOG_INCONSISTENT", `The registry at ${url} did not prove that its log of ${served.size} entries extends the one verified at ${kept.size}; nothing was written`, { details });
  }
  verifyTreeExtends(url, kept, served, consistency.proof);
}

async function provePrefix(url: string, older: VerifiedTreeCheckpoint, newer: VerifiedTreeCheckpoint, env: NodeJS.ProcessEnv): Promise<void> {
  const answer = readJson(await registryFetch(url, `/v1/tlog/proof/consistency?from=${older.size}&to=${newer.size}`, { env }), consistencyAnswerSchema);
  verifyTreeExtends(url, older, newer, answer.from === older.size && answer.to === newer.size ? answer.proof : []);
}

export type LockedLogCheck = { status: "verified"; index: number; tree_size: number } | { status: "none"; reason: string };

/**
 * Checks again, offline, the log proof a project lock kept for an item (`rye verify`): the checkpoint opens with the
 * registry keys pinned now, and its tree holds exactly this version's publish by `publisher` (a mirror's copy: its
 * `mirror` entry, with the countersignature the lock kept). Throws the pull's codes.
 */
export async function checkLockedLogProof(
  entry: { type: string; id: string; version: string; file_sha256: string; content_hash: string; registry: string; log?: LogInclusionRecord | undefined },
  publisher: string,
  env: NodeJS.ProcessEnv,
): Promise<LockedLogCheck> {
  if (!entry.log) return { status: "none", reason: "the lock kept no log proof for it (pinned before rye verified the log)" };
  const pin = await getRegistryPin(entry.registry, env);
  if (!pin) return { status: "none", reason: `no key is pinned for ${entry.registry}` };
  const served = await openTreeCheckpoint(entry.registry, entry.log.checkpoint, checkpointKeys({ key: publicKeyFromPem(pin.public_key), pin }), pin.tree?.origin);
  if (served.size !== entry.log.tree_size || served.root_hash !== entry.log.root_hash) {
    throw new RyeError("LOG_INCLUSION_INVALID", `The log proof kept in the lock for ${entry.type} ${entry.id}@${entry.version} does not match its checkpoint`, { details: { registry: entry.registry } });
  }
  // A mirror's copy is logged as the digest of this with the mirror's countersignature (`mirror_of`) added.
  const expected = { kind: "item", item_type: entry.type, id: entry.id, version: entry.version, file_sha256: entry.file_sha256, content_hash: entry.content_hash, publisher, ...(entry.log.mirror_of ? { mirror_of: entry.log.mirror_of } : {}) };
  verifyPulledEntry(entry.registry, served, entry.log, expected);
  return { status: "verified", index: entry.log.index, tree_size: served.size };
}
