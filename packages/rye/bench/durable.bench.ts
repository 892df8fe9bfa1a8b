/**
 * The durable threads back end (RYE_THREADS_BACKEND=postgres) against the local one, in the same run:
 * - enqueue to start of an async child thread: the parent's `thread_directive` call (its tool_call_start event) to
 *   the child's first model request. Local: a detached process on this machine. Durable: a pg-boss job on
 *   PostgreSQL, claimed by a `rye thread worker` (woken by NOTIFY) that starts the thread through the executor;
 * - one uncontended budget reservation: the file ledger (lock + read + write) against the SQL ledger (one
 *   transaction under an advisory lock);
 * each durable figure as a ratio of its local baseline. Needs PostgreSQL: DATABASE_URL, or a throwaway cluster
 * started here when PostgreSQL binaries are installed (as `npm test` does).
 * Run: node --import tsx packages/rye/bench/durable.bench.ts   (DURABLE_BENCH_RUNS=7 by default)
 */
import "@rye/core/node";
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { RYE_BIN } from "../test/cli.ts";
import { directive, requestInfo, threadBench } from "../test/threads.ts";
import * as fileLedger from "../src/threads/ledger.ts";
import { SqlLedger } from "../src/threads/ledger-sql.ts";
import { findPostgres } from "../../../scripts/test-deps.mjs";

const RUNS = Number(process.env.DURABLE_BENCH_RUNS ?? 7);
const root = fileURLToPath(new URL("../../../", import.meta.url));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** DATABASE_URL, or a throwaway cluster (scripts/start-pg.sh) stopped at the end. */
function postgres(): { url: string; stop(): void } {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => undefined };
  const found = findPostgres();
  if (!found) throw new Error("durable.bench needs PostgreSQL: set DATABASE_URL or install PostgreSQL");
  const out = execFileSync("bash", [join(root, "scripts/start-pg.sh")], { env: { ...process.env, PGBIN: found.bin, PGPORT: process.env.RYE_BENCH_PGPORT ?? "54337" }, encoding: "utf8" });
  const vars = Object.fromEntries([...out.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  return { url: vars.DATABASE_URL!, stop: () => execFileSync("bash", [join(root, "scripts/stop-pg.sh")], { env: { ...process.env, ...vars }, stdio: "ignore" }) };
}

const server = postgres();
process.env.DATABASE_URL = server.url;
const scratch = await createScratchPostgresDatabase(server.url);
const durableEnv = { RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: scratch.url };
const bench = await threadBench("anthropic");
let worker: ReturnType<typeof spawn> | undefined;
try {
  await bench.write("directive", "bench/durable/parent.md", directive({ name: "parent", category: "bench/durable", permissions: "<execute><tool>rye.agent.threads.*</tool></execute>" }));
  await bench.write("directive", "bench/durable/kid.md", directive({ name: "kid", category: "bench/durable" }));
  const spawnCall = { name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "bench/durable/kid", async_exec: true } } };
  bench.script({
    parent: (turn, request) => {
      if (turn === 0) return { toolCalls: [spawnCall], usage: { input: 10, output: 5 } };
      if (turn === 1) {
        const kid = (JSON.parse(requestInfo(request).toolResults[0]!) as { data: { thread_id: string } }).data.thread_id;
        return { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/orchestrator", parameters: { operation: "wait_threads", thread_ids: [kid], timeout_seconds: 120 } } }], usage: { input: 10, output: 5 } };
      }
      return { text: "done", usage: { input: 10, output: 5 } };
    },
    kid: () => ({ text: "kid done", usage: { input: 10, output: 5 } }),
  });

  /** Enqueue (the parent's spawn call) → the child's first model request, in ms, over RUNS parents. */
  const enqueueToStart = async (extraEnv: Record<string, string>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const from = bench.llm.requests.length;
      const run = await bench.rye(["thread", "run", "bench/durable/parent"], extraEnv);
      if (run.json.status !== "completed") throw new Error(`the bench parent did not complete: ${run.stdout}${run.stderr}`);
      const spawned = (await bench.events(run.json.thread_id)).find((e) => e.event_type === "tool_call_start")!;
      const kidFirst = bench.llm.requests.slice(from).find((r) => requestInfo(r).directive === "kid")!;
      out.push(kidFirst.at - (spawned as unknown as { timestamp: number }).timestamp * 1000);
    }
    return out;
  };

  const local = await enqueueToStart({});
  worker = spawn(process.execPath, [RYE_BIN, "thread", "worker", "--json", "--concurrency", "2"], { cwd: bench.ws.projectDir, env: { ...bench.env, ...durableEnv }, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: worker!.stdout! }).on("line", (line) => {
      if (line.includes('"worker_started"')) resolve();
    });
    worker!.once("exit", (code) => reject(new Error(`the worker exited (${code})`)));
  });
  const durable = await enqueueToStart(durableEnv);

  // One uncontended reservation: file ledger vs SQL ledger.
  const N = 200;
  const project = await mkdtemp(join(tmpdir(), "rye-durable-bench-"));
  await fileLedger.reserve(project, { threadId: "root", amount: 1000 });
  let t = performance.now();
  for (let i = 0; i < N; i++) await fileLedger.reserve(project, { threadId: `c${i}`, parentId: "root", amount: 1 });
  const fileReserveMs = (performance.now() - t) / N;
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  const sql = new SqlLedger(pool);
  await sql.reserve(project, { threadId: "root", amount: 1000 });
  t = performance.now();
  for (let i = 0; i < N; i++) await sql.reserve(project, { threadId: `c${i}`, parentId: "root", amount: 1 });
  const sqlReserveMs = (performance.now() - t) / N;
  await pool.end();

  const localMs = median(local);
  const durableMs = median(durable);
  console.log(`durable threads back end vs local, ${RUNS} runs each (node ${process.version}, PostgreSQL on this machine)`);
  console.log(`${"async child: enqueue to first model request, local (median)".padEnd(62)} ${localMs.toFixed(1).padStart(9)} ms   1.00 × local`);
  console.log(`${"async child: enqueue to first model request, durable (median)".padEnd(62)} ${durableMs.toFixed(1).padStart(9)} ms   ${(durableMs / localMs).toFixed(2).padStart(4)} × local`);
  console.log(`${"budget reservation, file ledger (mean of 200)".padEnd(62)} ${fileReserveMs.toFixed(2).padStart(9)} ms   1.00 × file`);
  console.log(`${"budget reservation, SQL ledger (mean of 200)".padEnd(62)} ${sqlReserveMs.toFixed(2).padStart(9)} ms   ${(sqlReserveMs / fileReserveMs).toFixed(2).padStart(4)} × file`);
  console.log(`(local runs: ${local.map((v) => v.toFixed(0)).join(", ")} ms; durable runs: ${durable.map((v) => v.toFixed(0)).join(", ")} ms)`);
} finally {
  worker?.kill("SIGTERM");
  await bench.close();
  await scratch.drop().catch(() => undefined);
  server.stop();
}
