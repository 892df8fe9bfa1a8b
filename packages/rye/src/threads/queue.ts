/**
 * Durable thread jobs on PostgreSQL through pg-boss (the `postgres` threads back end, docs/agent-runtime.md §13).
 *
 * An async child thread becomes a job on its project's queue; any `rye thread worker` of that project claims it,
 * runs the thread and completes the job. While the thread runs, the worker's pg-boss heartbeat keeps the claim;
 * when the worker dies (SIGKILL, a machine gone), the heartbeat stops, pg-boss's supervisor fails the job after
 * `heartbeatSeconds` and retries it, and another worker continues the thread from its transcript.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { PgBoss } from "pg-boss";
import { RyeError } from "@rye/core";
import { threadsBackend } from "./backend.ts";
import type { ThreadJob } from "./thread-job.ts";
import { threadJobSchema } from "./thread-job.ts";

/** pg-boss's tables live in this schema (created on first use), apart from the registry's and the ledger's. */
export const QUEUE_SCHEMA = "rye_threads_jobs";
/** Seconds without a heartbeat after which a claimed job counts as lost and is retried (pg-boss's minimum is 10). */
export const DEFAULT_HEARTBEAT_SECONDS = 10;
/** How often a worker's supervisor looks for jobs whose heartbeat stopped. */
export const DEFAULT_SUPERVISE_SECONDS = 5;
/** Times a thread is continued after its worker died before it is given up (marked `error`, `recovery_exhausted`). */
export const MAX_RECOVERIES = 3;
/** A job is also bounded in time: pg-boss's maximum, far beyond any thread's `duration_seconds`. */
const EXPIRE_SECONDS = 24 * 60 * 60;



/** The queue of a project: one per project directory, so a worker only ever runs its own project's threads. */
export function queueName(projectPath: string): string {
  return `rye-threads-${createHash("sha256").update(resolve(projectPath)).digest("hex").slice(0, 24)}`;
}

export interface BossOptions {
  databaseUrl: string;
  /** Workers supervise (fail jobs whose heartbeat stopped); a process that only enqueues does not. */
  supervise?: boolean;
  superviseSeconds?: number;
}

/** A started pg-boss instance on the back end's database, with the project's queue created. */
export async function openBoss(projectPath: string, options: BossOptions): Promise<{ boss: PgBoss; queue: string }> {
  const supervise = options.supervise ?? false;
  const superviseSeconds = options.superviseSeconds ?? DEFAULT_SUPERVISE_SECONDS;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: QUEUE_SCHEMA,
    application_name: "rye-threads",
    max: 4,
    supervise,
    schedule: false,
    // Workers are woken by NOTIFY when a job is queued (polling stays as the floor).
    useListenNotify: supervise,
    ...(supervise ? { superviseIntervalSeconds: superviseSeconds, monitorIntervalSeconds: superviseSeconds } : {}),
  });
  // pg-boss reports connection trouble as events; a worker keeps polling through a database restart.
  boss.on("error", () => undefined);
  await boss.start();
  const queue = queueName(projectPath);
  if (!(await boss.getQueue(queue))) {
    await boss.createQueue(queue, { heartbeatSeconds: DEFAULT_HEARTBEAT_SECONDS, retryLimit: MAX_RECOVERIES + 1, retryDelay: 0, expireInSeconds: EXPIRE_SECONDS, notify: true }).catch(async (err: unknown) => {
      // Another process created it meanwhile.
      if (!(await boss.getQueue(queue))) throw err;
    });
  }
  return { boss, queue };
}

/** Puts a thread on its project's queue; returns the job id. */
export async function enqueueThread(job: Omit<ThreadJob, "enqueued_at">, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const backend = threadsBackend(env);
  if (backend.kind !== "postgres") throw new RyeError("BAD_REQUEST", "Threads are queued only with RYE_THREADS_BACKEND=postgres", { hint: "A bug in the caller: the local back end starts a detached process instead." });
  const data = threadJobSchema.parse({ ...job, project_path: resolve(job.project_path), enqueued_at: new Date().toISOString() });
  const { boss, queue } = await openBoss(data.project_path, { databaseUrl: backend.databaseUrl });
  try {
    const id = await boss.send(queue, data);
    if (!id) throw new RyeError("INTERNAL", `The thread ${job.thread_id} was not queued`, { hint: "pg-boss refused the job; see the database's log." });
    return id;
  } finally {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
  }
}
