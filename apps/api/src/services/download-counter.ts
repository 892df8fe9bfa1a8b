/**
 * Download counts without a write per pull: pulls add to a map in memory (per item, version and UTC day), and one
 * statement per flush adds the batch to `items.download_count` and to the daily statistics `download_days` (every
 * `intervalMs`, sooner when `maxPendingItems` distinct keys wait, and on close — the server closes it on
 * SIGTERM/SIGINT before the database). A failed flush puts its counts back for the next one, so counts are late,
 * never lost, while the process lives. Rows are written in key order, so two processes flushing overlapping
 * batches cannot deadlock. The UPDATE leaves updated_at alone (downloads must not reorder "recently updated") and
 * does not bump the read generation.
 */
import type { Database } from "@rye/db";
import type { Logger } from "../logger.ts";

export interface DownloadCounterOptions {
  intervalMs: number;
  maxPendingItems: number;
}

export const DEFAULT_DOWNLOAD_FLUSH_MS = 1_000;
export const DEFAULT_MAX_PENDING_ITEMS = 10_000;

export class DownloadCounter {
  private pending = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private today: { day: number; date: string } = { day: -1, date: "" };

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly options: DownloadCounterOptions = { intervalMs: DEFAULT_DOWNLOAD_FLUSH_MS, maxPendingItems: DEFAULT_MAX_PENDING_ITEMS },
  ) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs);
    this.timer.unref();
  }

  /** One download of `version` of item `itemId` (the items row id), counted on today's UTC date. */
  add(itemId: string, version: string, now: Date | number = Date.now()): void {
    const key = `${itemId}\u0000${version}\u0000${this.utcDate(typeof now === "number" ? now : now.getTime())}`;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    if (this.pending.size >= this.options.maxPendingItems) void this.flush();
  }

  /** YYYY-MM-DD of `ms`, formatted once per day. */
  private utcDate(ms: number): string {
    const day = Math.floor(ms / 86_400_000);
    if (day !== this.today.day) this.today = { day, date: new Date(day * 86_400_000).toISOString().slice(0, 10) };
    return this.today.date;
  }

  /** Downloads counted here and not flushed yet (all items). */
  pendingTotal(): number {
    let total = 0;
    for (const n of this.pending.values()) total += n;
    return total;
  }

  /** Writes what is pending; flushes run one after another. Resolves when the counts up to now are written (or put back). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const keys = [...batch.keys()].sort();
    const parts = keys.map((k) => k.split("\u0000") as [string, string, string]);
    try {
      // One statement: the item totals and the daily rows land together or not at all. An item deleted
      // meanwhile is skipped (the join finds no row), so its counts are dropped rather than failing the batch.
      await this.db.raw.query(
        `WITH d AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::date[], $4::int4[]) AS d(item_id, version, day, n)),
              totals AS (
                UPDATE items AS i SET download_count = i.download_count + t.n
                FROM (SELECT item_id, sum(n)::int4 AS n FROM d GROUP BY item_id ORDER BY item_id) AS t
                WHERE i.id = t.item_id RETURNING i.id)
         INSERT INTO download_days (item_id, version, day, count)
         SELECT d.item_id, d.version, d.day, d.n FROM d JOIN totals ON totals.id = d.item_id ORDER BY d.item_id, d.version, d.day
         ON CONFLICT (item_id, version, day) DO UPDATE SET count = download_days.count + excluded.count`,
        [parts.map((p) => p[0]), parts.map((p) => p[1]), parts.map((p) => p[2]), keys.map((k) => batch.get(k)!)],
      );
    } catch (error) {
      for (const [id, n] of batch) this.pending.set(id, (this.pending.get(id) ?? 0) + n);
      this.logger.log("warn", "could not write download counts; kept for the next flush", { keys: batch.size, error: (error as Error).message });
    }
  }

  /** Stops the timer and writes what is pending (tries twice more if the database refuses). */
  async close(): Promise<void> {
    if (this.closed) return this.flushing;
    this.closed = true;
    clearInterval(this.timer);
    for (let attempt = 0; attempt < 3 && this.pending.size > 0; attempt++) await this.flush();
    if (this.pending.size > 0) this.logger.log("error", "download counts lost at shutdown: the database refused them", { downloads: this.pendingTotal() });
  }
}
