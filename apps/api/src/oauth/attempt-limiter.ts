/**
 * Counts failures per key in fixed windows (brute force of user codes). The windows live in a WindowCounters
 * store, shared through PostgreSQL by every process of a scaled-out registry (services/window-counters.ts).
 */
import { MemoryWindowCounters, type WindowCounters } from "../services/window-counters.ts";

export class AttemptLimiter {
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly counters: WindowCounters = new MemoryWindowCounters(),
    /** Keeps this limiter's keys apart from other users of the same store. */
    private readonly prefix = "attempts:",
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again, or 0 when it is not blocked. */
  async retryAfter(key: string): Promise<number> {
    const entry = await this.counters.peek(this.prefix + key);
    if (entry.count < this.limit) return 0;
    return Math.max(1, Math.ceil((entry.resetAt - this.now()) / 1000));
  }

  async fail(key: string): Promise<void> {
    await this.counters.hit(this.prefix + key, this.windowMs);
  }
}
