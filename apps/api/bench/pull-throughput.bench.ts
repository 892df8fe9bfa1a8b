/**
 * Pull throughput of one running registry process (issues #15, #33): autocannon c=50 against the server started as
 * production runs it (compiled output, `apps/api/dist/main.js`; BENCH_RUNTIME=tsx runs the sources instead), after
 * BENCH_WARM_SECONDS (10) of mixed load, measuring `/health`, a pinned pull (`?version=`) and a latest pull of a
 * public item: on the API alone (PGlite, PostgreSQL) and on the one-origin server (`npm start`: API + website).
 * Each lane's baseline is a bare Hono app on @hono/node-server serving the very bytes of that pull answer
 * (bare-hono-server.mjs), measured in the same lane. Then Verdaccio (dev dependency) serving a tarball of the same
 * size, in the same run: rye ÷ Verdaccio.
 *
 * Targets (#33): pinned ≥ 0.5× bare Hono with p99 ≤ 10 ms, latest ≥ 0.4×, /health ≥ 0.8×; rye pinned ÷ Verdaccio ≥ 1.2.
 * PostgreSQL: DATABASE_URL, else a throwaway cluster started like scripts/run-tests.mjs does; none → the lane is
 * skipped with the reason. BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_CPU_PROF=<dir> (the server
 * writes a --cpu-prof profile there), BENCH_LANES=pglite,one-origin,postgres,verdaccio.
 * Run: node --import tsx apps/api/bench/pull-throughput.bench.ts
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { ensureServerBuild } from "../../../scripts/build-server.mjs";
import { freePort } from "../test/free-port.ts";
import { postgresServer } from "./postgres-server.ts";
import { rssMb } from "./process-memory.ts";
import { publishBenchItem } from "./bench-item.ts";
import { type Figures, formatFigures, loadFigures } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LANES = new Set((process.env.BENCH_LANES ?? "pglite,one-origin,postgres,verdaccio").split(","));
/** Load on the registry before any figure: its code is large, and on 2 busy cores V8 takes seconds to optimize it. */
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 10);
const RUNTIME = process.env.BENCH_RUNTIME === "tsx" ? "tsx" : "dist";
const root = fileURLToPath(new URL("../../../", import.meta.url));

async function waitFor(url: string, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url}`);
}

// Bodies are discarded unread: autocannon otherwise decodes each one into a string, work of the load generator that
// takes a share of the two cores from the server it measures.
const load = (url: string, serverPid?: number) => loadFigures(url, { connections: CONNECTIONS, seconds: SECONDS, discardBodies: true, ...(serverPid === undefined ? {} : { serverPid }) });

const load1 = () => loadavg()[0]!.toFixed(2);

type Server = "api" | "web";

async function startRye(env: NodeJS.ProcessEnv, server: Server = "api"): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }> {
  const port = await freePort();
  const sources = { api: "apps/api/src/main.ts", web: "apps/web/server/main.ts" }[server];
  const built = { api: "apps/api/dist/main.js", web: "apps/web/server/dist/main.js" }[server];
  const entry = RUNTIME === "dist" ? [join(root, built)] : ["--import", "tsx", join(root, sources)];
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, ...entry], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", RYE_RATE_LIMIT_READS: "1000000000", RYE_RATE_LIMIT_WRITES: "1000000000" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health`, child, "the registry");
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

