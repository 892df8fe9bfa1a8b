/**
 * Idle memory of the registry API (issue #15: idle RSS ≤ 150 MB on PostgreSQL, ≤ 400 MB on PGlite), started as
 * production runs it: the compiled bundle `apps/api/dist/main.js` with RYE_ROLE=api and NODE_ENV=production. A lane
 * waits until /health answers (start-up done: migrations, seed, listening), lets the process settle, then reads
 * its resident set size from /proc several times and reports the median (of the server process: on a first start
 * the one-time work ran in a child process that has exited by then; docs/deployment.md, "Memory"). Lanes: PGlite on a new data directory
 * (first start: initdb), PGlite restarted on that directory, PostgreSQL (DATABASE_URL, else a throwaway cluster)
 * started and restarted, and restarted once more with the opt-in RYE_V8_OPTIMIZE_FOR_SIZE.
 * Baseline from the same run: a bare `node -e` process that only waits, the floor any Node server starts from.
 * BENCH_SETTLE_SECONDS (default 5), BENCH_SAMPLES (5, one a second), BENCH_LANES=pglite,postgres.
 * Linux only (/proc). Run: node --import tsx apps/api/bench/idle-memory.bench.ts
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { ensureServerBuild } from "../../../scripts/build-server.mjs";
import { freePort } from "../test/free-port.ts";
import { postgresServer } from "./postgres-server.ts";
import { rssMb } from "./process-memory.ts";

const SETTLE_MS = Number(process.env.BENCH_SETTLE_SECONDS ?? 5) * 1000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const LANES = new Set((process.env.BENCH_LANES ?? "pglite,postgres").split(","));
const TARGET_MB = { pglite: 400, postgres: 150 };
const root = fileURLToPath(new URL("../../../", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load1 = () => loadavg()[0]!.toFixed(2);

async function rssOrFail(pid: number): Promise<number> {
  const mb = await rssMb(pid);
  if (Number.isNaN(mb)) throw new Error(`no VmRSS for process ${pid}`);
  return mb;
}

/** Median RSS of `SAMPLES` readings one second apart, after `SETTLE_MS`. */
async function idleRss(child: ChildProcess): Promise<number> {
  await sleep(SETTLE_MS);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    if (i > 0) await sleep(1000);
    if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode} while idle`);
    samples.push(await rssOrFail(child.pid!));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** A Node process that does nothing: the baseline. */
async function bareNode(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
  try {
    return await idleRss(child);
  } finally {
    await stop(child);
  }
}

/** The compiled API server on `env`; idle RSS once /health answered and the process settled. */
async function registryIdle(env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "apps/api/dist/main.js")], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", RYE_ROLE: "api", RYE_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the registry exited with ${child.exitCode} during start-up`);
      if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) break;
      if (i > 1200) throw new Error("the registry did not answer /health within 2 minutes");
      await sleep(100);
    }
    return await idleRss(child);
  } finally {
    await stop(child);
  }
}

function line(name: string, mb: number, target: number, baseline: number): string {
  const verdict = mb <= target ? "meets" : "MISSES";
  return `  ${name.padEnd(30)} ${mb.toFixed(0).padStart(4)} MB   ${(mb / baseline).toFixed(2)}× bare node   target ≤ ${target} MB: ${verdict} (${(mb / target).toFixed(2)}× target)   load ${load1()}`;
}

await ensureServerBuild("api", (m) => console.log(m));
console.log(`idle memory bench: compiled API (RYE_ROLE=api), settle ${SETTLE_MS / 1000} s, median of ${SAMPLES} samples, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const baseline = await bareNode();
console.log(`  ${"bare node -e (baseline)".padEnd(30)} ${baseline.toFixed(0).padStart(4)} MB`);
if (LANES.has("pglite")) {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-idle-"));
  try {
    const env = { RYE_DATA_DIR: dataDir, DATABASE_URL: "" };
    console.log(line("PGlite, first start (initdb)", await registryIdle(env), TARGET_MB.pglite, baseline));
    console.log(line("PGlite, restart", await registryIdle(env), TARGET_MB.pglite, baseline));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
if (LANES.has("postgres")) {
  const server = await postgresServer().catch((err: Error) => `could not start PostgreSQL: ${err.message}`);
  if (typeof server === "string") console.log(`  PostgreSQL: skipped (${server})`);
  else {
    const scratch = await createScratchPostgresDatabase(server.url);
    const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-idle-pg-"));
    try {
      const env = { RYE_DATA_DIR: dataDir, DATABASE_URL: scratch.url };
      console.log(line("PostgreSQL, first start", await registryIdle(env), TARGET_MB.postgres, baseline));
      console.log(line("PostgreSQL, restart", await registryIdle(env), TARGET_MB.postgres, baseline));
      // The opt-in trade of throughput for memory (RYE_V8_OPTIMIZE_FOR_SIZE; docs/deployment.md, "Memory").
      console.log(line("PostgreSQL, optimize-for-size", await registryIdle({ ...env, RYE_V8_OPTIMIZE_FOR_SIZE: "true" }), TARGET_MB.postgres, baseline));
    } finally {
      await scratch.drop();
      server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
}
