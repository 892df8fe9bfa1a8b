/**
 * Client start-up and local search as a user meets them: the built package (`dist/`, what npm ships) run
 * as child processes over a generated 10 000-item project, against `node -e ''` measured in the same run.
 *
 *   rye --help                    cold process
 *   rye search --local …          cold process, stored index present; and with the opt-in search daemon
 *                                 (RYE_SEARCH_DAEMON=1, `rye search-daemon start`) in the same rounds (an untyped search builds it first, so it
 *                                 holds directives and knowledge, as a user's usually does); and with
 *                                 RYE_SEARCH_INDEX=0 (every file read, what a process did before the index)
 *   rye mcp                       time to the first tools/list answer, warm `search` calls (wall and CPU), RSS 1 s
 *                                 after start-up, after 25 s idle (V8's memory reducer has run), and after the searches
 *   idle RSS floors               what an MCP server costs before rye adds anything, measured like `rye mcp`:
 *                                 a JSON-RPC loop on stdin/stdout with no library (Node's own floor) and the
 *                                 MCP SDK's stdio server with no tool (the SDK's)
 *   orig-search.py                the original's per-query time on the same tree, when python3 and a
 *                                 checkout of leolilley/rye-os are given (RYE_OS_CHECKOUT, ORIG_SEARCH_PY, PYTHON)
 *
 * Then the targets of issue #33, each with its baseline and ratio: cold search ≤ 4× `node -e ''` (wall p50, both
 * measured in the same interleaved rounds), `rye mcp` idle ≤ 50 MB RSS.
 * BENCH_BEFORE=<dir> (a copy of an earlier build: its bin/rye.mjs, dist/ and system/) adds that build's search to
 * the same interleaved rounds and its `rye mcp` to the memory figures: before and after from one run.
 *
 *   npm run build -w ryeos && node --import tsx packages/rye/bench/startup.bench.ts [items=10000] [runs=15]
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const ITEMS = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 15);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const bin = join(packageDir, "bin", "rye.mjs");
const BEFORE = process.env.BENCH_BEFORE;
const beforeBin = BEFORE ? join(BEFORE, "bin", "rye.mjs") : null;
if (beforeBin && !existsSync(beforeBin)) {
  console.error(`BENCH_BEFORE: no ${beforeBin}`);
  process.exit(2);
}
/** Issue #33's targets. */
const TARGET_SEARCH_RATIO = 4;
const TARGET_MCP_IDLE_MB = 50;
if (!existsSync(join(packageDir, "dist", "cli.js"))) {
  console.error("Build the package first: npm run build -w ryeos");
  process.exit(2);
}

// ------------------------------------------------------------------ tree (the shape of ../shared/bench/gen-tree.mjs)
const WORDS = "agent registry signature verify tool runtime directive knowledge bundle pull push search index cache lockfile trust key rotation token device login scrape website extract lead score outreach budget thread spawn graph state hook error retry provider model prompt summary transcript permission capability sandbox python node bash http mcp server client schema validate parse render deploy postgres".split(" ");

async function generate(dir: string): Promise<void> {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);
  for (let i = 0; i < ITEMS; i++) {
    const category = `bench/${WORDS[i % 13]}/${WORDS[(i * 7) % 17]}`;
    const name = `${pick(2).join("_")}_${i}`;
    const body = Array.from({ length: 6 }, () => `${pick(12).join(" ")}.`).join("\n");
    const knowledge = i % 2 === 0;
    const folder = join(dir, ".ai", knowledge ? "knowledge" : "directives", category);
    await mkdir(folder, { recursive: true });
    const content = knowledge
      ? `---\nid: ${name}\ntitle: ${pick(4).join(" ")}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\ntags: [${pick(3).join(", ")}]\n---\n\n${body}\n`
      : `# ${pick(3).join(" ")}\n\n${pick(10).join(" ")}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>${pick(8).join(" ")}</description>\n    <category>${category}</category>\n    <author>bench</author>\n  </metadata>\n  <process>\n    <step name="one">${body.split("\n")[0]}</step>\n  </process>\n</directive>\n\`\`\`\n`;
    await writeFile(join(folder, `${name}.md`), content);
  }
}

// ------------------------------------------------------------------ timing
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

/** GNU time gives the child's CPU time (user + system), which a loaded machine inflates far less than wall time. */
const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