/** A bare Hono app on @hono/node-server serving `body` (bare-hono-server.mjs): the framework's ceiling. */
async function startBareHono(body: Buffer): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "rye-bench-bare-"));
  await writeFile(join(dir, "body.json"), body);
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, "apps/api/bench/bare-hono-server.mjs"), join(dir, "body.json")], { cwd: root, env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}/bytes`;
  await waitFor(url, child, "the bare Hono server");
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Throughput ÷ the baseline's (the target), and the baseline's CPU per request ÷ this one's (the same, free of the machine's other load). */
const ratio = (figures: Figures, baseline: Figures, target: number) => {
  const r = figures.rps / baseline.rps;
  const cpu = baseline.cpuUs !== undefined && figures.cpuUs !== undefined ? `; by server CPU per request ${(baseline.cpuUs / figures.cpuUs).toFixed(2)}×` : "";
  return `${r.toFixed(2)}× bare Hono (target ≥ ${target}: ${r >= target ? "met" : "missed"}${cpu})`;
};

async function ryeLane(name: string, env: NodeJS.ProcessEnv, rssTargetMb: number, server: Server = "api"): Promise<{ pinned: Figures; latest: Figures; bytes: number }> {
  const rye = await startRye(env, server);
  try {
    const item = await publishBenchItem(rye.url);
    await new Promise((r) => setTimeout(r, 2_000)); // idle: start-up garbage collected
    const idle = await rssMb(rye.pid);
    const paths = [item.pinned, item.latest, `${rye.url}/health`].map((u) => u.slice(rye.url.length));
    let turn = 0;
    await loadFigures(rye.url, { connections: CONNECTIONS, seconds: WARM_SECONDS, path: () => paths[turn++ % paths.length]! });
    const bare = await startBareHono(Buffer.from(await (await fetch(item.pinned)).arrayBuffer()));
    let ceiling: Figures;
    try {
      ceiling = await load(bare.url, bare.pid);
    } finally {
      await bare.stop();
    }
    const health = await load(`${rye.url}/health`, rye.pid);
    const pinned = await load(item.pinned, rye.pid);
    const latest = await load(item.latest, rye.pid);
    console.log(`\n${name} (${RUNTIME}, c=${CONNECTIONS}, ${SECONDS} s each after ${WARM_SECONDS} s of warm-up, pull answer ${item.bytes} B, load average ${load1()})`);
    console.log(`  bare Hono      ${formatFigures(ceiling)}   (the same bytes from a one-route Hono app: the baseline)`);
    console.log(`  /health        ${formatFigures(health)}   ${ratio(health, ceiling, 0.8)}`);
    console.log(`  pinned pull    ${formatFigures(pinned)}   ${ratio(pinned, ceiling, 0.5)}, p99 target ≤ 10 ms: ${pinned.p99 <= 10 ? "met" : "missed"}`);
    console.log(`  latest pull    ${formatFigures(latest)}   ${ratio(latest, ceiling, 0.4)}`);
    console.log(`  idle RSS       ${idle.toFixed(0)} MB (target ≤ ${rssTargetMb} MB), after the load ${(await rssMb(rye.pid)).toFixed(0)} MB`);
    return { pinned, latest, bytes: item.bytes };
  } finally {
    await rye.stop();
  }
}

/** Verdaccio serving one published package whose tarball has `bytes` bytes (incompressible content). */
async function verdaccioLane(bytes: number): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), "rye-bench-verdaccio-"));
  const port = await freePort();
  await mkdir(join(dir, "storage"));
  await writeFile(join(dir, "config.yaml"), `storage: ./storage\nauth: { htpasswd: { file: ./htpasswd, max_users: 100 } }\nuplinks: {}\npackages: { '**': { access: $all, publish: $authenticated } }\nlog: { type: stdout, format: pretty, level: error }\n`);
  const child = spawn(process.execPath, [join(root, "node_modules/verdaccio/bin/verdaccio"), "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/-/ping`, child, "verdaccio");
    const user = await fetch(`${url}/-/user/org.couchdb.user:bench`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "bench", password: "benchpass123" }) });
    const { token } = (await user.json()) as { token: string };
    const tarball = await tarballOfSize(dir, bytes);
    const name = "bench-item";
    const doc = {
      _id: name,
      name,
      "dist-tags": { latest: "1.0.0" },
      versions: { "1.0.0": { name, version: "1.0.0", dist: { tarball: `${url}/${name}/-/${name}-1.0.0.tgz`, shasum: createHash("sha1").update(tarball).digest("hex") } } },
      _attachments: { [`${name}-1.0.0.tgz`]: { content_type: "application/octet-stream", data: tarball.toString("base64"), length: tarball.length } },
    };
    const put = await fetch(`${url}/${name}`, { method: "PUT", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(doc) });
    if (!put.ok) throw new Error(`verdaccio publish: ${put.status} ${await put.text()}`);
    const target = `${url}/${name}/-/${name}-1.0.0.tgz`;
    const served = (await (await fetch(target)).arrayBuffer()).byteLength;
    const figures = await load(target);
    console.log(`\nVerdaccio (c=${CONNECTIONS}, ${SECONDS} s, tarball ${served} B, load average ${load1()})`);
    console.log(`  tarball        ${formatFigures(figures)}`);
    return figures;
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
    await rm(dir, { recursive: true, force: true });
  }
}

