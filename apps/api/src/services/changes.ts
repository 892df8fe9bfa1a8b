/**
 * The changes feed: the public publish log read back as events for mirrors and indexers. Entries about private
 * or held subjects (logged as a digest) are skipped; the cursor is a log index, so a consumer resumes exactly where
 * it stopped and can check every event it got against the signed checkpoint returned with the page.
 */
import type { Database } from "@rye/db";
import { logHead } from "./checkpoints.ts";

export const MAX_CHANGES_PAGE = 1000;

export interface Change {
  /** The log index: the feed's order, and the cursor to resume after this event. */
  seq: number;
  event: string;
  at: string;
  entry_hash: string;
  subject: Record<string, unknown>;
}

export interface ChangesPage {
  changes: Change[];
  /** Pass as `since` to read on; equals `tree_size` once caught up. */
  next_since: number;
  tree_size: number;
  caught_up: boolean;
}

/** Log kinds as the feed names them: an approval is when a held version is published. */
const FEED_EVENT: Record<string, string> = { approve: "publish" };

/**
 * Reads up to `limit` log entries from index `since` (private ones are read but not returned, so a page may hold
 * fewer changes than `limit` — or none — while `next_since` still advances).
 */
export async function readChanges(db: Database, since: number, limit: number): Promise<ChangesPage> {
  // The size first: the page is a prefix of one consistent log even while events are appended.
  const { treeSize } = await logHead(db);
  const rows = await db.prisma.publishLogEntry.findMany({
    where: { index: { gte: BigInt(since), lt: BigInt(treeSize) } },
    orderBy: { index: "asc" },
    take: Math.min(limit, MAX_CHANGES_PAGE),
  });
  const changes: Change[] = [];
  for (const row of rows) {
    const payload = row.payload as Record<string, unknown>;
    if (payload.private === true) continue;
    changes.push({ seq: Number(row.index), event: FEED_EVENT[row.kind] ?? row.kind, at: row.createdAt.toISOString(), entry_hash: row.entryHash, subject: payload });
  }
  const nextSince = rows.length > 0 ? Number(rows.at(-1)!.index) + 1 : Math.min(since, treeSize);
  return { changes, next_since: nextSince, tree_size: treeSize, caught_up: nextSince >= treeSize };
}
