/**
 * The append-only publish log: a hash chain of entries (kept for older clients) and the RFC 6962 Merkle tree over
 * the same entries (log-tree.ts), both appended inside the publishing transaction under a transaction-scoped advisory
 * lock, so indexes are gapless and ordered across processes and every process's tiles agree.
 */
import type { Prisma } from "@rye/db";
import { canonicalJson, LOG_GENESIS_HASH, logEntryHash, sha256Hex } from "@rye/core";
import { appendLeaves, entryLeaf, syncTreeTo } from "./log-tree.ts";

export const LOG_LOCK_ID = 7_390_221; // arbitrary constant shared by every registry process

export interface AppendedEntry {
  index: number;
  entryHash: string;
  prevHash: string;
}

export async function appendLogEntry(tx: Prisma.TransactionClient, kind: string, payload: Record<string, unknown>): Promise<AppendedEntry> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${LOG_LOCK_ID})`);
  const head = await tx.publishLogEntry.findFirst({ orderBy: { index: "desc" }, select: { index: true, entryHash: true } });
  const index = head ? Number(head.index) + 1 : 0;
  const prevHash = head?.entryHash ?? LOG_GENESIS_HASH;
  const entryHash = logEntryHash({ index, kind, payload, prev_hash: prevHash });
  entryLeaf({ index, kind, payload }); // refuses, before anything is written, an entry too large for an entry bundle
  const tree = await syncTreeTo(tx, index); // a log older than its tree is caught up first (normally nothing to do)
  await tx.publishLogEntry.create({ data: { index: BigInt(index), kind, payload: payload as Prisma.InputJsonValue, prevHash, entryHash } });
  await appendLeaves(tx, index, [{ index, kind, payload }], tree.lastLeaf);
  return { index, entryHash, prevHash };
}

/**
 * What the public log says about a publish. The log is public, so a private item or bundle is logged
 * only as a digest of its subject: members, who can read the attestation, can recompute and find it;
 * nobody else learns the id. `attribution` (who published with what: `author_key`, `credential`) is added next to
 * a public subject only, and never enters the digest, so a private entry is matched by its subject alone.
 */
export function publishLogPayload(visibility: string, subject: Record<string, unknown>, attribution?: Record<string, unknown>): Record<string, unknown> {
  if (visibility !== "private") return attribution ? { ...subject, ...attribution } : subject;
  return { kind: subject.kind, private: true, subject_digest: sha256Hex(canonicalJson(subject)) };
}
