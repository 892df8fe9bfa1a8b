/**
 * Download counts without a write per pull: pulls add to a map in memory, and one UPDATE per flush adds the
 * batch to `items.download_count` (every `intervalMs`, sooner when `maxPendingItems` distinct items wait, and on
 * close — the server closes it on SIGTERM/SIGINT before the database). A failed flush puts its counts back for
 * the next one, so counts are late, never lost, while the process lives. Rows are updated in id order, so two
 * processes flushing overlapping batches cannot deadlock. The UPDATE leaves updated_at alone (downloads must
 * not reorder "recently updated") and does not bump the read generation.
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

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly options: DownloadCounterOptions = { intervalMs: DEFAULT_DOWNLOAD_FLUSH_MS, maxPendingItems: DEFAULT_MAX_PENDING_ITEMS },
  ) {
    this.timer = setInterval(() => void this.flush(), options.intervalMs);
    this.timer.unref();
  }

  /** One download of item `itemId` (the items row id). */
  add(itemId: string): void {
    this.pending.set(itemId, (this.pending.get(itemId) ?? 0) + 1);
    if (this.pending.size >= this.options.maxPendingItems) void this.flush();
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
    const ids = [...batch.keys()].sort();
    try {
      await this.db.raw.query(
        "UPDATE items AS i SET download_count = i.download_count + d.n FROM unnest($1::uuid[], $2::int4[]) AS d(id, n) WHERE i.id = d.id",
        [ids, ids.map((id) => batch.get(id)!)],
      );
    } catch (error) {
      for (const [id, n] of batch) this.pending.set(id, (this.pending.get(id) ?? 0) + n);
      this.logger.log("warn", "could not write download counts; kept for the next flush", { items: batch.size, error: (error as Error).message });
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
