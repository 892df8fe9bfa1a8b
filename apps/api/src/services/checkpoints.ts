/**
 * Signed checkpoints of the publish log: `{tree_size, head_hash}` signed by the registry key, issued
 * lazily when one is asked for and the log grew since the last one, which is older than the interval
 * or `everyEntries` behind. Each tree size is checkpointed at most once (unique column), so concurrent
 * requests and processes converge on the same stored checkpoint.
 */
import type { KeyPair, LogCheckpoint, SignedDocument } from "@rye/core";
import { LOG_GENESIS_HASH, signDocument } from "@rye/core";
import type { Database } from "@rye/db";

export const CHECKPOINT_TYPE = "https://rye.dev/log-checkpoint/v1";

export interface CheckpointPolicy {
  /** A grown log gets a new checkpoint once the last one is this old. Default 60 s. */
  intervalMs: number;
  /** …or once it grew by this many entries. Default 100. */
  everyEntries: number;
  now: () => Date;
}

export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { intervalMs: 60_000, everyEntries: 100, now: () => new Date() };

export interface LogHead {
  treeSize: number;
  /** The last entry's hash; the genesis hash for an empty log. */
  headHash: string;
}

/** Indexes are gapless from 0, so the size is the last index + 1. */
export async function logHead(db: Database): Promise<LogHead> {
  const head = await db.prisma.publishLogEntry.findFirst({ orderBy: { index: "desc" }, select: { index: true, entryHash: true } });
  return head ? { treeSize: Number(head.index) + 1, headHash: head.entryHash } : { treeSize: 0, headHash: LOG_GENESIS_HASH };
}

interface CheckpointRow {
  treeSize: bigint;
  headHash: string;
  keyFingerprint: string;
  signature: string;
  createdAt: Date;
}

/** The row's signed document; `issued_at` is the row's creation time (stored at millisecond precision). */
function toDocument(row: CheckpointRow, registry: string): SignedDocument<LogCheckpoint> {
  return {
    payload: { _type: CHECKPOINT_TYPE, registry, tree_size: Number(row.treeSize), head_hash: row.headHash, issued_at: row.createdAt.toISOString() },
    signature: row.signature,
    key_fingerprint: row.keyFingerprint,
  };
}

function isDue(last: CheckpointRow, head: LogHead, policy: CheckpointPolicy): boolean {
  const grown = head.treeSize - Number(last.treeSize);
  if (grown <= 0) return false;
  return grown >= policy.everyEntries || policy.now().getTime() - last.createdAt.getTime() >= policy.intervalMs;
}

export interface CheckpointContext {
  db: Database;
  signer: () => Promise<KeyPair>;
  registryUrl: string;
  policy?: Partial<CheckpointPolicy>;
}

/** The latest checkpoint, issuing (and storing) a new one first when it is due. */
export async function currentCheckpoint(ctx: CheckpointContext): Promise<SignedDocument<LogCheckpoint>> {
  const policy = { ...DEFAULT_CHECKPOINT_POLICY, ...ctx.policy };
  const last = await ctx.db.prisma.logCheckpoint.findFirst({ orderBy: { treeSize: "desc" } });
  const head = await logHead(ctx.db);
  const signer = await ctx.signer();
  // After a key rotation the latest checkpoint is re-issued with the new key: clients trust only that one.
  const rekeyed = last !== null && last.keyFingerprint !== signer.publicKey.fingerprint;
  if (last && !rekeyed && !isDue(last, head, policy)) return toDocument(last, ctx.registryUrl);

  const issuedAt = policy.now();
  const payload: LogCheckpoint = { _type: CHECKPOINT_TYPE, registry: ctx.registryUrl, tree_size: head.treeSize, head_hash: head.headHash, issued_at: issuedAt.toISOString() };
  const signed = await signDocument(payload, signer);
  if (last && Number(last.treeSize) === head.treeSize) {
    // Same size, old key: replace the signature (only once, if another request did not already).
    await ctx.db.prisma.logCheckpoint.updateMany({
      where: { treeSize: last.treeSize, keyFingerprint: last.keyFingerprint },
      data: { keyFingerprint: signed.key_fingerprint, signature: signed.signature, createdAt: issuedAt },
    });
    return toDocument(await ctx.db.prisma.logCheckpoint.findUniqueOrThrow({ where: { treeSize: last.treeSize } }), ctx.registryUrl);
  }
  // ON CONFLICT DO NOTHING: when another request checkpointed this size first, serve its checkpoint.
  await ctx.db.prisma.logCheckpoint.createMany({
    data: [{ treeSize: BigInt(head.treeSize), headHash: head.headHash, keyFingerprint: signed.key_fingerprint, signature: signed.signature, createdAt: issuedAt }],
    skipDuplicates: true,
  });
  const stored = await ctx.db.prisma.logCheckpoint.findUniqueOrThrow({ where: { treeSize: BigInt(head.treeSize) } });
  return toDocument(stored, ctx.registryUrl);
}
