/**
 * Signed checkpoints of the publish log, issued together for one tree size: `{tree_size, head_hash}` signed by the
 * registry key as a JSON document (the hash chain's head, for older clients), and the C2SP signed-note checkpoint
 * of the Merkle tree's root (`note`: origin, size, root hash; signed by the active key and, during a rotation's
 * overlap, by the retired one too). Issued
 * lazily when one is asked for and the log grew since the last one, which is older than the interval
 * or `everyEntries` behind. Each tree size is checkpointed at most once (unique column).
 *
 * One writer at a time, across processes: a process that finds a checkpoint due takes a transaction-scoped
 * advisory lock, then decides again on what it reads under the lock. The processes that queued behind it find
 * the checkpoint it stored and serve that one, so a burst of requests over several processes signs once, and a
 * re-key after a rotation never races another process's re-key or new checkpoint.
 */
import type { KeyPair, LogCheckpoint, SignedDocument } from "@rye/core";
import { formatCheckpoint, LOG_GENESIS_HASH, logOrigin, signDocument, signNote, toHex } from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import type { AppDeps } from "./deps.ts";
import { catchUpTree, treeBehind, treeRootAt } from "./log-tree.ts";
import { LOG_LOCK_ID } from "./publish-log.ts";
import { WitnessCollector } from "./witnesses.ts";

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

export interface CheckpointRow {
  treeSize: bigint;
  headHash: string;
  keyFingerprint: string;
  signature: string;
  rootHash: string | null;
  note: string | null;
  /** Witness cosignature lines collected for `note` (null until its witness round ended). */
  cosignatures?: string | null;
  /** When the witness round for `note` ended; null while it runs, or when witnesses are not configured. */
  witnessedAt?: Date | null;
  createdAt: Date;
}

/** A served checkpoint: `note` is the registry-signed note with the witnesses' cosignature lines appended. */
export type ServedCheckpointRow = CheckpointRow & { note: string; rootHash: string };

/** The row's signed document; `issued_at` is the row's creation time (stored at millisecond precision). */
function toDocument(row: CheckpointRow, registry: string): SignedDocument<LogCheckpoint> {
  return {
    payload: { _type: CHECKPOINT_TYPE, registry, tree_size: Number(row.treeSize), head_hash: row.headHash, issued_at: row.createdAt.toISOString() },
    signature: row.signature,
    key_fingerprint: row.keyFingerprint,
  };
}

function isDue(last: CheckpointRow, head: LogHead, policy: CheckpointPolicy & { atLeast?: number }): boolean {
  const grown = head.treeSize - Number(last.treeSize);
  if (grown <= 0) return false;
  return Number(last.treeSize) < (policy.atLeast ?? 0) || grown >= policy.everyEntries || policy.now().getTime() - last.createdAt.getTime() >= policy.intervalMs;
}

export interface CheckpointContext {
  db: Database;
  signer: () => Promise<KeyPair>;
  /** Retired keys that cosign the signed-note checkpoint during a rotation's overlap (keyring.overlapSigners). */
  cosigners?: () => Promise<KeyPair[]>;
  registryUrl: string;
  policy?: Partial<CheckpointPolicy>;
  /** Witnesses to cosign each new checkpoint (RYE_WITNESSES); none when absent. */
  witnesses?: WitnessCollector | null;
}

/** One collector per registry configuration (it keeps each witness's last size in memory). */
const collectors = new WeakMap<object, WitnessCollector | null>();

function witnessCollectorFor(deps: Pick<AppDeps, "db" | "config" | "logger">): WitnessCollector | null {
  const witnesses = deps.config.witnesses;
  if (!witnesses || witnesses.list.length === 0) return null;
  let collector = collectors.get(witnesses);
  if (collector === undefined) {
    collector = new WitnessCollector(witnesses.list, witnesses.timeoutMs, deps.db, deps.logger);
    collectors.set(witnesses, collector);
  }
  return collector;
}

/** The context every route issues checkpoints with: the active key signs, retired keys in their overlap cosign the note. */
export function checkpointContext(deps: Pick<AppDeps, "db" | "keyring" | "config"> & Partial<Pick<AppDeps, "logger">>, policy?: Partial<CheckpointPolicy>): CheckpointContext {
  const witnesses = deps.logger ? witnessCollectorFor({ db: deps.db, config: deps.config, logger: deps.logger }) : null;
  return { db: deps.db, signer: () => deps.keyring.signer(), cosigners: () => deps.keyring.overlapSigners(), registryUrl: deps.config.publicUrl, witnesses, ...(policy ? { policy } : {}) };
}

/** The latest checkpoint, issuing (and storing) a new one first when it is due. */
export async function currentCheckpoint(ctx: CheckpointContext): Promise<SignedDocument<LogCheckpoint>> {
  return toDocument(await currentCheckpointRow(ctx), ctx.registryUrl);
}

export interface CurrentCheckpointOptions {
  /**
   * A checkpoint of at least this size (e.g. one that holds a just-published entry): when the latest is smaller and
   * the log has grown beyond it, one is issued now, whatever the interval policy says.
   */
  atLeast?: number;
}

/**
 * The latest checkpoint's row, issuing a new one first when it is due (or smaller than `atLeast`). Its `note` carries
 * the cosignatures of the configured witnesses:
 * - the caller that issued a checkpoint runs its witness round (outside any transaction or lock) and returns it
 *   with what the witnesses answered;
 * - a concurrent caller gets the latest checkpoint whose round has ended, when that one is at least `atLeast`;
 *   otherwise it waits for the round running (polling the row, up to twice the witness timeout) and, should that
 *   round never end (its process died), runs one itself.
 * Without witnesses, the note is served as signed.
 */
