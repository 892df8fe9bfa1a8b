/**
 * Counts failures per key in fixed windows (brute force of user codes). Held in the process like the
 * request rate limits: behind a load balancer each process enforces the limit on its own share.
 */
const MAX_TRACKED = 100_000;

export class AttemptLimiter {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until `key` may try again, or 0 when it is not blocked. */
  retryAfter(key: string): number {
    const entry = this.current(key);
    if (!entry || entry.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((entry.start + this.windowMs - this.now()) / 1000));
  }

  fail(key: string): void {
    let entry = this.current(key);
    if (!entry) {
      if (this.windows.size >= MAX_TRACKED) this.windows.clear();
      entry = { start: this.now(), failures: 0 };
      this.windows.set(key, entry);
    }
    entry.failures++;
  }

  private current(key: string): { start: number; failures: number } | undefined {
    const entry = this.windows.get(key);
    if (entry && this.now() - entry.start >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return entry;
  }
}
