/**
 * Stopping a child together with everything it started.
 *
 * POSIX: children are spawned with `detached: true`, which makes each one the leader of a new group (pgid = pid),
 * so `process.kill(-pid)` also reaches the grandchildren it started: SIGTERM, then SIGKILL after a grace period.
 * Windows has neither process groups nor SIGTERM for console programs, and `detached` would give the child a
 * console window of its own: children are spawned attached and hidden, and the tree is ended with
 * `taskkill /pid <pid> /T /F` (tested with the win32 rules in process-group.test.ts).
 */
import { spawn } from "node:child_process";
import type { Platform } from "../../fs/platform.ts";
import { CURRENT_PLATFORM, isWindows } from "../../fs/platform.ts";

/** Spawn options for a child whose whole tree must be stoppable. */
export function treeSpawnOptions(platform: Platform = CURRENT_PLATFORM): { detached: boolean; windowsHide: boolean } {
  return isWindows(platform) ? { detached: false, windowsHide: true } : { detached: true, windowsHide: true };
}

/** The command that ends a process tree on Windows. */
export function taskkillCommand(pid: number): { command: string; args: string[] } {
  return { command: "taskkill", args: ["/pid", String(pid), "/T", "/F"] };
}

function runTaskkill(pid: number): void {
  const { command, args } = taskkillCommand(pid);
  const child = spawn(command, args, { stdio: "ignore", windowsHide: true });
  child.on("error", () => {}); // the tree may be gone already
  child.unref();
}

const GROUP_POLL_MS = 50;

/** Returns false when the group no longer exists. */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return false;
    // EPERM: a member changed credentials (setuid); nothing more we can do for it.
    if (code === "EPERM") return true;
    throw err;
  }
}

/**
 * SIGTERM now, SIGKILL after `graceMs` for whatever ignored it. The group is polled meanwhile and the SIGKILL is
 * dropped once it is empty: a pgid can only be reused after its group is gone, so this keeps the window in which a
 * late signal could hit an unrelated new group down to one poll interval. Safe to call more than once.
 */
export function terminateProcessGroup(pid: number, graceMs: number, platform: Platform = CURRENT_PLATFORM, killTree: (pid: number) => void = runTaskkill): void {
  if (isWindows(platform)) {
    killTree(pid);
    return;
  }
  if (!signalProcessGroup(pid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  const poll = setInterval(() => {
    if (!signalProcessGroup(pid, 0)) clearInterval(poll);
    else if (Date.now() >= deadline) {
      clearInterval(poll);
      signalProcessGroup(pid, "SIGKILL");
    }
  }, Math.min(GROUP_POLL_MS, Math.max(1, graceMs)));
  poll.unref();
}
