/**
 * Thread start from the built package (`dist/`, what npm ships), against `node -e 0` measured in the same run
 * (issue #33, targets 1 and 4), every series interleaved round by round so a machine that slows down shifts all alike:
 *   - `rye thread run` of a one-turn directive → the thread's first model request       (target ≤ 4× node -e 0)
 *   - a child thread: the parent's model answer asking for it → the child's first request (target ≤ 3×)
 *   - `rye thread run` of a one-turn thread, end to end (the CLI process exits)         (target ≤ 6×)
 *   - the thread process's RSS when its first model request arrives, and its peak so far (target ≤ 60 MB)
 * The model is a local fake provider that answers at once (its time is ~0). Then where a start goes (phases marked by
 * a preload, in runs of their own) and the floor lanes: each piece alone (`node -e 0`, the CLI's start, a process
 * importing the SDK, the same from a V8 startup snapshot, a process with the CLI and the SDK loaded), and each target
 * beside the least its design could cost.
 *
 *   npm run build -w ryeos && node --import tsx packages/rye/bench/thread-start.bench.ts [rounds=9]
 *   (RYE_FROM_DIST=0 runs the TypeScript sources through tsx instead. THREAD_BENCH_BEFORE=<dir> also runs another
 *   built package — a copy of an older build's bin/, dist/, system/, runners/, release/ and package.json — in the same
 *   rounds, for a before/after comparison from interleaved runs. THREAD_BENCH_PHASES=0 skips the phase runs.)
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, rename, rm } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RYE_BIN } from "../test/cli.ts";
import type { RecordedLlmRequest } from "../test/fake-llm.ts";
import { directive, requestInfo, threadBench } from "../test/threads.ts";
import { buildSdkSnapshot } from "./sdk-snapshot.ts";

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
      // A `--json` command reports its error on stdout.
      if (err) reject(new Error(`${args.join(" ")}: ${err.message}\n${stdout}\n${stderr}`));
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

const SDK_LOADED = "a process importing the SDK entry";
const SDK_FROM_SNAPSHOT = "the same from a V8 startup snapshot (tried, not shipped)";
const CLI_LOADED = "a process importing the CLI and the SDK entry";

interface Mark {
  pid: number;
  ppid: number;
  script: string;
  tool: string;
  what: string;
  at: number;
}
type PhaseRow = [label: string, values: number[]];

/**
 * Where a start goes (THREAD_BENCH_PHASES=0 leaves it out): after the timed rounds, the same two runs again with a
 * preload (thread-phase-marks.mjs) that marks each process's start, the end of the SDK entry's evaluation, spawns and
 * HTTP requests. These runs are not the timed ones (the preload costs a little); their phases are medians over ROUNDS.
 */
async function measurePhases(bin: string): Promise<PhaseRow[]> {
  const marksFile = join(bench.ws.root, "phase-marks.jsonl");
  const marksEnv = { ...bench.env, RYE_FROM_DIST: FROM_DIST ? "1" : "0", RYE_BENCH_MARKS: marksFile, NODE_OPTIONS: `--import ${JSON.stringify(fileURLToPath(new URL("./thread-phase-marks.mjs", import.meta.url)))}` };
  const cwd = bench.ws.projectDir;
  const readMarks = async (): Promise<Mark[]> => (await readFile(marksFile, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Mark);
  const at = (marks: Mark[], pid: number, what: string) => marks.find((m) => m.pid === pid && m.what.startsWith(what))?.at ?? Number.NaN;
  const rows = new Map<string, number[]>();
  const add = (label: string, value: number) => rows.set(label, [...(rows.get(label) ?? []), value]);
  /** A thread process's phases, from `since` (what its parent did before spawning it) to its first model request. */
  const addThread = (marks: Mark[], thread: Mark, since: [label: string, at: number], firstRequest: number, kind: string) => {
    const spawned = at(marks, thread.ppid, "spawn node-runner.mjs thread_directive.mjs");
    const sdk = at(marks, thread.pid, "sdk evaluated");
    add(since[0], spawned - since[1]);
    add(`${kind}: spawn → its process starts (Node's own start)`, thread.at - spawned);
    add(`${kind}: its process's start → the SDK evaluated`, sdk - thread.at);
    add(`${kind}: the SDK evaluated → its first model request`, firstRequest - sdk);
  };
  const runMarked = async (directiveName: string) => {
    await rm(marksFile, { force: true });
    const from = bench.llm.requests.length;
    await run([bin, "thread", "run", `bench/start/${directiveName}`, "--json"], marksEnv, cwd);
    const marks = await readMarks();
    const requests = bench.llm.requests.slice(from);
    const firstOf = (name: string) => requests.find((q) => requestInfo(q).directive === name)!.at;
    return { marks, threads: marks.filter((m) => m.tool === "thread_directive.mjs" && m.what === "origin"), firstOf };
  };
  for (let round = 0; round < ROUNDS; round++) {
    const one = await runMarked("one");
    const cli = one.marks.find((m) => m.script === "rye.mjs" && m.what === "origin")!;
    const root = one.threads.find((m) => m.ppid === cli.pid)!;
    addThread(one.marks, root, ["root: the CLI's start → it spawns the thread process", cli.at], one.firstOf("one"), "root");

    const spawner = await runMarked("spawner");
    const kid = spawner.threads.find((m) => spawner.threads.some((p) => p.pid === m.ppid))!;
    addThread(spawner.marks, kid, ["child: the parent's model answer → it spawns the child", spawner.firstOf("spawner")], spawner.firstOf("kid"), "child");
  }
  return [...rows.entries()];
}

function printPhases(rows: PhaseRow[], base: number): void {
  console.log(`phases of a start (${ROUNDS} runs with a marking preload, not the timed runs; p50 ms, ÷ node -e 0)`);
  for (const [label, values] of rows) console.log(`  ${label.padEnd(62)} ${median(values).toFixed(0).padStart(6)} ${`${(median(values) / base).toFixed(1)}×`.padStart(8)}`);
}

/**
 * Each target beside the least its design could cost, from the floor lanes of the same rounds: a thread is a fresh
 * Node process that loads the SDK (the engine that verifies what it runs), and a root thread's CLI must load the
 * engine too before it may run the verified chain.
 */
function printFloors(floors: { label: string; ms: number[]; rss: number[] }[], base: number): void {
  const lane = (label: string) => floors.find((f) => f.label === label);
  const ratio = (label: string) => {
    const f = lane(label);
    return f ? median(f.ms) / base : Number.NaN;
  };
  const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)}×` : "n/a");
  const sdk = ratio(SDK_LOADED);
  const snapshot = ratio(SDK_FROM_SNAPSHOT);
  const cli = ratio(CLI_LOADED);
  console.log("each target against the floor of its design (same rounds):");
  console.log(`  child ≤ 3×: a fresh process with the SDK loaded alone is ${x(sdk)} (${x(snapshot)} from a startup snapshot), before the parent's dispatch and the child's own work`);
  console.log(`  first request ≤ 4×: the CLI with its code loaded ${x(cli)} + a thread process with the SDK ${x(sdk)} = ${x(cli + sdk)}; the root thread in the CLI's own process would still be ≥ ${x(cli)}`);
  console.log(`  end to end ≤ 6×: ≥ the first request's floor, ${x(cli + sdk)} (${x(cli)} in one process)`);
  const rss = lane(SDK_LOADED)?.rss ?? [];
  console.log(`  thread RSS ≤ 60 MB: a process with the SDK loaded holds ${rss.length ? median(rss).toFixed(0) : "n/a"} MB`);
}

