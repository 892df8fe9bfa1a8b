/**
 * A cross-process exclusive lock on a file path, without flock (works on Windows and network file systems).
 *
 * Acquire: write `{pid, host, created_at, token}` to a file of this holder's own, then hard-link it to the lock path
 * (fails with EEXIST while someone holds it; atomic on local and network file systems). The lock file so never exists
 * without its holder: a holder killed while acquiring leaves no empty lock that waiters could only judge by its age.
 * While the holder's body runs, the file's mtime is refreshed every
 * `staleMs / 3` (a heartbeat), so a long body is never mistaken for a crashed one.
 *
 * A lock file found in place is **stale** when its process is dead on this host (`process.kill(pid, 0)` → ESRCH), or
 * when it was not refreshed for `staleMs` (a holder on another host, a reused pid, a frozen process). A stale lock is
 * taken over under a short guard (`<path>.takeover`, same protocol): the waiter re-reads the lock under the guard
 * and removes it only if it is still the very lock (same token) it judged stale, so two waiters can never both
 * remove locks and end up holding two. Otherwise waiters retry with jittered exponential backoff (5 ms doubling to
 * 100 ms, ×0.5–1.5) until `timeoutMs`, then fail with TIMEOUT naming the holder.
 *
 * Release (always, in `finally`) removes the file only if it still carries this holder's token.
 * Not reentrant: a body that takes the same lock again waits for itself until the timeout.
 */
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { RyeError } from "@rye/core";
import { isAlive } from "./processes.ts";

export interface FileLockOptions {
  /** Give up waiting after this long (TIMEOUT). Default 10 000 ms. */
  timeoutMs?: number;
  /** A lock not refreshed for this long is taken over. Default 30 000 ms. */
  staleMs?: number;
  /** The error to throw on timeout instead of TIMEOUT (callers with their own wording). */
  onTimeout?: (holder: LockHolder | undefined) => Error;
}

export interface LockHolder {
  pid: number;
  host: string;
  created_at: string;
  token: string;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const DEFAULT_LOCK_STALE_MS = 30_000;
const BACKOFF_MIN_MS = 5;
const BACKOFF_MAX_MS = 100;

/** Counters for tests and benchmarks: attempts that found the lock taken, and stale locks taken over. */
export const lockStats = { acquired: 0, contended: 0, takeovers: 0, waitedMs: 0 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.token === "string") {
      return { pid: value.pid, host: value.host, created_at: String(value.created_at ?? ""), token: value.token };
    }
  } catch {
    // empty (being written) or damaged: judged by its age alone
  }
  return undefined;
}

interface Observed {
  holder: LockHolder | undefined;
  mtimeMs: number;
}

/** The lock file as it is now, or undefined when there is none. */
async function observe(path: string): Promise<Observed | undefined> {
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, "utf8")]);
    return { holder: parseHolder(text), mtimeMs: info.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function isStale(seen: Observed, staleMs: number): boolean {
  const { holder } = seen;
  if (holder && holder.host === hostname() && !isAlive(holder.pid)) return true;
  return Date.now() - seen.mtimeMs > staleMs;
}

/** Creates the lock file, holder included, in one step; false when it exists. */
async function tryCreate(path: string, holder: LockHolder): Promise<boolean> {
  const own = `${path}.${holder.token}`;
  await writeFile(own, JSON.stringify(holder), { mode: 0o600, flag: "wx" });
  try {
    await link(own, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    await rm(own, { force: true });
  }
}

/**
 * Removes `path` if it still is the lock `seen` judged stale. One waiter at a time, under `<path>.takeover`.
 * True when the lock is gone (removed here or meanwhile), false when another waiter holds the guard.
 */
async function takeOver(path: string, seen: Observed, staleMs: number): Promise<boolean> {
  const guard = `${path}.takeover`;
  const me: LockHolder = { pid: process.pid, host: hostname(), created_at: new Date().toISOString(), token: randomBytes(8).toString("hex") };
  if (!(await tryCreate(guard, me))) {
    // Another waiter is taking over (for microseconds). A guard left by a crashed waiter is stale like any lock.
    const other = await observe(guard);
    if (other && isStale(other, Math.min(staleMs, 5_000))) await rm(guard, { force: true });
    return false;
  }
  try {
    const now = await observe(path);
    if (!now) return true;
    const same = seen.holder && now.holder ? seen.holder.token === now.holder.token : !seen.holder && !now.holder && seen.mtimeMs === now.mtimeMs;
    if (same && isStale(now, staleMs)) {
      await rm(path, { force: true });
      lockStats.takeovers++;
      return true;
    }
    return !same; // a different lock is in place now: try again (it is judged afresh)
  } finally {
    await rm(guard, { force: true });
  }
}

/** Acquires the lock (see the module comment); resolves to this holder's identity. */
export async function acquireFileLock(lockPath: string, options: FileLockOptions = {}): Promise<LockHolder> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  if (!(timeoutMs >= 0) || !(staleMs > 0)) throw new RangeError(`lock timeoutMs must be ≥ 0 and staleMs > 0 (got ${timeoutMs}, ${staleMs})`);
  await mkdir(dirname(lockPath), { recursive: true });
  const started = Date.now();
  const deadline = started + timeoutMs;
  let delay = BACKOFF_MIN_MS;
  let last: Observed | undefined;
  for (;;) {
    const me: LockHolder = { pid: process.pid, host: hostname(), created_at: new Date().toISOString(), token: randomBytes(8).toString("hex") };
    if (await tryCreate(lockPath, me)) {
      lockStats.acquired++;
      lockStats.waitedMs += Date.now() - started;
      return me;
    }
    lockStats.contended++;
    last = await observe(lockPath);
    if (!last) continue; // released meanwhile: try again at once
    if (isStale(last, staleMs) && (await takeOver(lockPath, last, staleMs))) continue;
    if (Date.now() >= deadline) {
      if (options.onTimeout) throw options.onTimeout(last.holder);
      const who = last.holder ? `pid ${last.holder.pid} on ${last.holder.host} since ${last.holder.created_at}` : "an unknown process";
      throw new RyeError("TIMEOUT", `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath}, held by ${who}`, {
        hint: `Another rye process is working on the same files; retry. If no rye process is running, delete ${lockPath} (a lock not refreshed for ${Math.round(staleMs / 1000)} s is taken over automatically).`,
        details: { lock_path: lockPath, holder: last.holder ?? null, timeout_ms: timeoutMs },
      });
    }
    await sleep(Math.min(delay * (0.5 + Math.random()), Math.max(1, deadline - Date.now())));
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  }
}

/** Releases a lock taken by `acquireFileLock`: removes the file if it still carries `holder`'s token. */
export async function releaseFileLock(lockPath: string, holder: LockHolder): Promise<void> {
  const seen = await observe(lockPath).catch(() => undefined);
  if (seen?.holder?.token === holder.token) await rm(lockPath, { force: true });
}

/** Runs `body` while holding the lock at `lockPath`; the lock is released however `body` ends. */
export async function withFileLock<T>(lockPath: string, body: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const holder = await acquireFileLock(lockPath, options);
  const heartbeat = setInterval(() => {
    const now = new Date();
    void observe(lockPath)
      .then((seen) => (seen?.holder?.token === holder.token ? utimes(lockPath, now, now) : undefined))
      .catch(() => undefined);
  }, Math.max(10, Math.floor(staleMs / 3)));
  heartbeat.unref();
  try {
    return await body();
  } finally {
    clearInterval(heartbeat);
    await releaseFileLock(lockPath, holder);
  }
}
