/**
 * Stopping threads, shared by `rye thread cancel|kill`, the orchestrator tool and the runtime: kill a thread's
 * process tree and record it, cancel a thread and (the `cascade_cancel` child policy) its running descendants,
 * and mark orphans — threads whose process died without finishing — so none is ever left "running".
 */
import { hostname } from "node:os";
import { RyeError } from "@rye/core";
import { requestCancel } from "./cancel.ts";
import type { LedgerEntry } from "./ledger.ts";
import { getEntry, release } from "./budget.ts";
import { threadFile } from "./paths.ts";
import type { KillResult } from "./processes.ts";
import { killTree, threadProcessAlive } from "./processes.ts";
import type { ThreadRecord } from "./record.ts";
import { finishThread, isTerminal, listThreads, readThread } from "./record.ts";
import { TranscriptWriter } from "./transcript.ts";

/**
 * Not finished, but its process is gone (crashed, or killed outside rye): nothing will ever finish it. A durable
 * thread (a job of the postgres back end) is never an orphan here: its queue retries it on another worker.
 */
export function isOrphaned(record: ThreadRecord): boolean {
  return !isTerminal(record.status) && record.durable_job === undefined && record.pid !== undefined && !threadProcessAlive(record);
}

async function appendEvent(projectPath: string, id: string, type: string, payload: Record<string, unknown>): Promise<void> {
  const writer = new TranscriptWriter(projectPath, id);
  try {
    await writer.append(type, payload);
  } finally {
    await writer.close().catch(() => undefined);
  }
}

const elapsedCost = (record: ThreadRecord) => ({ ...record.cost, elapsed_seconds: Math.round(Math.max(record.cost.elapsed_seconds, (Date.now() - Date.parse(record.created_at)) / 1000) * 1000) / 1000 });

/** Releases the thread's budget reservation when it is still held. */
async function releaseBudget(projectPath: string, id: string): Promise<LedgerEntry | null> {
  const entry = await getEntry(projectPath, id);
  if (!entry) return null;
  return entry.status === "active" ? release(projectPath, id) : entry;
}

export interface KillOutcome {
  record: ThreadRecord;
  endedByItself: boolean;
  process: KillResult | null;
  ledger: LedgerEntry | null;
}

/** Ends a running thread's process tree (SIGTERM, then SIGKILL after `graceMs`), marks it killed, releases its budget. */
export async function killThread(projectPath: string, id: string, options: { graceMs: number; by: string }): Promise<KillOutcome> {
  const record = await readThread(projectPath, id);
  if (isTerminal(record.status)) {
    throw new RyeError("CONFLICT", `Thread ${id} already ended (${record.status}): nothing to kill`, { hint: `See how it ended: rye thread status ${id}`, details: { thread_id: id, status: record.status } });
  }
  let killed: KillResult | null = null;
  // A durable thread's pid means something only on the machine its process runs on.
  const here = record.host === undefined || record.host === hostname();
  if (record.pid !== undefined && here && threadProcessAlive(record)) {
    if (record.pid <= 1 || record.pid === process.pid) {
      throw new RyeError("VALIDATION_FAILED", `Thread ${id}'s record names process ${record.pid}, which rye refuses to signal`, {
        hint: `The record ${threadFile(projectPath, id, "record")} is damaged; stop the thread's process by hand.`,
      });
    }
    killed = await killTree(record.pid, { graceMs: options.graceMs });
  }
  // The thread may have ended by itself meanwhile (e.g. it handled SIGTERM): then its own status stands.
  let final = await readThread(projectPath, id);
  const endedByItself = isTerminal(final.status);
  if (!endedByItself) {
    const cost = elapsedCost(final);
    await appendEvent(projectPath, id, "thread_killed", { status: "killed", cost, by: options.by });
    final = await finishThread(projectPath, id, "killed", { cost }).catch((err: unknown) => (err instanceof RyeError && err.code === "CONFLICT" ? readThread(projectPath, id) : Promise.reject(err)));
  }
  return { record: final, endedByItself, process: killed, ledger: await releaseBudget(projectPath, id) };
}

/** The running descendants of `id` (children, grandchildren, …), nearest first. */
export async function runningDescendants(projectPath: string, id: string): Promise<ThreadRecord[]> {
  const { threads } = await listThreads(projectPath);
  const out: ThreadRecord[] = [];
  let frontier = [id];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    const next = threads.filter((t) => t.parent_thread_id && frontier.includes(t.parent_thread_id) && !seen.has(t.thread_id));
    for (const t of next) seen.add(t.thread_id);
    out.push(...next.filter((t) => !isTerminal(t.status)));
    frontier = next.map((t) => t.thread_id);
  }
  return out;
}

/** Asks a thread to stop at its next check; with `cascade`, its running descendants too. Returns the ids asked. */
export async function cancelThread(projectPath: string, id: string, options: { reason?: string; cascade?: boolean } = {}): Promise<string[]> {
  const record = await readThread(projectPath, id);
  if (isTerminal(record.status)) {
    throw new RyeError("CONFLICT", `Thread ${id} already ended (${record.status}): nothing to cancel`, { hint: `See how it ended: rye thread status ${id}`, details: { thread_id: id, status: record.status } });
  }
  await requestCancel(projectPath, id, options.reason ? { reason: options.reason } : {});
  const asked = [id];
  if (options.cascade) asked.push(...(await cancelDescendants(projectPath, id, options.reason ?? `parent ${id} was cancelled`)));
  return asked;
}

/** Cancels every running descendant of `id` (the `cascade_cancel` child policy); returns their ids. */
export async function cancelDescendants(projectPath: string, id: string, reason: string): Promise<string[]> {
  const asked: string[] = [];
  for (const child of await runningDescendants(projectPath, id)) {
    await requestCancel(projectPath, child.thread_id, { reason });
    asked.push(child.thread_id);
  }
  return asked;
}

/**
 * Marks `record` as ended when its process is gone: status error, code `orphaned`, a closing transcript event, the
 * budget released. Returns the new record, or null when the thread is not an orphan (or another process won).
 */
export async function markOrphan(projectPath: string, record: ThreadRecord): Promise<ThreadRecord | null> {
  if (!isOrphaned(record)) return null;
  const message = `Its process ${record.pid} ended without finishing the thread (crashed or killed outside rye)`;
  try {
    const final = await finishThread(projectPath, record.thread_id, "error", (current) => {
      if (!isOrphaned(current)) throw new RyeError("CONFLICT", "no longer an orphan");
      return { cost: elapsedCost(current), error: { code: "orphaned", message } };
    });
    await appendEvent(projectPath, record.thread_id, "thread_error", { status: "error", error: { code: "orphaned", message } });
    await releaseBudget(projectPath, record.thread_id);
    return final;
  } catch (err) {
    if (err instanceof RyeError && err.code === "CONFLICT") return null;
    throw err;
  }
}

/** Marks every orphan of the project; returns the ids marked. */
export async function reapOrphans(projectPath: string): Promise<string[]> {
  const { threads } = await listThreads(projectPath);
  const marked: string[] = [];
  for (const t of threads) if (await markOrphan(projectPath, t)) marked.push(t.thread_id);
  return marked;
}
