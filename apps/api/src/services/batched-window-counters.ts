/**
 * Request rate limits without a write per request: hits are counted in this process and written to the shared
 * PostgreSQL store in batches (one statement for every key, PostgresWindowCounters.hitMany), so a load from one
 * address no longer queues the database pool on one `rate_counters` row's lock.
 *
 * Each key keeps the count the store last answered for it (every process's hits written by then) and the hits this
 * process counted since, not yet answered for ("unconfirmed": unsent, or in the batch being written). A hit is
 * judged on their sum. The batch is written every `flushMs`, and at once when a key has half of its cap
 * (`maxUnconfirmed`) unsent (so under a steady load the answer is back before the cap is reached); at the cap that
 * key's further hits wait for the store's answer, so a process never judges more than the cap's hits of a key on a
 * stale count.
 *
 * A hit that names its limit has a cap of its own: at most an eighth of the limit (at least 1), so a small limit (writes)
 * is not loosened by a cap sized for reads. With `cap = min(maxUnconfirmed, max(1, ⌊limit / 8⌋))`, the bound, for R
 * processes sharing one store: within one window a caller gets at most `limit + (R − 1) × cap` requests through. (Take the process whose last store answer before its last
 * admitted hit came latest. That answer held every other process's hits up to its own last answer, and each of
 * those has at most `cap` hits after it; the chosen process's own hits are all in its sum, which was
 * ≤ limit.) One process (R = 1) is exact. The window itself is the store's: the first answer after a local window
 * ends sets the next one.
 *
 * A failed write keeps its hits for the next batch and fails the hits waiting on it (as the unbatched store's query
 * failing would); `close()` (server shutdown) writes what is left. At most `maxKeys` keys are kept: beyond them,
 * keys with nothing unconfirmed whose window ended are dropped, and if none is, a hit goes to the store directly.
 * Only request rate limits are batched: attempt limits (wrong codes, failed sign-ins) stay one exact write each.
 */
import { type BatchHits, PostgresWindowCounters, type WindowCount, type WindowCounters } from "./window-counters.ts";

export interface BatchedCountsOptions {
  /** How often unsent hits are written (ms). */
  flushMs: number;
  /** Hits of one key judged before the store answers for them; the next ones wait for it. */
  maxUnconfirmed: number;
  /** Keys kept in memory. */
  maxKeys: number;
}

/** 100 ms and 32 hits: a load from one address writes its row at most every 32 requests (or 100 ms) instead of every one. */
export const DEFAULT_BATCHED_COUNTS: BatchedCountsOptions = { flushMs: 100, maxUnconfirmed: 32, maxKeys: 100_000 };

/** A key's cap may be at most this share of its limit (1/8): across R processes, at most (R − 1)/8 over it. */
const LIMIT_SHARE = 8;

/** The hits of a key with `limit` judged before the store answers: `maxUnconfirmed`, or less for a small limit. */
export function unconfirmedCap(maxUnconfirmed: number, limit?: number): number {
  return limit === undefined ? maxUnconfirmed : Math.max(1, Math.min(maxUnconfirmed, Math.floor(limit / LIMIT_SHARE)));
}

interface KeyState {
  windowMs: number;
  /** unconfirmedCap() of the key's limit. */
  cap: number;
  /** The store's last answer (or a window opened here, count 0, until it answers). */
  count: number;
  resetAt: number;
  unsent: number;
  /** Hits in the batch being written. */
  sending: number;
}

interface Waiter {
  resolve(count: WindowCount): void;
  reject(error: Error): void;
}

