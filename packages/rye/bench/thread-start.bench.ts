/**
 * Thread start from the built package (`dist/`, what npm ships), against `node -e 0` measured in the same run
 * (issue #33, targets 1 and 4), every series interleaved round by round so a machine that slows down shifts all alike:
 *   - `rye thread run` of a one-turn directive → the thread's first model request       (target ≤ 4× node -e 0)
 *   - a child thread: the parent's model answer asking for it → the child's first request (target ≤ 3×)
 *   - `rye thread run` of a one-turn thread, end to end (the CLI process exits)         (target ≤ 6×)
 *   - the thread process's RSS when its first model request arrives, and its peak so far (target ≤ 60 MB)
 * The model is a local fake provider that answers at once (its time is ~0).
 *
 *   npm run build -w ryeos && node --import tsx packages/rye/bench/thread-start.bench.ts [rounds=9]
 *   (RYE_FROM_DIST=0 runs the TypeScript sources through tsx instead. THREAD_BENCH_BEFORE=<dir> also runs another
 *   built package — a copy of an older build's bin/, dist/, system/, runners/, release/ and package.json — in the same
 *   rounds, for a before/after comparison from interleaved runs.)
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, rename } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RYE_BIN } from "../test/cli.ts";
import type { RecordedLlmRequest } from "../test/fake-llm.ts";
import { directive, requestInfo, threadBench } from "../test/threads.ts";

const ROUNDS = Number(process.argv[2] ?? 9);
const FROM_DIST = process.env.RYE_FROM_DIST !== "0";
const packageDir = fileURLToPath(new URL("..", import.meta.url));
if (FROM_DIST && !existsSync(join(packageDir, "dist", "cli.js"))) {
  console.error("Build the package first: npm run build -w ryeos");
  process.exit(2);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const max = (values: number[]) => Math.max(...values);

/** Runs `node args…` to its exit; returns the wall-clock start (Date.now(), the fake provider's clock) and end. */
function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ start: number; end: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    execFile(process.execPath, args, { env, cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const end = Date.now();
      if (err) reject(new Error(`${args.join(" ")}: ${err.message}\n${stderr}`));
      else resolve({ start, end, stdout });
    });
  });
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const bench = await threadBench("anthropic");
try {
  const env = { ...bench.env, RYE_FROM_DIST: FROM_DIST ? "1" : "0" };
  const cwd = bench.ws.projectDir;
  await bench.write("directive", "bench/start/one.md", directive({ name: "one", category: "bench/start" }));
  await bench.write("directive", "bench/start/spawner.md", directive({ name: "spawner", category: "bench/start", permissions: "<execute><tool>rye.agent.threads.thread_directive</tool></execute>" }));
  await bench.write("directive", "bench/start/kid.md", directive({ name: "kid", category: "bench/start" }));
  const spawnCall = { name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "bench/start/kid" } } };

  /** The running thread of `directive` (its process answers the first request only after this returns). */
  const threadPid = async (name: string): Promise<number> => {
    const root = join(cwd, ".ai", "threads");
    for (const id of await readdir(root)) {
      const record = JSON.parse(await readFile(join(root, id, "thread.json"), "utf8").catch(() => "{}")) as { status?: string; directive?: string; pid?: number };
      if (record.status === "running" && record.directive === `bench/start/${name}` && record.pid) return record.pid;
    }
    throw new Error(`no running ${name} thread`);
  };
  const memory: { rss: number; peak: number }[] = [];
  bench.llm.reply = async (request: RecordedLlmRequest) => {
    const info = requestInfo(request);
    if (info.directive === "one") memory.push(memoryOf(await threadPid("one")));
    if (info.directive === "spawner" && info.turn === 0) return { toolCalls: [spawnCall], usage: { input: 10, output: 5 } };
    return { text: "done", usage: { input: 10, output: 5 } };
  };

  const packages = [{ label: "", bin: RYE_BIN }, ...(process.env.THREAD_BENCH_BEFORE ? [{ label: "before: ", bin: join(process.env.THREAD_BENCH_BEFORE, "bin", "rye.mjs") }] : [])];
  const series = packages.map(() => ({ toFirst: [] as number[], endToEnd: [] as number[], spawns: [] as number[], memory: [] as { rss: number; peak: number }[] }));
  const baseline: number[] = [];
  const completed = (stdout: string) => {
    if ((JSON.parse(stdout) as { status?: string }).status !== "completed") throw new Error(stdout);
  };
  // The floor under the current design: a thread is the CLI's process (start, verify the tool chain) and then the
  // thread's own (start, import the SDK: engine, @rye/core with its schemas and parsers), and its model request goes
  // through fetch (undici). Each piece alone, in the same rounds; RSS as the process reports it at its end.
  const printRss = "process.stdout.write(String(process.memoryUsage().rss / 1048576))";
  const sdkEntry = FROM_DIST ? join(packageDir, "dist", "sdk", "v1.js") : join(packageDir, "src", "sdk", "v1.ts");
  const floors = [
    { label: "node -e 0 (RSS)", args: ["-e", printRss] },
    { label: "rye --help (the CLI's start)", args: [RYE_BIN, "--help"] },
    { label: "a process importing the SDK entry", args: [...(FROM_DIST ? [] : ["--import", "tsx"]), "--input-type=module", "-e", `import m from "node:module"; m.enableCompileCache?.(); await import(${JSON.stringify(sdkEntry)}); ${printRss}`] },
    { label: "a process that fetches once (undici loads)", args: ["-e", `fetch("http://127.0.0.1:9").catch(() => ${printRss})`] },
  ].map((f) => ({ ...f, ms: [] as number[], rss: [] as number[] }));
  // Each package keeps its own lockfiles: a tool chain that differs between the two (a changed runtime file) would
  // otherwise meet the other's lockfile (LOCKFILE_MISMATCH). Swapped by renames, outside the timed runs.
  const lockfiles = join(cwd, ".ai", "lockfiles");
  let lockfilesOf = 0;
  const useLockfilesOf = async (i: number) => {
    if (i === lockfilesOf) return;
    await rename(lockfiles, `${lockfiles}.${lockfilesOf}`).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
    await rename(`${lockfiles}.${i}`, lockfiles).catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)));
    lockfilesOf = i;
  };
  for (const [i, { bin }] of packages.entries()) {
    await useLockfilesOf(i);
    await run([bin, "thread", "run", "bench/start/one", "--json"], env, cwd); // compile cache, page cache, lockfiles
  }
  for (let round = 0; round < ROUNDS; round++) {
    const b = await run(["-e", "0"], env, cwd);
    baseline.push(b.end - b.start);
    for (const f of floors) {
      const r = await run(f.args, env, cwd);
      f.ms.push(r.end - r.start);
      f.rss.push(Number(r.stdout.trim().split("\n").at(-1)));
    }
    // The packages' order alternates round by round: whichever runs first in a round runs right after the floors'
    // processes, and with a fixed order that cost fell on one package only (round 5 measured the same build
    // 40–150 ms slower to a child's first request when always run first).
    const order = [...packages.entries()];
    if (round % 2 === 1) order.reverse();
    for (const [i, { bin }] of order) {
      await useLockfilesOf(i);
      const s = series[i]!;
      const from = bench.llm.requests.length;
      memory.length = 0;
      const r = await run([bin, "thread", "run", "bench/start/one", "--json"], env, cwd);
      completed(r.stdout);
      s.toFirst.push(bench.llm.requests[from]!.at - r.start);
      s.endToEnd.push(r.end - r.start);
      s.memory.push(...memory);
      const before = bench.llm.requests.length;
      completed((await run([bin, "thread", "run", "bench/start/spawner", "--json"], env, cwd)).stdout);
      const requests = bench.llm.requests.slice(before);
      const parentFirst = requests.find((q) => requestInfo(q).directive === "spawner")!;
      const kidFirst = requests.find((q) => requestInfo(q).directive === "kid")!;
      s.spawns.push(kidFirst.at - parentFirst.at);
    }
  }

  const base = median(baseline);
  console.log(`thread start, ${FROM_DIST ? "built package (dist/)" : "sources (tsx)"}, fake provider answering at once, ${ROUNDS} rounds interleaved (node ${process.version}, load ${loadavg()[0]!.toFixed(2)})`);
  console.log(`${"".padEnd(56)} ${"p50 ms".padStart(8)} ${"max ms".padStart(8)} ${"÷ node -e 0".padStart(12)} ${"target".padStart(8)}`);
  console.log(`${"node -e 0 (baseline)".padEnd(56)} ${base.toFixed(0).padStart(8)} ${max(baseline).toFixed(0).padStart(8)}`);
  for (const [i, { label }] of packages.entries()) {
    const s = series[i]!;
    const rows: [string, number[], number][] = [
      ["rye thread run → first model request", s.toFirst, 4],
      ["child thread: spawn → its first model request", s.spawns, 3],
      ["one-turn thread, end to end (rye thread run)", s.endToEnd, 6],
    ];
    for (const [name, values, target] of rows) {
      const ratio = median(values) / base;
      console.log(`${(label + name).padEnd(56)} ${median(values).toFixed(0).padStart(8)} ${max(values).toFixed(0).padStart(8)} ${`${ratio.toFixed(1)}×`.padStart(12)} ${`≤ ${target}×`.padStart(8)}  ${ratio <= target ? "met" : "NOT met"}`);
    }
    const rss = median(s.memory.map((m) => m.rss));
    const peak = max(s.memory.map((m) => m.peak));
    console.log(`${label}thread process RSS at its first model request: ${rss.toFixed(0)} MB (p50), peak ${peak.toFixed(0)} MB; target ≤ 60 MB: ${peak <= 60 ? "met" : "NOT met"}`);
  }
  console.log("floor: each piece of a thread's start alone (same rounds)");
  for (const f of floors) console.log(`  ${f.label.padEnd(54)} ${median(f.ms).toFixed(0).padStart(8)} ${max(f.ms).toFixed(0).padStart(8)} ${`${(median(f.ms) / base).toFixed(1)}×`.padStart(12)}   RSS ${Number.isFinite(median(f.rss)) ? `${median(f.rss).toFixed(0)} MB` : "-"}`);
} finally {
  await bench.close();
}
