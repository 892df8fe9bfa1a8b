/**
 * Orchestrator operations over a project's threads (docs/agent-runtime.md §10): wait for threads without a polling
 * loop (file-system events on their folders wake the waiter; a slow liveness check only catches crashed processes),
 * statuses, aggregated results, the parent → children tree, a search over every transcript of a tree, and paged
 * transcript reads. Shared by `rye thread …` and the system tool `rye/agent/threads/orchestrator`.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";
import { RyeError } from "@rye/core";
import { isOrphaned, markOrphan } from "./control.ts";
import { assertThreadId, threadDir } from "./paths.ts";
import type { ThreadRecord } from "./record.ts";
import { isTerminal, listThreads, readThread } from "./record.ts";
import type { TranscriptEvent } from "./transcript.ts";
import { readTranscript } from "./transcript.ts";

export const MAX_WAIT_THREADS = 100;
export const MAX_WAIT_SECONDS = 3600;
/** How often a waiter checks that the processes it waits for still exist (crash detection only). */
export const LIVENESS_CHECK_MS = 1_000;
export const MAX_TRANSCRIPT_PAGE = 1_000;
export const MAX_SEARCH_PATTERN = 200;
export const MAX_SEARCH_MATCHES = 500;
/** Characters of one event searched and shown (a match beyond is not found). */
const SEARCH_EVENT_CHARS = 64 * 1024;

export interface ThreadSummary {
  thread_id: string;
  directive: string;
  status: string;
  parent_thread_id: string | null;
  result?: string;
  error?: { code: string; message: string };
  cost: ThreadRecord["cost"];
  ended_at?: string;
}

export function summarize(record: ThreadRecord): ThreadSummary {
  return {
    thread_id: record.thread_id,
    directive: record.directive,
    status: record.status,
    parent_thread_id: record.parent_thread_id ?? null,
    ...(record.result !== undefined ? { result: record.result } : {}),
    ...(record.error ? { error: { code: record.error.code, message: record.error.message } } : {}),
    cost: record.cost,
    ...(record.ended_at ? { ended_at: record.ended_at } : {}),
  };
}

export interface WaitOptions {
  timeoutSeconds?: number;
  /** Return when the first one ends (default: when all have). */
  any?: boolean;
  signal?: AbortSignal;
}

export interface WaitResult {
  done: boolean;
  timed_out: boolean;
  waited_ms: number;
  threads: ThreadSummary[];
}

