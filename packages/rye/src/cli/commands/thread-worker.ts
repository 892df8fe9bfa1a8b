/**
 * `rye thread worker [--concurrency n]`: runs the project's durable thread jobs from PostgreSQL until SIGTERM or
 * SIGINT (the postgres threads back end, docs/agent-runtime.md §13). Prints one line per job event (JSON lines with
 * --json). On SIGTERM it stops claiming and waits for its running threads to end; a worker that dies instead
 * (a machine gone) leaves its threads to the next worker.
 */
import type { Command } from "commander";
import { resolve } from "node:path";
import type { WorkerEvent } from "../../threads/worker.ts";
import type { CliContext } from "../context.ts";
import { EXIT } from "../output.ts";
import { parseInteger } from "./common.ts";

function describe(e: WorkerEvent): string {
  switch (e.event) {
    case "worker_started":
      return `worker ${e.worker}: running up to ${e.concurrency} threads at once from queue ${e.queue}`;
    case "job_claimed":
      return `${e.recover ? "continuing" : "starting"} thread ${e.thread_id} (job ${e.job_id}, attempt ${e.attempt + 1})`;
    case "job_done":
      return `thread ${e.thread_id} ${e.status}`;
    case "job_skipped":
      return `thread ${e.thread_id} not run: ${e.reason} (${e.status})`;
    case "job_failed":
      return `thread ${e.thread_id}: job failed, it will be retried: ${e.message}`;
  }
}

export function registerThreadWorker(thread: Command, ctx: CliContext): void {
  thread
    .command("worker")
    .description("run this project's durable thread jobs from PostgreSQL (RYE_THREADS_BACKEND=postgres) until stopped")
    .option("-c, --concurrency <n>", "threads run at once", "4")
    .option("-p, --project <dir>", "project directory (default: current directory)")
    .option("--json", "print one JSON object per event")
    .action(async (opts: { concurrency: string; project?: string; json?: boolean }) =>
      ctx.run(opts.json, async () => {
        // pg-boss and the PostgreSQL driver load only for this command.
        const { MAX_WORKER_CONCURRENCY, startWorker } = await import("../../threads/worker.ts");
        const { closeThreadsPools } = await import("../../threads/pg-pool.ts");
        const concurrency = parseInteger("concurrency", opts.concurrency, 1, MAX_WORKER_CONCURRENCY) ?? 4;
        const worker = await startWorker({
          projectPath: resolve(ctx.cwd, opts.project ?? "."),
          env: ctx.env,
          concurrency,
          onEvent: (e) => ctx.io.stdout(opts.json ? JSON.stringify(e) : describe(e)),
        });
        await new Promise<void>((done) => {
          const stop = () => {
            process.off("SIGTERM", stop);
            process.off("SIGINT", stop);
            worker.stop().then(done, done);
          };
          process.once("SIGTERM", stop);
          process.once("SIGINT", stop);
        });
        await closeThreadsPools();
        return EXIT.OK;
      }),
    );
}