export async function currentCheckpointRow(ctx: CheckpointContext, options: CurrentCheckpointOptions = {}): Promise<ServedCheckpointRow> {
  const row = await issuedCheckpointRow(ctx, options);
  if (!ctx.witnesses) return served(row.row); // cosignatures stored while witnesses were configured are still served
  if (row.issued) return witnessRound(ctx, ctx.witnesses, row.row);
  if (row.row.witnessedAt) return served(row.row);
  const done = await ctx.db.prisma.logCheckpoint.findFirst({ where: { witnessedAt: { not: null }, note: { not: null } }, orderBy: { treeSize: "desc" } });
  if (done && (options.atLeast === undefined || Number(done.treeSize) >= options.atLeast)) return served(done as ServedCheckpointRow);
  // A round ends within the witness timeout; one that has not ended twice that long after the row was made never will.
  const deadline = row.row.createdAt.getTime() + 2 * ctx.witnesses.timeoutMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await ctx.db.prisma.logCheckpoint.findUnique({ where: { treeSize: row.row.treeSize } });
    if (now?.witnessedAt && now.note) return served(now as ServedCheckpointRow);
  }
  return witnessRound(ctx, ctx.witnesses, row.row);
}

function served(row: ServedCheckpointRow): ServedCheckpointRow {
  return row.cosignatures ? { ...row, note: row.note + row.cosignatures } : row;
}

/** Sends the row's note to the witnesses and stores their cosignatures with it (unless the note was re-signed meanwhile). */
async function witnessRound(ctx: CheckpointContext, witnesses: WitnessCollector, row: ServedCheckpointRow): Promise<ServedCheckpointRow> {
  const cosignatures = await witnesses.cosign(row.note, Number(row.treeSize));
  const witnessedAt = new Date();
  await ctx.db.prisma.logCheckpoint.updateMany({ where: { treeSize: row.treeSize, note: row.note }, data: { cosignatures, witnessedAt } });
  return served({ ...row, cosignatures, witnessedAt });
}

async function issuedCheckpointRow(ctx: CheckpointContext, options: CurrentCheckpointOptions): Promise<{ row: ServedCheckpointRow; issued: boolean }> {
  const policy = { ...DEFAULT_CHECKPOINT_POLICY, ...ctx.policy, ...(options.atLeast !== undefined ? { atLeast: options.atLeast } : {}) };
  const signer = await ctx.signer();
  const seen = await latest(ctx.db.prisma);
  if (seen.last && !needsSigning(seen.last, seen.head, signer, policy)) return { row: seen.last as ServedCheckpointRow, issued: false };
  // A log older than its tree (not yet caught up on start) gets its tree before its first tree checkpoint.
  if (await treeBehind(ctx.db)) await catchUpTree(ctx.db, LOG_LOCK_ID);
  const cosigners = (await ctx.cosigners?.()) ?? [];
  const stored = await ctx.db.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${CHECKPOINT_LOCK_ID})`);
    const { last, head } = await latest(tx);
    if (last && !needsSigning(last, head, signer, policy)) return { row: last, issued: false }; // another request or process signed it first
    const issuedAt = policy.now();
    const payload: LogCheckpoint = { _type: CHECKPOINT_TYPE, registry: ctx.registryUrl, tree_size: head.treeSize, head_hash: head.headHash, issued_at: issuedAt.toISOString() };
    const signed = await signDocument(payload, signer);
    const rootHash = await treeRootAt(tx, head.treeSize);
    const origin = logOrigin(ctx.registryUrl);
    const keys = [signer, ...cosigners.filter((k) => k.publicKey.fingerprint !== signer.publicKey.fingerprint)];
    const note = await signNote(formatCheckpoint({ origin, size: head.treeSize, rootHash }), origin, keys);
    // A re-signed note has no cosignatures yet: its witness round starts over.
    const row = { keyFingerprint: signed.key_fingerprint, signature: signed.signature, rootHash: toHex(rootHash), note, cosignatures: null, witnessedAt: null, createdAt: issuedAt };
    // Same size, old key (a rotation): the signature is replaced; otherwise the new size gets its row.
    const upserted = await tx.logCheckpoint.upsert({
      where: { treeSize: BigInt(head.treeSize) },
      create: { treeSize: BigInt(head.treeSize), headHash: head.headHash, ...row },
      update: row,
    });
    return { row: upserted, issued: true };
  });
  return stored as { row: ServedCheckpointRow; issued: boolean };
}

async function latest(prisma: Prisma.TransactionClient): Promise<{ last: CheckpointRow | null; head: LogHead }> {
  const last = await prisma.logCheckpoint.findFirst({ orderBy: { treeSize: "desc" } });
  return { last, head: await headOf(prisma) };
}

/**
 * No checkpoint yet, a due one, one made before the Merkle tree (no signed note), or the latest signed by a key other
 * than the active one (re-issued after a rotation: clients trust only that one).
 */
function needsSigning(last: CheckpointRow, head: LogHead, signer: KeyPair, policy: CheckpointPolicy & { atLeast?: number }): boolean {
  return last.note === null || last.keyFingerprint !== signer.publicKey.fingerprint || isDue(last, head, policy);
}