/** Waits until every thread (or, with `any`, one) of `ids` has ended; orphans found meanwhile are marked ended. */
export async function waitThreads(projectPath: string, ids: string[], options: WaitOptions = {}): Promise<WaitResult> {
  if (ids.length === 0) throw new RyeError("BAD_REQUEST", "No thread ids to wait for", { hint: "Pass the ids that starting the threads returned." });
  if (ids.length > MAX_WAIT_THREADS) throw new RyeError("BAD_REQUEST", `At most ${MAX_WAIT_THREADS} threads per wait, got ${ids.length}`, { hint: "Wait in batches." });
  const unique = [...new Set(ids.map(assertThreadId))];
  const timeoutSeconds = options.timeoutSeconds ?? 300;
  if (!(timeoutSeconds >= 0 && timeoutSeconds <= MAX_WAIT_SECONDS)) throw new RyeError("BAD_REQUEST", `timeout must be 0-${MAX_WAIT_SECONDS} seconds, got ${timeoutSeconds}`, { hint: "Wait again after a timeout." });
  for (const id of unique) await readThread(projectPath, id); // ITEM_NOT_FOUND before waiting on nothing
  const started = Date.now();

  const snapshot = async (reap: boolean): Promise<{ done: boolean; records: ThreadRecord[] }> => {
    const records: ThreadRecord[] = [];
    for (const id of unique) {
      let record = await readThread(projectPath, id);
      if (reap && isOrphaned(record)) record = (await markOrphan(projectPath, record)) ?? (await readThread(projectPath, id));
      records.push(record);
    }
    const ended = records.filter((r) => isTerminal(r.status)).length;
    return { done: options.any ? ended > 0 : ended === records.length, records };
  };

  let state = await snapshot(true);
  if (!state.done && timeoutSeconds > 0) {
    state = await new Promise<{ done: boolean; records: ThreadRecord[] }>((resolve, reject) => {
      const watchers: FSWatcher[] = [];
      let checking = false;
      let again = false;
      let finished = false;
      const finish = (value: { done: boolean; records: ThreadRecord[] } | Error) => {
        if (finished) return;
        finished = true;
        for (const w of watchers) w.close();
        clearInterval(liveness);
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      const check = (reap: boolean) => {
        if (finished) return;
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        snapshot(reap).then(
          (next) => {
            checking = false;
            if (next.done) return finish(next);
            state = next;
            if (again) {
              again = false;
              check(false);
            }
          },
          (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
        );
      };
      // A record is replaced atomically (rename) in its folder: each change is an event there.
      for (const id of unique) {
        try {
          watchers.push(watch(threadDir(projectPath, id), { persistent: false }, () => check(false)));
        } catch {
          // The folder vanished: the liveness check will notice the thread is gone.
        }
      }
      const liveness = setInterval(() => check(true), LIVENESS_CHECK_MS);
      const timer = setTimeout(() => snapshot(true).then(finish, (err: unknown) => finish(err instanceof Error ? err : new Error(String(err)))), timeoutSeconds * 1000);
      const onAbort = () => finish(new RyeError("CONFLICT", "The wait was cancelled", { hint: "Wait again when needed." }));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      check(false); // a change between the first snapshot and the watchers
    });
  }
  return { done: state.done, timed_out: !state.done, waited_ms: Date.now() - started, threads: state.records.map(summarize) };
}

export interface ChainNode extends ThreadSummary {
  depth_in_tree: number;
  children: ChainNode[];
}

/** The tree of threads that `id` belongs to, from its root down (`subtree`: from `id` down). */
export async function getChain(projectPath: string, id: string, options: { subtree?: boolean } = {}): Promise<ChainNode> {
  assertThreadId(id);
  const { threads } = await listThreads(projectPath);
  const byId = new Map(threads.map((t) => [t.thread_id, t]));
  let root = byId.get(id);
  if (!root) throw new RyeError("ITEM_NOT_FOUND", `No thread ${id}`, { hint: "List the threads with `rye thread list --all`." });
  const seen = new Set<string>([root.thread_id]);
  while (!options.subtree && root.parent_thread_id && byId.has(root.parent_thread_id) && !seen.has(root.parent_thread_id)) {
    root = byId.get(root.parent_thread_id)!;
    seen.add(root.thread_id);
  }
  const build = (record: ThreadRecord, depth: number, visited: Set<string>): ChainNode => {
    visited.add(record.thread_id);
    const children = threads
      .filter((t) => t.parent_thread_id === record.thread_id && !visited.has(t.thread_id))
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map((t) => build(t, depth + 1, visited));
    return { ...summarize(record), depth_in_tree: depth, children };
  };
  return build(root, 0, new Set());
}

/** Every thread below `id` (any status). */
export async function descendantIds(projectPath: string, id: string): Promise<string[]> {
  return chainIds(await getChain(projectPath, id, { subtree: true })).filter((t) => t !== id);
}

/** Every thread id of a chain, root first. */
export function chainIds(node: ChainNode): string[] {
  return [node.thread_id, ...node.children.flatMap(chainIds)];
}

export interface SearchMatch {
  thread_id: string;
  event_index: number;
  event_type: string;
  excerpt: string;
}

/** A regular expression over every transcript event of the tree `id` belongs to. */
export async function chainSearch(projectPath: string, id: string, pattern: string, options: { limit?: number; ignoreCase?: boolean; subtree?: boolean } = {}): Promise<{ matches: SearchMatch[]; searched_threads: number; truncated: boolean }> {
  if (pattern.length === 0 || pattern.length > MAX_SEARCH_PATTERN) throw new RyeError("BAD_REQUEST", `The pattern must be 1-${MAX_SEARCH_PATTERN} characters`, { hint: "Search for a shorter phrase." });
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, options.ignoreCase ? "i" : "");
  } catch (err) {
    throw new RyeError("BAD_REQUEST", `Not a regular expression: ${err instanceof Error ? err.message : String(err)}`, { hint: "Escape special characters, e.g. \\. for a dot." });
  }
  const limit = Math.min(options.limit ?? 50, MAX_SEARCH_MATCHES);
  const ids = chainIds(await getChain(projectPath, id, { subtree: options.subtree === true }));
  const matches: SearchMatch[] = [];
  for (const threadId of ids) {
    const events = await readTranscript(projectPath, threadId).catch(() => [] as TranscriptEvent[]);
    for (const [i, event] of events.entries()) {
      const text = JSON.stringify(event.payload).slice(0, SEARCH_EVENT_CHARS);
      const found = regex.exec(text);
      if (!found) continue;
      const from = Math.max(0, found.index - 60);
      matches.push({ thread_id: threadId, event_index: i, event_type: event.event_type, excerpt: text.slice(from, found.index + found[0].length + 60) });
      if (matches.length >= limit) return { matches, searched_threads: ids.length, truncated: true };
    }
  }
  return { matches, searched_threads: ids.length, truncated: false };
}

/** A page of a thread's transcript events. */
export async function readTranscriptPage(projectPath: string, id: string, options: { offset?: number; limit?: number } = {}): Promise<{ events: TranscriptEvent[]; total: number; next_offset: number | null }> {
  await readThread(projectPath, id);
  const offset = Math.max(0, Math.floor(options.offset ?? 0));
  const limit = Math.min(Math.max(1, Math.floor(options.limit ?? 100)), MAX_TRANSCRIPT_PAGE);
  const events = await readTranscript(projectPath, id);
  const page = events.slice(offset, offset + limit);
  return { events: page, total: events.length, next_offset: offset + page.length < events.length ? offset + page.length : null };
}

/** The results of `ids`, with totals (threads still running are listed as such). */
export async function aggregateResults(projectPath: string, ids: string[]): Promise<{ threads: ThreadSummary[]; totals: { completed: number; failed: number; running: number; spend: number; input_tokens: number; output_tokens: number } }> {
  const threads: ThreadSummary[] = [];
  for (const id of ids) threads.push(summarize(await readThread(projectPath, assertThreadId(id))));
  const sum = (f: (t: ThreadSummary) => number) => Math.round(threads.reduce((s, t) => s + f(t), 0) * 1e9) / 1e9;
  return {
    threads,
    totals: {
      completed: threads.filter((t) => t.status === "completed").length,
      failed: threads.filter((t) => isTerminal(t.status) && t.status !== "completed").length,
      running: threads.filter((t) => !isTerminal(t.status)).length,
      spend: sum((t) => t.cost.spend),
      input_tokens: sum((t) => t.cost.input_tokens),
      output_tokens: sum((t) => t.cost.output_tokens),
    },
  };
}

/** Threads not yet ended, orphans marked first (so a crashed one is never listed as running). */
export async function listActive(projectPath: string): Promise<ThreadSummary[]> {
  const { threads } = await listThreads(projectPath);
  const out: ThreadSummary[] = [];
  for (const t of threads) {
    if (isTerminal(t.status)) continue;
    const marked = await markOrphan(projectPath, t);
    if (!marked) out.push(summarize(t));
  }
  return out;
}
