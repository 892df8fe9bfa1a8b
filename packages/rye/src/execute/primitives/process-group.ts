/**
 * Signals to a whole process group. Children are spawned with `detached: true`, which makes each one the leader of
 * a new group (pgid = pid), so `process.kill(-pid)` also reaches the grandchildren it started. POSIX only.
 */

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
export function terminateProcessGroup(pid: number, graceMs: number): void {
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