export class BatchedWindowCounters implements WindowCounters {
  private readonly keys = new Map<string, KeyState>();
  private readonly waiters = new Map<string, Waiter[]>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly store: PostgresWindowCounters,
    private readonly options: BatchedCountsOptions = DEFAULT_BATCHED_COUNTS,
    private readonly now: () => number = Date.now,
    private readonly onFlushError: (error: Error) => void = () => {},
  ) {
    for (const [name, value] of Object.entries(options)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`batched rate-limit counts: ${name} must be a whole number ≥ 1, not ${value}`);
    }
    this.timer = setInterval(() => void this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** Counts one hit; its count at once when it is within the key's cap, else once the store has answered. */
  hitNow(key: string, windowMs: number, limit?: number): WindowCount | Promise<WindowCount> {
    const t = this.now();
    let state = this.keys.get(key);
    if (!state) {
      if (this.keys.size >= this.options.maxKeys && !this.makeRoom(t)) return this.store.hit(key, windowMs);
      state = { windowMs, cap: unconfirmedCap(this.options.maxUnconfirmed, limit), count: 0, resetAt: t + windowMs, unsent: 0, sending: 0 };
      this.keys.set(key, state);
    } else if (t >= state.resetAt) {
      // The window ended here: a new one until the store says otherwise (its hits so far went to the old one).
      state.count = 0;
      state.resetAt = t + windowMs;
    }
    // Once hits of a key wait, the later ones wait behind them (so the waiting ones are the last of their batch).
    if (state.unsent + state.sending >= state.cap || this.waiters.has(key)) {
      state.unsent++;
      const answered = new Promise<WindowCount>((resolve, reject) => {
        const list = this.waiters.get(key) ?? [];
        list.push({ resolve, reject });
        this.waiters.set(key, list);
      });
      void this.flush();
      return answered;
    }
    state.unsent++;
    // Half the cap unsent: written now, so the store's answer is usually back before the cap makes hits wait.
    if (state.sending === 0 && state.unsent * 2 >= state.cap) void this.flush();
    return { count: state.count + state.sending + state.unsent, resetAt: state.resetAt };
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.hitNow(key, windowMs);
  }

  /** What the store holds (hits not written yet are not in it). */
  peek(key: string): Promise<WindowCount> {
    return this.store.peek(key);
  }

  async clear(key: string): Promise<void> {
    // Hits waiting for the store keep their key until their batch is written.
    const state = this.keys.get(key);
    if (state && this.waiters.has(key)) state.count = 0;
    else this.keys.delete(key);
    await this.store.clear(key);
  }

  /** Hits counted here and not yet written (tests). */
  get unsentHits(): number {
    let n = 0;
    for (const state of this.keys.values()) n += state.unsent;
    return n;
  }

  /** Writes the unsent hits (batches run one after another); resolves once those counted before the call are written or put back. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const batch: BatchHits[] = [];
    const waiting = new Map<string, Waiter[]>();
    for (const [key, state] of this.keys) {
      if (state.unsent === 0) continue;
      batch.push({ key, windowMs: state.windowMs, hits: state.unsent });
      state.sending = state.unsent;
      state.unsent = 0;
      const list = this.waiters.get(key);
      if (list) {
        waiting.set(key, list);
        this.waiters.delete(key);
      }
    }
    if (batch.length === 0) return;
    try {
      const answers = await this.store.hitMany(batch);
      for (const { key } of batch) {
        const state = this.keys.get(key);
        const answer = answers.get(key);
        if (state && answer) {
          state.count = answer.count;
          state.resetAt = answer.resetAt;
          state.sending = 0;
        }
        // The waiting hits are the batch's last ones, in order: each gets its own count, as one hit() each would have.
        const list = waiting.get(key) ?? [];
        list.forEach((w, i) => (answer ? w.resolve({ count: answer.count - (list.length - 1 - i), resetAt: answer.resetAt }) : w.reject(new Error("the rate-limit store did not answer for a key"))));
      }
    } catch (error) {
      // Kept for the next batch (late, not lost); the requests waiting on this one fail as the store's query would.
      for (const { key, hits } of batch) {
        const state = this.keys.get(key);
        if (state) {
          state.sending = 0;
          state.unsent += hits;
        }
        for (const w of waiting.get(key) ?? []) w.reject(error as Error);
      }
      this.onFlushError(error as Error);
    }
  }

  /** Drops keys whose window ended with nothing unconfirmed; true when there is room for one more. */
  private makeRoom(t: number): boolean {
    for (const [key, state] of this.keys) if (t >= state.resetAt && state.unsent === 0 && state.sending === 0) this.keys.delete(key);
    return this.keys.size < this.options.maxKeys;
  }

  /** Stops the timer and writes what is left (tries twice more if the database refuses). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // The first flush runs after one under way, so its batch has landed too.
    for (let attempt = 0; attempt < 3 && (attempt === 0 || this.unsentHits > 0); attempt++) await this.flush();
    if (this.unsentHits > 0) this.onFlushError(new Error(`${this.unsentHits} rate-limit hits lost at shutdown: the database refused them`));
  }
}

/**
 * The store request rate limits count in: on PostgreSQL, `counters` batched in this process
 * (within the bound stated above, across processes); in memory, `counters` itself.
 */
export function requestCountersFor(counters: WindowCounters, options: { batch?: BatchedCountsOptions; onFlushError?: (error: Error) => void } = {}): WindowCounters {
  return counters instanceof PostgresWindowCounters ? new BatchedWindowCounters(counters, options.batch ?? DEFAULT_BATCHED_COUNTS, Date.now, options.onFlushError) : counters;
}
