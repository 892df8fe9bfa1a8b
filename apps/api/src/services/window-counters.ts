/**
 * Fixed-window counters (request rate limits, wrong device codes, failed sign-ins), shared by every process
 * that serves one registry.
 *
 * A window opens at a key's first hit and lasts `windowMs`; hits inside it add up, the first hit after it ends
 * opens the next one. Two stores, one behaviour:
 * - MemoryWindowCounters: in the process. Used on PGlite, where the database lives in this one process (its data
 *   directory is locked), so the process is the whole registry and a Map is exact and the fastest.
 * - PostgresWindowCounters: one row per key in `rate_counters` (UNLOGGED: a crash forgets the open windows, which
 *   only lifts limits for at most one window, and no WAL is written per request). Keys are stored as their
 *   SHA-256 (they hold caller input such as a typed login: any length, any character, NUL included). A hit is one UPSERT that opens
 *   or increments the window atomically, so N requests spread over any number of processes count N. Rows whose
 *   window ended are deleted by a sweep that runs at most once per SWEEP_INTERVAL_MS per process.
 *
 * Windows are timed with the processes' clocks (expected in sync, NTP): a skew of milliseconds between
 * processes moves a window's end by as much, which does not matter for windows of seconds to minutes.
 */
import { createHash } from "node:crypto";
import type { Database } from "@rye/db";

export interface WindowCount {
  /** Hits in the current window (0 when none is open). */
  count: number;
  /** When the current window ends (ms since the epoch); `now` when none is open. */
  resetAt: number;
}

export interface WindowCounters {
  /** Counts one hit for `key` in its current window (opening one of `windowMs` when none is open). */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The current window's count, without counting. */
  peek(key: string): Promise<WindowCount>;
  /** Forgets `key`'s window (a correct password clears its failed attempts). */
  clear(key: string): Promise<void>;
  /**
   * Counts one hit without a promise when the store can answer at once (in memory; batched within its cap), for the
   * rate limiter's hot path; `limit` is the key's limit, which a store may use to bound what it judges unconfirmed.
   */
  hitNow?(key: string, windowMs: number, limit?: number): WindowCount | Promise<WindowCount>;
  /** Writes what the store keeps unwritten and stops its timers (the server calls it before closing the database). */
  close?(): Promise<void>;
}

/** At most this many keys in memory; beyond it expired windows are dropped, then everything (a flood of IPs). */
const MAX_TRACKED = 100_000;

export class MemoryWindowCounters implements WindowCounters {
  private readonly windows = new Map<string, { resetAt: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.hitNow(key, windowMs);
  }

