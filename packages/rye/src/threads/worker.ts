/**
 * `rye thread worker`: a long-running process that claims its project's durable thread jobs from PostgreSQL and
 * runs them (docs/agent-runtime.md §13). Several workers, on one machine or many sharing the project directory, share
 * the queue; pg-boss hands each job to one of them at a time.
 *
 * A job's thread runs as `thread_directive` does for any async child — through the verified executor chain, in a
 * process of its own — with the thread id and the parent's context from the job. When the job is a retry (the
 * worker that held it stopped sending heartbeats), the thread is continued from its transcript in place (same id,
 * same budget reservation); a thread that already ended is not run again, so a job's work happens once.
 */
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Job } from "pg-boss";
import { RyeError } from "@rye/core";
import { Engine } from "../engine/engine.ts";
import { threadsBackend } from "./backend.ts";
import { getEntry, release } from "./budget.ts";
import { threadProcessAlive } from "./processes.ts";
import type { ThreadRecord } from "./record.ts";
import { finishThread, isTerminal, readThread } from "./record.ts";
import { DEFAULT_SUPERVISE_SECONDS, MAX_RECOVERIES, openBoss } from "./queue.ts";
import { threadJobSchema } from "./thread-job.ts";
import { TranscriptWriter } from "./transcript.ts";

export const THREAD_TOOL = "rye/agent/threads/thread_directive";
export const MAX_WORKER_CONCURRENCY = 64;
/** A stopping worker waits for its running threads: a thread runs at most thread_directive's timeout (3600 s). */
const STOP_WAIT_MS = 3_660_000;

export type WorkerEvent =
  | { event: "worker_started"; worker: string; queue: string; concurrency: number }
  | { event: "job_claimed"; job_id: string; thread_id: string; attempt: number; recover: boolean; claimed_at: string; enqueued_at: string }
  | { event: "job_done"; job_id: string; thread_id: string; status: string }
  | { event: "job_skipped"; job_id: string; thread_id: string; status: string; reason: string }
  | { event: "job_failed"; job_id: string; thread_id: string; message: string };

export interface WorkerOptions {
  projectPath: string;
  env: NodeJS.ProcessEnv;
  /** Jobs this worker runs at once (each a thread process). */
  concurrency: number;
  superviseSeconds?: number;
  onEvent?: (event: WorkerEvent) => void;
}