function timeProcess(args: string[], env: NodeJS.ProcessEnv, cwd: string): { wall: number; cpu: number } {
  const start = performance.now();
  const result = GNU_TIME
    ? spawnSync(GNU_TIME, ["-f", "rye-bench-cpu %U %S", process.execPath, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] })
    : spawnSync(process.execPath, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr.toString().slice(0, 400)}`);
  const cpu = /rye-bench-cpu ([\d.]+) ([\d.]+)/.exec(result.stderr.toString());
  return { wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN };
}

interface Series {
  label: string;
  runs: number;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Runs the series interleaved (one run of each in turn, `runs` rounds), so that a machine that slows down or
 * speeds up during the bench shifts every series alike and the ratios to the baseline stay comparable.
 */
function interleaved(all: Series[], cwd: string): { label: string; p50: number; p90: number; cpu: number }[] {
  const times = all.map(() => [] as { wall: number; cpu: number }[]);
  const rounds = Math.max(...all.map((s) => s.runs));
  for (let round = 0; round < rounds; round++) all.forEach((s, i) => round < s.runs && times[i]!.push(timeProcess(s.args, s.env, cwd)));
  return all.map((s, i) => {
    const wall = times[i]!.map((t) => t.wall);
    return { label: s.label, p50: pct(wall, 50), p90: pct(wall, 90), cpu: pct(times[i]!.map((t) => t.cpu), 50) };
  });
}

const rssOf = (pid: number | undefined) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** Idle: V8's memory reducer gives back start-up garbage and new-space room after some seconds without work. */
const SETTLE_MS = Number(process.env.BENCH_MCP_SETTLE_MS ?? 25_000);

/**
 * `rye mcp`: ms to the first tools/list answer, warm search latencies and the CPU they took, and RSS one second
 * after tools/list (start-up transient), after SETTLE_MS idle, and after the searches plus SETTLE_MS idle.
 */
async function measureMcp(args: string[], env: NodeJS.ProcessEnv, cwd: string, searches: number): Promise<{ toolsList: number; warm: number[]; cpuPerSearch: number; rssMb: number; idleMb: number; afterSearchesMb: number }> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  let buffer = "";
  const waiting = new Map<number, (value: unknown) => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const message = JSON.parse(line) as { id?: number };
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  const call = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  try {
    await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    await call("tools/list", {});
    const toolsList = performance.now() - start;
    await new Promise((r) => setTimeout(r, 1000));
    const rssMb = rssOf(child.pid);
    await new Promise((r) => setTimeout(r, SETTLE_MS - 1000));
    const idleMb = rssOf(child.pid);
    if (searches === 0) return { toolsList, warm: [], cpuPerSearch: Number.NaN, rssMb, idleMb, afterSearchesMb: Number.NaN };
    const cpuMs = () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime in clock ticks of 10 ms
    };
    let cpuStart = 0;
    const warm: number[] = [];
    const queries = ["registry signature", "verify OR rotation", '"device login"', "spawn*", "cache -token"];
    for (let i = 0; i < searches; i++) {
      const t = performance.now();
      const answer = (await call("tools/call", { name: "search", arguments: { query: queries[i % queries.length], limit: 10 } })) as { result?: { isError?: boolean } };
      if (answer.result?.isError) throw new Error(`MCP search failed: ${JSON.stringify(answer)}`);
      if (i > 0) warm.push(performance.now() - t); // the first call loads the index
      if (i === 0) cpuStart = cpuMs();
    }
    const cpuPerSearch = (cpuMs() - cpuStart) / (searches - 1);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    return { toolsList, warm, cpuPerSearch, rssMb, idleMb, afterSearchesMb: rssOf(child.pid) };
  } finally {
    child.kill();
  }
}

/** Node's floor for a stdio JSON-RPC server: answers initialize and tools/list with no library at all. */
const RAW_SERVER = `import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const result = m.method === "initialize" ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "raw", version: "1" } } : { tools: [] };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
});
`;

/** The MCP SDK's floor: its stdio server (the one `rye mcp` builds on) with no tool. */
const sdkServer = (sdk: string) => `import { Server } from ${JSON.stringify(`${sdk}/server/index.js`)};
import { StdioServerTransport } from ${JSON.stringify(`${sdk}/server/stdio.js`)};
import { ListToolsRequestSchema } from ${JSON.stringify(`${sdk}/types.js`)};
const server = new Server({ name: "floor", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
await server.connect(new StdioServerTransport());
`;

const verdict = (met: boolean) => (met ? "met" : "MISSED");

/**
 * Floors of a cold search, each a process of its own: importing the modules a search runs (nothing run), and the
 * freshness check no stored index can skip: listing the searched type's folders and stat-ing every item file
 * (an in-place edit changes a file's mtime, not its folder's).
 */
function importOnlyScript(): string {
  const dist = join(packageDir, "dist");
  const chunk = readdirSync(dist).find((f) => /^search-[\w-]+\.js$/.test(f) && readFileSync(join(dist, f), "utf8").includes("registerSearch"));
  if (!chunk) throw new Error("no search command chunk in dist/");
  return `import module from "node:module"; module.enableCompileCache?.(); await import(${JSON.stringify(join(dist, "cli.js"))}); await import(${JSON.stringify(join(dist, chunk))});`;
}
const STAT_ONLY_SCRIPT = `const fs = require("node:fs"); const path = require("node:path");
const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const p = dir + path.sep + e.name; if (e.isDirectory()) walk(p); else fs.statSync(p, { throwIfNoEntry: false }); } };
walk(path.join(process.cwd(), ".ai", "knowledge"));`;

// ------------------------------------------------------------------ run
const base = await mkdtemp(join(tmpdir(), "rye-startup-bench-"));
let daemon: ReturnType<typeof spawn> | null = null;
try {
  const project = join(base, "project");
  await generate(project);
  const home = join(base, "home");
  await mkdir(home, { recursive: true });
  const env = { ...process.env, HOME: home, USER_SPACE: home, XDG_CACHE_HOME: join(home, ".cache"), XDG_STATE_HOME: join(base, "state"), RYE_FROM_DIST: "1", RYE_OFFLINE: "1", RYE_SEARCH_INDEX_DIR: join(base, "index") };
  delete (env as NodeJS.ProcessEnv).RYE_SEARCH_DAEMON;
  const query = ["search", "--local", "--type", "knowledge", "registry", "AND", "signature"];
  // Builds the stored index as a user's index usually is: holding every type (after an untyped search, or `rye mcp`),
  // so the typed search timed below reads its own type's block of a file that holds both.
  timeProcess([bin, "search", "--local", "registry"], env, project);
  timeProcess([bin, ...query], env, project);
  // The tree and the index were just written: let the kernel write them back before timing anything.
  spawnSync("sync");
  await new Promise((r) => setTimeout(r, 2000));
  const load = loadavg()[0]!.toFixed(2);

  // The opt-in search daemon (docs/client.md), started and warmed by one search; its lane runs in the same rounds.
  const daemonEnv = { ...env, RYE_SEARCH_DAEMON: "1", RYE_SEARCH_DAEMON_DEBUG: "1" };
  daemon = spawn(process.execPath, [bin, "search-daemon", "start", "--foreground", "--idle-timeout", "3600"], { env, cwd: project, stdio: "ignore" });
  for (let i = 0; i < 200 && !/search daemon runs/.test(spawnSync(process.execPath, [bin, "search-daemon", "status"], { env, encoding: "utf8" }).stdout); i++) await new Promise((r) => setTimeout(r, 100));
  const warmed = spawnSync(process.execPath, [bin, ...query], { env: daemonEnv, cwd: project, encoding: "utf8" });
  if (warmed.status !== 0 || warmed.stderr.includes("not used")) throw new Error(`the search daemon did not answer: ${warmed.stderr}`);

  // The earlier build keeps its own stored index (its format may differ), built the same way.
  const beforeEnv = { ...env, RYE_SEARCH_INDEX_DIR: join(base, "index-before") };
  if (beforeBin) {
    timeProcess([beforeBin, "search", "--local", "registry"], beforeEnv, project);
    timeProcess([beforeBin, ...query], beforeEnv, project);
  }
  const rows = [
    ...interleaved(
      [
        { label: "node -e '' (baseline)", runs: RUNS, args: ["-e", ""], env },
        { label: "rye --help", runs: RUNS, args: [bin, "--help"], env },
        { label: "rye search (stored index)", runs: RUNS, args: [bin, ...query], env },
        { label: "rye search, daemon (opt-in)", runs: RUNS, args: [bin, ...query], env: daemonEnv },
        ...(beforeBin ? [{ label: "rye search, BENCH_BEFORE build", runs: RUNS, args: [beforeBin, ...query], env: beforeEnv }] : []),
        { label: "floor: import the search modules", runs: RUNS, args: ["--input-type=module", "-e", importOnlyScript()], env },
        { label: "floor: stat every knowledge file", runs: RUNS, args: ["-e", STAT_ONLY_SCRIPT], env },
      ],
      project,
    ),
    // Seconds of reading every file: after the others, so that it disturbs none of them.
    ...interleaved([{ label: "rye search (RYE_SEARCH_INDEX=0)", runs: Math.min(RUNS, 3), args: [bin, ...query], env: { ...env, RYE_SEARCH_INDEX: "0" } }], project),
  ];
  const daemonServed = Number(/(\d+) searches/.exec(spawnSync(process.execPath, [bin, "search-daemon", "status"], { env, encoding: "utf8" }).stdout)?.[1]);
  if (!(daemonServed >= RUNS + 1)) throw new Error(`the search daemon answered ${daemonServed} of ${RUNS + 1} searches`);
  daemon.kill();
  const mcp = await measureMcp([bin, "mcp"], env, project, 51);
  // The floors and the earlier build side by side (they only idle: running together disturbs no figure they give).
  const sdk = join(packageDir, "..", "..", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");
  await writeFile(join(base, "raw-server.mjs"), RAW_SERVER);
  await writeFile(join(base, "sdk-server.mjs"), sdkServer(sdk));
  // With BENCH_BEFORE, both builds' `rye mcp` idle in that same group: before and after under the same conditions.
  const [rawFloor, sdkFloor, mcpBefore, mcpAfter] = await Promise.all([
    measureMcp([join(base, "raw-server.mjs")], env, project, 0),
    existsSync(sdk) ? measureMcp([join(base, "sdk-server.mjs")], env, project, 0) : null,
    beforeBin ? measureMcp([beforeBin, "mcp"], beforeEnv, project, 0) : null,
    beforeBin ? measureMcp([bin, "mcp"], env, project, 0) : null,
  ]);
  const baseline = rows[0]!.p50;
  console.log(`\n${ITEMS} items, built package (dist/), ${RUNS} runs each (interleaved), load average ${load} at start, ${loadavg()[0]!.toFixed(2)} at end`);
  console.log(`${"".padEnd(36)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"÷ node -e".padStart(10)} ${"CPU p50 ms".padStart(11)} ${"÷ node -e".padStart(10)}`);
  const cpuBaseline = rows[0]!.cpu;
  for (const r of rows) console.log(`${r.label.padEnd(36)} ${r.p50.toFixed(1).padStart(8)} ${r.p90.toFixed(1).padStart(8)} ${(r.p50 / baseline).toFixed(1).padStart(9)}× ${r.cpu.toFixed(0).padStart(11)} ${(r.cpu / cpuBaseline).toFixed(1).padStart(9)}×`);
  console.log(`${"rye mcp → first tools/list".padEnd(36)} ${mcp.toolsList.toFixed(1).padStart(8)} ${"".padStart(8)} ${(mcp.toolsList / baseline).toFixed(1).padStart(9)}×`);
  console.log(`${"rye mcp warm search (50 calls)".padEnd(36)} ${pct(mcp.warm, 50).toFixed(1).padStart(8)} ${pct(mcp.warm, 90).toFixed(1).padStart(8)} ${"".padStart(10)} ${mcp.cpuPerSearch.toFixed(1).padStart(11)}`);
  console.log(`rye mcp RSS: ${mcp.rssMb.toFixed(0)} MB 1 s after tools/list; idle ${(SETTLE_MS / 1000).toFixed(0)} s: ${mcp.idleMb.toFixed(0)} MB; after the searches and ${(SETTLE_MS / 1000).toFixed(0)} s idle: ${mcp.afterSearchesMb.toFixed(0)} MB`);
  const row = (label: string) => rows.find((r) => r.label.startsWith(label))!;
  console.log(`stored index vs none: ${(row("rye search (RYE_SEARCH_INDEX=0)").p50 / rows[2]!.p50).toFixed(1)}× faster`);
  console.log(`idle RSS after ${(SETTLE_MS / 1000).toFixed(0)} s: JSON-RPC loop without a library ${rawFloor.idleMb.toFixed(0)} MB; MCP SDK stdio server, no tool ${sdkFloor ? `${sdkFloor.idleMb.toFixed(0)} MB` : "(SDK not installed)"}; rye mcp ${mcp.idleMb.toFixed(0)} MB${mcpBefore && mcpAfter ? `; side by side: rye mcp ${mcpAfter.idleMb.toFixed(0)} MB, BENCH_BEFORE build ${mcpBefore.idleMb.toFixed(0)} MB` : ""}`);

  const search = rows[2]!;
  console.log(`\nIssue #33 targets (${ITEMS} items)`);
  console.log(`  3. cold rye search (stored index, no daemon): ${search.p50.toFixed(1)} ms p50 ÷ node -e '' ${baseline.toFixed(1)} ms = ${(search.p50 / baseline).toFixed(2)}× (target ≤ ${TARGET_SEARCH_RATIO}×): ${verdict(search.p50 / baseline <= TARGET_SEARCH_RATIO)}; CPU ${search.cpu.toFixed(0)} ÷ ${cpuBaseline.toFixed(0)} ms = ${(search.cpu / cpuBaseline).toFixed(2)}×`);
  const viaDaemon = row("rye search, daemon (opt-in)");
  console.log(`     with the opt-in search daemon (RYE_SEARCH_DAEMON=1, same rounds): ${viaDaemon.p50.toFixed(1)} ms p50 ÷ ${baseline.toFixed(1)} ms = ${(viaDaemon.p50 / baseline).toFixed(2)}× (target ≤ ${TARGET_SEARCH_RATIO}×): ${verdict(viaDaemon.p50 / baseline <= TARGET_SEARCH_RATIO)}; CPU of the client ${viaDaemon.cpu.toFixed(0)} ÷ ${cpuBaseline.toFixed(0)} ms = ${(viaDaemon.cpu / cpuBaseline).toFixed(2)}× (the daemon's own CPU is not in it)`);
  if (beforeBin) {
    const before = row("rye search, BENCH_BEFORE build");
    console.log(`     BENCH_BEFORE build, same rounds: ${before.p50.toFixed(1)} ms p50 = ${(before.p50 / baseline).toFixed(2)}×, CPU ${(before.cpu / cpuBaseline).toFixed(2)}× → wall time ${search.p50 <= before.p50 ? "−" : "+"}${((Math.abs(before.p50 - search.p50) / before.p50) * 100).toFixed(0)}%, CPU ${search.cpu <= before.cpu ? "−" : "+"}${((Math.abs(before.cpu - search.cpu) / before.cpu) * 100).toFixed(0)}%`);
  }
  const imports = row("floor: import the search modules");
  const stats = row("floor: stat every knowledge file");
  const floor = imports.p50 + stats.p50 - baseline;
  console.log(`     floor, without searching: node ${baseline.toFixed(1)} ms + importing the modules ${(imports.p50 - baseline).toFixed(1)} ms + stat-ing the ${ITEMS / 2} files ${(stats.p50 - baseline).toFixed(1)} ms = ${floor.toFixed(1)} ms (${(floor / baseline).toFixed(2)}×); reading the index and searching: the other ${(search.p50 - floor).toFixed(1)} ms`);
  const floorNote = sdkFloor ? `; floor: the MCP SDK's server with no tool idles at ${sdkFloor.idleMb.toFixed(0)} MB (${(sdkFloor.idleMb / rawFloor.idleMb).toFixed(2)}×), so rye adds ${(mcp.idleMb - sdkFloor.idleMb).toFixed(0)} MB to it` : "";
  console.log(`  4. rye mcp idle RSS: ${mcp.idleMb.toFixed(0)} MB (target ≤ ${TARGET_MCP_IDLE_MB} MB): ${verdict(mcp.idleMb <= TARGET_MCP_IDLE_MB)}; baseline: a JSON-RPC loop without a library ${rawFloor.idleMb.toFixed(0)} MB → ${(mcp.idleMb / rawFloor.idleMb).toFixed(2)}×${floorNote}${mcpBefore && mcpAfter ? `; side by side with the BENCH_BEFORE build: ${mcpAfter.idleMb.toFixed(0)} vs ${mcpBefore.idleMb.toFixed(0)} MB` : ""}`);

  const checkout = process.env.RYE_OS_CHECKOUT;
  const script = process.env.ORIG_SEARCH_PY ?? join(packageDir, "..", "..", "..", "shared", "bench", "orig-search.py");
  if (checkout && existsSync(script)) {
    const out = execFileSync(process.env.PYTHON ?? "python3", [script, checkout, project], { encoding: "utf8", env: { ...process.env, HOME: home } });
    const times = [...out.matchAll(/([\d.]+) ms$/gm)].map((m) => Number(m[1]));
    const perQuery = pct(times, 50);
    console.log(`original (orig-search.py) per query p50: ${perQuery.toFixed(1)} ms → rye search (whole process) is ${(perQuery / rows[2]!.p50).toFixed(1)}× faster`);
  } else {
    console.log("original: set RYE_OS_CHECKOUT (a leolilley/rye-os checkout) to time orig-search.py on the same tree");
  }
} finally {
  daemon?.kill();
  await rm(base, { recursive: true, force: true });
}