const bench = await threadBench("anthropic");
let disposeSnapshot = async () => {};
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
  const cliEntry = FROM_DIST ? join(packageDir, "dist", "cli.js") : join(packageDir, "src", "cli", "main.ts");
  /** A process that imports `entries` (with V8's compile cache, as rye's own processes have it) and prints its RSS. */
  const importing = (...entries: string[]) => [
    ...(FROM_DIST ? [] : ["--import", "tsx"]),
    "--input-type=module",
    "-e",
    `import m from "node:module"; m.enableCompileCache?.(); ${entries.map((e) => `await import(${JSON.stringify(e)});`).join(" ")} ${printRss}`,
  ];
  const floors: { label: string; args: string[] }[] = [
    { label: "node -e 0 (RSS)", args: ["-e", printRss] },
    { label: "rye --help (the CLI's start)", args: [RYE_BIN, "--help"] },
    { label: SDK_LOADED, args: importing(sdkEntry) },
    { label: "a process that fetches once (undici loads)", args: ["-e", `fetch("http://127.0.0.1:9").catch(() => ${printRss})`] },
    { label: CLI_LOADED, args: importing(cliEntry, sdkEntry) },
  ];
  // Tried, not shipped: the SDK's import from a V8 startup snapshot (sdk-snapshot.ts), the least a fresh process
  // holding the SDK could cost. Only from the build (the snapshot bundles dist/).
  const snapshot = FROM_DIST ? await buildSdkSnapshot(join(packageDir, "dist")) : { skipped: "only from the build (dist/)" };
  if ("args" in snapshot) {
    floors.push({ label: SDK_FROM_SNAPSHOT, args: snapshot.args });
    disposeSnapshot = snapshot.dispose;
  } else console.log(`floor lane skipped: ${snapshot.skipped}`);
  const floorSeries = floors.map((f) => ({ ...f, ms: [] as number[], rss: [] as number[] }));
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
    for (const f of floorSeries) {
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

  let phases: PhaseRow[] | null = null;
  if (process.env.THREAD_BENCH_PHASES !== "0") {
    // The phases are this build's: its own lockfiles back in place (the last round may have ended with the other's).
    await useLockfilesOf(0);
    phases = await measurePhases(packages[0]!.bin);
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
  if (phases) printPhases(phases, base);
  console.log("floor: each piece of a thread's start alone (same rounds)");
  for (const f of floorSeries) console.log(`  ${f.label.padEnd(54)} ${median(f.ms).toFixed(0).padStart(8)} ${max(f.ms).toFixed(0).padStart(8)} ${`${(median(f.ms) / base).toFixed(1)}×`.padStart(12)}   RSS ${Number.isFinite(median(f.rss)) ? `${median(f.rss).toFixed(0)} MB` : "-"}`);
  printFloors(floorSeries, base);
} finally {
  await disposeSnapshot();
  await bench.close();
}