export interface RunningWorker {
  id: string;
  /** Stops claiming and waits for the running threads to end (at most the thread tool's timeout). */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Releases the budget of a thread that will not run again (its job is given up) and marks it ended — in the runtime's
 * order, so whoever sees the terminal status sees the budget released.
 */
async function giveUp(projectPath: string, record: ThreadRecord, code: string, message: string): Promise<void> {
  const entry = await getEntry(projectPath, record.thread_id);
  if (entry?.status === "active") await release(projectPath, record.thread_id);
  const writer = new TranscriptWriter(projectPath, record.thread_id);
  try {
    await writer.append("thread_error", { error: { code, message }, cost: record.cost });
  } finally {
    await writer.close().catch(() => undefined);
  }
  await finishThread(projectPath, record.thread_id, "error", { error: { code, message } }).catch(() => undefined);
}

/** Waits while the thread's process still runs on this machine (its worker died, it did not). */
async function waitForLocalProcess(projectPath: string, id: string, signal: AbortSignal): Promise<ThreadRecord> {
  for (;;) {
    const record = await readThread(projectPath, id);
    if (isTerminal(record.status) || record.host !== hostname() || !threadProcessAlive(record) || signal.aborted) return record;
    await sleep(1_000);
  }
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const backend = threadsBackend(options.env);
  if (backend.kind !== "postgres") {
    throw new RyeError("BAD_REQUEST", "rye thread worker needs the postgres threads back end", { hint: "Set RYE_THREADS_BACKEND=postgres and RYE_THREADS_DATABASE_URL (docs/agent-runtime.md §13)." });
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1 || options.concurrency > MAX_WORKER_CONCURRENCY) {
    throw new RyeError("BAD_REQUEST", `--concurrency must be 1-${MAX_WORKER_CONCURRENCY}, got ${options.concurrency}`, { hint: "Each job is a thread process: size it to the machine." });
  }
  const projectPath = resolve(options.projectPath);
  const engine = await Engine.open({ projectPath, env: options.env });
  const { boss, queue } = await openBoss(projectPath, { databaseUrl: backend.databaseUrl, supervise: true, superviseSeconds: options.superviseSeconds ?? DEFAULT_SUPERVISE_SECONDS });
  const id = `${hostname()}:${process.pid}`;
  const emit = options.onEvent ?? (() => undefined);

  const runJob = async (job: Job<unknown>): Promise<void> => {
    const data = threadJobSchema.parse(job.data);
    if (resolve(data.project_path) !== projectPath) throw new RyeError("CONFLICT", `Job ${job.id} belongs to ${data.project_path}, not ${projectPath}`, { hint: "Each project has its own queue; this is a damaged job." });
    let record = await readThread(projectPath, data.thread_id);
    if (!isTerminal(record.status) && record.status === "running") record = await waitForLocalProcess(projectPath, data.thread_id, job.signal);
    if (isTerminal(record.status)) {
      emit({ event: "job_skipped", job_id: job.id, thread_id: data.thread_id, status: record.status, reason: "the thread already ended" });
      return;
    }
    // Started before (its process wrote the record as running): continue it from its transcript.
    const recover = record.status === "running";
    emit({ event: "job_claimed", job_id: job.id, thread_id: data.thread_id, attempt: job.retryCount, recover, claimed_at: new Date().toISOString(), enqueued_at: data.enqueued_at });
    if (job.retryCount > MAX_RECOVERIES) {
      await giveUp(projectPath, record, "recovery_exhausted", `The thread's worker died ${job.retryCount} times; it was given up`);
      emit({ event: "job_done", job_id: job.id, thread_id: data.thread_id, status: "error" });
      return;
    }
    try {
      await engine.execute({
        item_type: "tool",
        item_id: THREAD_TOOL,
        parameters: data.params,
        signal: job.signal,
        ...(data.parent !== null ? { thread_parent: data.parent } : {}),
        thread_worker: { threadId: data.thread_id, recover },
      });
    } catch (err) {
      // A refused start (the directive or its inputs no longer check out): retrying cannot help.
      const after = await readThread(projectPath, data.thread_id);
      if (!isTerminal(after.status) && after.status === "created") {
        const e = err instanceof RyeError ? err : new RyeError("INTERNAL", err instanceof Error ? err.message : String(err));
        await giveUp(projectPath, after, e.code, e.message);
        emit({ event: "job_done", job_id: job.id, thread_id: data.thread_id, status: "error" });
        return;
      }
    }
    const final = await readThread(projectPath, data.thread_id);
    if (!isTerminal(final.status)) {
      // The thread's process ended without finishing (it crashed): fail the job so it is retried and continued.
      throw new RyeError("INTERNAL", `Thread ${data.thread_id}'s process ended while the thread was ${final.status}`, { hint: "It is continued from its transcript on the next attempt." });
    }
    emit({ event: "job_done", job_id: job.id, thread_id: data.thread_id, status: final.status });
  };

  // NOTIFY wakes a worker for a new job; a retried one (its worker died) sends none, so polling every second is
  // what bounds how long a retry waits once its heartbeat has expired.
  await boss.work(queue, { localConcurrency: options.concurrency, batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 }, async ([job]) => {
    if (!job) return;
    try {
      await runJob(job);
    } catch (err) {
      const thread = (job.data as { thread_id?: string } | null)?.thread_id ?? "?";
      emit({ event: "job_failed", job_id: job.id, thread_id: thread, message: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  });
  emit({ event: "worker_started", worker: id, queue, concurrency: options.concurrency });
  return {
    id,
    stop: () => boss.stop({ graceful: true, close: true, timeout: STOP_WAIT_MS }),
  };
}

