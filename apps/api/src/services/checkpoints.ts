/**
 * Signed checkpoints of the publish log: `{tree_size, head_hash}` signed by the registry key, issued
 * lazily when one is asked for and the log grew since the last one, which is older than the interval
 * or `everyEntries` behind. Each tree size is checkpointed at most once (unique column).
 *
 * One writer at a time, across processes: a process that finds a checkpoint due takes a transaction-scoped
 * advisory lock, then decides again on what it reads under the lock. The processes that queued behind it find
 * the checkpoint it stored and serve that one, so a burst of requests over several processes signs once, and a
 * re-key after a rotation never races another process's re-key or new checkpoint.
 */
import type { KeyPair, LogCheckpoint, SignedDocument } from "@rye/core";
import { LOG_GENESIS_HASH, signDocument } from "@rye/core";
import type { Database, Prisma } from "@rye/db";

const CHECKPOINT_LOCK_ID = 7_390_222; // arbitrary constant shared by every registry process (the log's is 7_390_221)

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
  return headOf(db.prisma);
}

async function headOf(prisma: Prisma.TransactionClient): Promise<LogHead> {
  const head = await prisma.publishLogEntry.findFirst({ orderBy: { index: "desc" }, select: { index: true, entryHash: true } });
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
  const signer = await ctx.signer();
  const seen = await latest(ctx.db.prisma);
  if (seen.last && !needsSigning(seen.last, seen.head, signer, policy)) return toDocument(seen.last, ctx.registryUrl);
  const stored = await ctx.db.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${CHECKPOINT_LOCK_ID})`);
    const { last, head } = await latest(tx);
    if (last && !needsSigning(last, head, signer, policy)) return last; // another request or process signed it first
    const issuedAt = policy.now();
    const payload: LogCheckpoint = { _type: CHECKPOINT_TYPE, registry: ctx.registryUrl, tree_size: head.treeSize, head_hash: head.headHash, issued_at: issuedAt.toISOString() };
    const signed = await signDocument(payload, signer);
    const row = { keyFingerprint: signed.key_fingerprint, signature: signed.signature, createdAt: issuedAt };
    // Same size, old key (a rotation): the signature is replaced; otherwise the new size gets its row.
    return tx.logCheckpoint.upsert({
      where: { treeSize: BigInt(head.treeSize) },
      create: { treeSize: BigInt(head.treeSize), headHash: head.headHash, ...row },
      update: row,
    });
  });
  return toDocument(stored, ctx.registryUrl);
}

async function latest(prisma: Prisma.TransactionClient): Promise<{ last: CheckpointRow | null; head: LogHead }> {
  const last = await prisma.logCheckpoint.findFirst({ orderBy: { treeSize: "desc" } });
  return { last, head: await headOf(prisma) };
}

/** No checkpoint yet, a due one, or the latest signed by a key other than the active one (re-issued after a rotation: clients trust only that one). */
function needsSigning(last: CheckpointRow, head: LogHead, signer: KeyPair, policy: CheckpointPolicy): boolean {
  return last.keyFingerprint !== signer.publicKey.fingerprint || isDue(last, head, policy);
}