  /** Synchronous form for the request hot path (no promise per request on PGlite). */
  hitNow(key: string, windowMs: number): WindowCount {
    const t = this.now();
    let entry = this.windows.get(key);
    if (!entry || t >= entry.resetAt) {
      if (this.windows.size >= MAX_TRACKED) this.sweep(t);
      entry = { resetAt: t + windowMs, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count++;
    return { count: entry.count, resetAt: entry.resetAt };
  }

  async peek(key: string): Promise<WindowCount> {
    const t = this.now();
    const entry = this.windows.get(key);
    if (!entry || t >= entry.resetAt) return { count: 0, resetAt: t };
    return { count: entry.count, resetAt: entry.resetAt };
  }

  async clear(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private sweep(t: number): void {
    for (const [key, entry] of this.windows) if (t >= entry.resetAt) this.windows.delete(key);
    if (this.windows.size >= MAX_TRACKED) this.windows.clear();
  }
}

export const SWEEP_INTERVAL_MS = 60_000;

// All SET expressions see the row as it was (`c`), so the count and the window end are decided together.
const HIT_SQL = `
  INSERT INTO rate_counters AS c (key, reset_at, count) VALUES ($1, $2::int8 + $3::int8, 1)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN c.reset_at > $2::int8 THEN c.count + 1 ELSE 1 END,
    reset_at = CASE WHEN c.reset_at > $2::int8 THEN c.reset_at ELSE $2::int8 + $3::int8 END
  RETURNING count, reset_at`;

// The batched form: `n` hits per key, rows taken in key order (two processes flushing overlapping batches cannot deadlock).
const HIT_MANY_SQL = `
  INSERT INTO rate_counters AS c (key, reset_at, count)
  SELECT u.key, $1::int8 + u.window_ms, u.n FROM unnest($2::text[], $3::int8[], $4::int4[]) AS u(key, window_ms, n) ORDER BY u.key
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN c.reset_at > $1::int8 THEN c.count + excluded.count ELSE excluded.count END,
    reset_at = CASE WHEN c.reset_at > $1::int8 THEN c.reset_at ELSE excluded.reset_at END
  RETURNING key, count, reset_at`;

/** One key's hits in a batch (hitMany). */
export interface BatchHits {
  key: string;
  windowMs: number;
  hits: number;
}

const rowKey = (key: string): string => createHash("sha256").update(key).digest("base64url");

export class PostgresWindowCounters implements WindowCounters {
  private lastSweep: number;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly onSweepError: (error: Error) => void = () => {},
  ) {
    this.lastSweep = now();
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const t = this.now();
    this.maybeSweep(t);
    const { rows } = await this.db.raw.query<{ count: number; reset_at: string | number | bigint }>(HIT_SQL, [rowKey(key), t, windowMs]);
    const row = rows[0]!;
    return { count: Number(row.count), resetAt: Number(row.reset_at) };
  }

  /**
   * Counts each key's `hits` in its current window in one statement (keys distinct): the window's count after them,
   * by key. The same as that many hit() calls, in one row lock per key.
   */
  async hitMany(batch: readonly BatchHits[]): Promise<Map<string, WindowCount>> {
    const t = this.now();
    this.maybeSweep(t);
    const byRow = new Map(batch.map((b) => [rowKey(b.key), b]));
    if (byRow.size !== batch.length) throw new RangeError("hitMany: each key at most once per batch");
    const { rows } = await this.db.raw.query<{ key: string; count: number; reset_at: string | number | bigint }>(HIT_MANY_SQL, [
      t,
      [...byRow.keys()],
      [...byRow.values()].map((b) => b.windowMs),
      [...byRow.values()].map((b) => b.hits),
    ]);
    return new Map(rows.map((row) => [byRow.get(row.key)!.key, { count: Number(row.count), resetAt: Number(row.reset_at) }]));
  }

  async peek(key: string): Promise<WindowCount> {
    const t = this.now();
    const { rows } = await this.db.raw.query<{ count: number; reset_at: string | number | bigint }>("SELECT count, reset_at FROM rate_counters WHERE key = $1 AND reset_at > $2::int8", [rowKey(key), t]);
    const row = rows[0];
    return row ? { count: Number(row.count), resetAt: Number(row.reset_at) } : { count: 0, resetAt: t };
  }

  async clear(key: string): Promise<void> {
    await this.db.raw.query("DELETE FROM rate_counters WHERE key = $1", [rowKey(key)]);
  }

  /** Deletes ended windows now (also run in the background by `hit`). */
  async sweep(): Promise<number> {
    const { rows } = await this.db.raw.query<{ n: number }>("WITH gone AS (DELETE FROM rate_counters WHERE reset_at <= $1::int8 RETURNING 1) SELECT count(*)::int AS n FROM gone", [this.now()]);
    return Number(rows[0]?.n ?? 0);
  }

  private maybeSweep(t: number): void {
    if (t - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = t;
    this.sweep().catch((error: Error) => this.onSweepError(error));
  }
}

/**
 * The store for a registry's database: shared rows on PostgreSQL, memory on the single-process PGlite; `store`
 * (RYE_RATE_LIMIT_STORE) overrides it (memory on PostgreSQL: a deployment of one process that wants no write per request).
 */
export function windowCountersFor(db: Database, options: { store?: "database" | "memory" | undefined; onSweepError?: (error: Error) => void } = {}): WindowCounters {
  const store = options.store ?? (db.kind === "postgres" ? "database" : "memory");
  return store === "database" ? new PostgresWindowCounters(db, Date.now, options.onSweepError) : new MemoryWindowCounters();
}
