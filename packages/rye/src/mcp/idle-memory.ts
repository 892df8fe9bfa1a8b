/**
 * `rye mcp` gives memory back once a burst of work is over. Agents call tools in bursts with minutes of quiet in
 * between, and a burst can leave a lot behind: indexing 10 000 items for the first search leaves ~100 MB of garbage
 * in V8's old generation and ~50 MB of freed buffers, which an idle process keeps (nothing allocates to trigger a
 * collection). 25 s after 51 searches over 10 000 items, RSS went from 289 to 198 MB when the first search built
 * the index, and from 172 to 142 MB when it was read from the stored index, with one memory-reducing collection.
 *
 * The collection runs IDLE_COLLECT_MS after the last tool call, and only when the heap and its array buffers grew
 * by IDLE_COLLECT_MIN_GROWTH_BYTES since the last one: a steady trickle of small calls costs nothing.
 */
import { collectGarbage } from "@rye/core/node-gc";

/** Quiet time after the last tool call before the server collects. */
export const IDLE_COLLECT_MS = 10_000;
/** Growth of heapUsed + arrayBuffers since the last collection below which collecting is not worth it. */
export const IDLE_COLLECT_MIN_GROWTH_BYTES = 8 * 1024 * 1024;

/** What the collector watches: V8's live heap and the memory of array buffers (file contents, index data). */
export function memoryFootprint(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

export interface IdleCollectorOptions {
  idleMs?: number;
  minGrowthBytes?: number;
  collect?: () => void;
  footprint?: () => number;
}

export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  private baseline: number;
  private readonly idleMs: number;
  private readonly minGrowthBytes: number;
  private readonly collect: () => void;
  private readonly footprint: () => number;

  constructor(options: IdleCollectorOptions = {}) {
    this.idleMs = options.idleMs ?? IDLE_COLLECT_MS;
    this.minGrowthBytes = options.minGrowthBytes ?? IDLE_COLLECT_MIN_GROWTH_BYTES;
    this.collect = options.collect ?? collectGarbage;
    this.footprint = options.footprint ?? memoryFootprint;
    this.baseline = this.footprint();
  }

  /** A tool call ended: (re)starts the quiet-time countdown. */
  activity(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.idle(), this.idleMs);
    // Never what keeps the process alive.
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private idle(): void {
    this.timer = null;
    if (this.footprint() - this.baseline < this.minGrowthBytes) return;
    this.collect();
    this.baseline = this.footprint();
  }
}
