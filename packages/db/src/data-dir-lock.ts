// PGlite is single-process: two processes on one data directory silently lose writes. A lock file next to the
// directory names its owner (pid and, on Linux, the process's start time) and turns a second opener into a clear
// error. A lock whose owner is gone is taken over: the owner exited, was killed and is a zombie its parent has not
// reaped yet (a supervisor restarting a crashed server at once), or its pid now belongs to another process. An owner
// that still runs is given a bounded time to exit (it may be dying) before the opener gives up.
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** How long an opener waits for a running owner to exit before it reports the directory in use. */
export const DATA_DIR_LOCK_WAIT_MS = 3000;
const POLL_MS = 25;
/** The takeover guard is held for a few system calls; one older than this was left by a process that died holding it. */
const GUARD_STALE_MS = 2000;

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
  /** The error code of rye's vocabulary (@rye/core) that callers answer with. */
  readonly code = "DATA_DIR_IN_USE";
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** Who holds a lock: a pid and, where /proc tells it, the process's start time (clock ticks since boot). */
interface Owner {
  pid: number;
  startTime?: string;
}

export interface LockOptions {
  /** How long to wait for a running owner to exit (default DATA_DIR_LOCK_WAIT_MS). */
  waitMs?: number;
}

/** Takes the lock at `lockPath` and returns its release function. */
export async function lockDataDir(lockPath: string, dataDir: string, options: LockOptions = {}): Promise<() => void> {
  const waitMs = options.waitMs ?? DATA_DIR_LOCK_WAIT_MS;
  const me: Owner = { pid: process.pid, ...startTimeOf(process.pid) };
  const record = format(me);
  const deadline = performance.now() + waitMs;
  for (;;) {
    if (create(lockPath, record)) {
      return () => {
        if (readRecord(lockPath) === record) unlinkSync(lockPath);
      };
    }
    const current = readRecord(lockPath);
    if (current === undefined) continue; // removed meanwhile: try again
    const owner = parse(current);
    if (owner?.pid === me.pid && owner.startTime === me.startTime) {
      throw new DataDirInUseError(`the embedded database in ${dataDir} is already open in this process`, "Close the open database before opening it again.");
    }
    if (owner === undefined || owner.pid === me.pid || !isRunning(owner)) {
      // Our own pid with another start time: a previous process that had it (a container's pid 1 after a restart).
      if (!takeOver(lockPath, current)) await sleep(POLL_MS);
      continue;
    }
    if (performance.now() >= deadline) {
      throw new DataDirInUseError(
        `the embedded database in ${dataDir} is in use by process ${owner.pid} (waited ${waitMs} ms for it to exit)`,
        `Stop the other rye server (process ${owner.pid}), or give this one another data directory (RYE_DATA_DIR) or a PostgreSQL database (DATABASE_URL).`,
      );
    }
    await sleep(POLL_MS);
  }
}

/** Creates the lock with its whole content at once (written aside, then hard-linked), so no reader sees it empty. */
function create(lockPath: string, record: string): boolean {
  const aside = `${lockPath}.${process.pid}.tmp`;
  const fd = openSync(aside, "w");
  try {
    writeSync(fd, record);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(aside, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * Removes a lock judged stale, unless it changed since it was read. Two openers may judge the same lock stale; the
 * guard makes "read again and remove" one step, so neither removes the lock the other has just created.
 */
function takeOver(lockPath: string, stale: string): boolean {
  const guard = `${lockPath}.takeover`;
  try {
    closeSync(openSync(guard, "wx"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) unlinkSync(guard);
    } catch {}
    return false; // another opener is taking it over; the caller looks again
  }
  try {
    if (readRecord(lockPath) === stale) unlinkSync(lockPath);
    return true;
  } finally {
    unlinkSync(guard);
  }
}

function format(owner: Owner): string {
  return owner.startTime === undefined ? `${owner.pid}\n` : `${owner.pid} ${owner.startTime}\n`;
}

/** `pid` (older releases) or `pid starttime`; anything else is not a lock a process wrote. */
function parse(record: string): Owner | undefined {
  const match = /^(\d+)(?: (\d+))?\n?$/.exec(record);
  if (!match) return undefined;
  const pid = Number(match[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return match[2] === undefined ? { pid } : { pid, startTime: match[2] };
}

function readRecord(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The state letter and start time of a process from /proc/<pid>/stat; `null` without procfs, undefined when no such process. */
function procStat(pid: number): { state: string; startTime: string } | undefined | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return hasProcfs() ? undefined : null;
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", startTime: fields[19] ?? "" };
}

let procfs: boolean | undefined;
function hasProcfs(): boolean {
  if (procfs === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procfs = true;
    } catch {
      procfs = false;
    }
  }
  return procfs;
}

function startTimeOf(pid: number): { startTime?: string } {
  const stat = procStat(pid);
  return stat ? { startTime: stat.startTime } : {};
}

/**
 * Whether the owner can still write to the database. A zombie ('Z') or dead ('X') process has closed its files and
 * runs no code; a pid whose start time differs from the recorded one is another process.
 */
function isRunning(owner: Owner): boolean {
  const stat = procStat(owner.pid);
  // Not in /proc: gone, unless /proc hides other users' processes (hidepid) and the pid still answers.
  if (stat === undefined || stat === null) return signalable(owner.pid);
  if (stat.state === "Z" || stat.state === "X") return false;
  return owner.startTime === undefined || owner.startTime === stat.startTime;
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
