/**
 * Processes of threads: is one alive, and stop one with everything it started.
 *
 * Threads are started detached (`spawn(…, { detached: true })`), which makes each the leader of its own process group
 * (pgid = pid) on POSIX, so `killTree` signals the whole group: SIGTERM, then SIGKILL for whatever is left after the
 * grace period. A pid that leads no group (started without `detached`) gets the signals alone. On Windows it runs
 * `taskkill /PID <pid> /T /F` (no shell), which ends the process and its descendants at once.
 *
 * Pids are reused by the system: `threadProcessAlive(record)` also checks, on Linux, that the process with the
 * recorded pid started before the record was last written — a newer process holding a dead thread's pid is not it.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { signalProcessGroup } from "../execute/primitives/process-group.ts";

const POLL_MS = 25;
/** How long `killTree` waits for the processes to disappear after SIGKILL (or taskkill) before giving up. */
export const KILL_WAIT_MS = 5_000;

function validPid(pid: unknown): pid is number {
  return typeof pid === "number" && Number.isInteger(pid) && pid > 0;
}

/** State letter from /proc/<pid>/stat (Linux), undefined elsewhere or when unreadable. */
function procStat(pid: number): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may contain spaces and parentheses; the last ')' ends it.
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** True while a process with `pid` exists (a zombie — exited, not yet reaped — counts as dead on Linux). */
export function isAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  return procStat(pid)?.[0] !== "Z";
}

let bootTimeMs: number | undefined;

/** When the process started (Linux only: /proc/<pid>/stat field 22 and /proc/stat btime), else undefined. */
export function processStartTime(pid: number): Date | undefined {
  const fields = procStat(pid);
  if (!fields) return undefined;
  try {
    if (bootTimeMs === undefined) {
      const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
      if (!btime) return undefined;
      bootTimeMs = Number(btime[1]) * 1000;
    }
  } catch {
    return undefined;
  }
  const ticks = Number(fields[19]); // field 22 overall; fields[0] is field 3 (state)
  if (!Number.isFinite(ticks)) return undefined;
  return new Date(bootTimeMs + (ticks * 1000) / 100); // USER_HZ is 100 on every Linux architecture rye runs on
}

/** Tolerance for `threadProcessAlive`: btime has a resolution of one second. */
const START_SLACK_MS = 2_000;

/**
 * Whether the process recorded in a thread record is still that thread: alive, and (where the start time is known)
 * started no later than the record's `updated_at` (a process started afterwards reuses a dead thread's pid).
 */
export function threadProcessAlive(record: { pid?: number | undefined; updated_at: string }): boolean {
  if (!validPid(record.pid) || !isAlive(record.pid)) return false;
  const started = processStartTime(record.pid);
  const written = Date.parse(record.updated_at);
  if (started === undefined || Number.isNaN(written)) return true;
  return started.getTime() <= written + START_SLACK_MS;
}

export interface KillResult {
  /** The process was running when killTree was called. */
  wasAlive: boolean;
  /** SIGKILL (or taskkill /F) was needed: something outlived SIGTERM's grace period. On Windows always true. */
  forced: boolean;
  /** Everything is gone (false only when processes survived SIGKILL for KILL_WAIT_MS, e.g. stuck in the kernel). */
  exited: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(gone: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (gone()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/**
 * Stops `pid` and its process group: SIGTERM, then SIGKILL once `graceMs` passed with anything still running.
 * Resolves when everything is gone (or KILL_WAIT_MS after SIGKILL). Refuses this process and pids ≤ 1.
 */
export async function killTree(pid: number, options: { graceMs?: number } = {}): Promise<KillResult> {
  const graceMs = options.graceMs ?? 3_000;
  if (!validPid(pid) || pid === 1 || pid === process.pid) throw new RangeError(`killTree refuses pid ${String(pid)}`);
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError(`graceMs must be ≥ 0, got ${graceMs}`);
  if (process.platform === "win32") return killWindows(pid);

  // A group leader (started detached): signal the whole group. Else the process alone.
  const asGroup = signalProcessGroup(pid, 0);
  const send = (signal: NodeJS.Signals): void => {
    if (asGroup) signalProcessGroup(pid, signal);
    else {
      try {
        process.kill(pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  };
  // A group whose members are all dead (zombies waiting for their parent) counts as gone when its leader is.
  const gone = () => (asGroup ? !signalProcessGroup(pid, 0) || (!isAlive(pid) && groupOnlyZombies(pid)) : !isAlive(pid));
  if (gone()) return { wasAlive: false, forced: false, exited: true };
  send("SIGTERM");
  if (await waitUntil(gone, graceMs)) return { wasAlive: true, forced: false, exited: true };
  send("SIGKILL");
  return { wasAlive: true, forced: true, exited: await waitUntil(gone, KILL_WAIT_MS) };
}

/** Linux: whether every process of group `pgid` is a zombie (no live member). Elsewhere: false (unknown). */
function groupOnlyZombies(pgid: number): boolean {
  if (process.platform !== "linux") return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const fields = procStat(Number(name));
    if (fields && Number(fields[2]) === pgid && fields[0] !== "Z") return false;
  }
  return true;
}

async function killWindows(pid: number): Promise<KillResult> {
  if (!isAlive(pid)) return { wasAlive: false, forced: false, exited: true };
  await new Promise<void>((resolve) => {
    execFile("taskkill", ["/PID", String(pid), "/T", "/F"], { windowsHide: true }, () => resolve());
  });
  return { wasAlive: true, forced: true, exited: await waitUntil(() => !isAlive(pid), KILL_WAIT_MS) };
}