/** A gzip tarball of about `bytes` bytes: random (incompressible) bytes inside package/. */
async function tarballOfSize(dir: string, bytes: number): Promise<Buffer> {
  const pkg = join(dir, "pkg", "package");
  await mkdir(pkg, { recursive: true });
  await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "bench-item", version: "1.0.0" }));
  let payload = Math.max(16, bytes - 200);
  for (;;) {
    await writeFile(join(pkg, "content.bin"), randomBytes(payload));
    execFileSync("tar", ["-czf", join(dir, "item.tgz"), "-C", join(dir, "pkg"), "package"]);
    const tarball = await readFile(join(dir, "item.tgz"));
    if (tarball.length <= bytes || payload <= 16) return tarball;
    payload -= tarball.length - bytes;
  }
}

if (RUNTIME === "dist") await ensureServerBuild("api", (m) => console.log(m));
console.log(`pull throughput bench: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}, ${process.env.BENCH_CPU_PROF ? "profiling" : "no profiler"}`);
let ryePinned: { pinned: Figures; latest: Figures; bytes: number } | undefined;
if (LANES.has("pglite")) {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-pglite-"));
  try {
    ryePinned = await ryeLane("PGlite", { RYE_DATA_DIR: dataDir, DATABASE_URL: "" }, 400);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
if (LANES.has("one-origin")) {
  // `npm start`: the website and the API in one process (the Next build is made first when it is stale).
  if (RUNTIME === "dist") await ensureServerBuild("web", (m) => console.log(m));
  const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-one-origin-"));
  try {
    await ryeLane("One-origin server on PGlite (API + website)", { RYE_DATA_DIR: dataDir, DATABASE_URL: "" }, 400, "web");
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
if (LANES.has("postgres")) {
  const server = await postgresServer().catch((err: Error) => `could not start PostgreSQL: ${err.message}`);
  if (typeof server === "string") console.log(`\nPostgreSQL: skipped (${server})`);
  else {
    const scratch = await createScratchPostgresDatabase(server.url);
    const dataDir = await mkdtemp(join(tmpdir(), "rye-bench-pg-"));
    try {
      const lane = await ryeLane("PostgreSQL", { RYE_DATA_DIR: dataDir, DATABASE_URL: scratch.url }, 150);
      ryePinned ??= lane;
    } finally {
      await scratch.drop();
      server.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
}
if (LANES.has("verdaccio")) {
  const verdaccio = await verdaccioLane(ryePinned?.bytes ?? 3_600);
  if (ryePinned) {
    console.log(`\nrye pinned pull ÷ Verdaccio tarball: ${(ryePinned.pinned.rps / verdaccio.rps).toFixed(2)}× req/s (target ≥ 1.2); p99 ${ryePinned.pinned.p99} ms vs ${verdaccio.p99} ms`);
    console.log(`rye latest pull ÷ Verdaccio tarball: ${(ryePinned.latest.rps / verdaccio.rps).toFixed(2)}× req/s`);
  }
}
