/**
 * The client as users install it, measured the same way before and after, on this machine:
 *
 *   install   `npm install ryeos` in an empty directory from a local Verdaccio (empty npm cache and HOME):
 *             wall time, size of node_modules (du), number of installed packages;
 *   --help    `rye --help` from that install, median of 10 runs (spawn to exit);
 *   mcp       `rye mcp` until the answer to the MCP `initialize` request, median of 5 runs.
 *
 * "after" is this checkout (built and packed); "before" (optional, --baseline <git ref>) is the `rye` workspace
 * package of that commit as it was — TypeScript run through tsx, depending on @rye/core and nine npm packages —
 * published to the same Verdaccio together with its @rye/core, its npm dependencies proxied from the npm
 * registry. @modelcontextprotocol/inspector is installed the same way for scale.
 *
 *   node --import tsx packages/rye/bench/package.bench.ts [--baseline 9edb237] [--no-inspector]
 */
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { startVerdaccio } from "../test/verdaccio.ts";

const exec = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("../", import.meta.url));
const REPO = join(PACKAGE_DIR, "..", "..");
const { values } = parseArgs({ options: { baseline: { type: "string" }, "no-inspector": { type: "boolean" } } });
const scratch = await mkdtemp(join(tmpdir(), "rye-package-bench-"));
const upstream = (await exec("npm", ["config", "get", "registry"])).stdout.trim() || "https://registry.npmjs.org/";

async function pack(dir: string, into: string): Promise<string> {
  const { stdout } = await exec("npm", ["pack", "--json", "--pack-destination", into], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  return join(into, (JSON.parse(stdout) as [{ filename: string }])[0].filename);
}

/** The baseline: packages/rye and packages/core of `ref`, renamed ryeos@0.0.1 and made publishable. */
async function baselineTarballs(ref: string): Promise<string[]> {
  const dir = join(scratch, "baseline");
  await mkdir(dir, { recursive: true });
  const archive = join(scratch, "baseline.tar");
  await exec("git", ["archive", "--output", archive, ref, "packages/rye", "packages/core"], { cwd: REPO });
  await exec("tar", ["-xf", archive, "-C", dir]);
  const edit = async (path: string, change: (p: Record<string, unknown>) => void) => {
    const pkg = JSON.parse(await readFile(path, "utf8"));
    change(pkg);
    await writeFile(path, JSON.stringify(pkg, null, 2));
  };
  await edit(join(dir, "packages/core/package.json"), (p) => delete p.private);
  await edit(join(dir, "packages/rye/package.json"), (p) => {
    p.name = "ryeos";
    p.version = "0.0.1";
  });
  return [await pack(join(dir, "packages/core"), scratch), await pack(join(dir, "packages/rye"), scratch)];
}

interface Install {
  dir: string;
  seconds: number;
  bytes: number;
  packages: number;
}

async function install(spec: string, registry: string): Promise<Install> {
  const dir = await mkdtemp(join(scratch, "install-"));
  const env = { PATH: process.env.PATH ?? "", HOME: dir, npm_config_cache: join(dir, ".npm-cache"), npm_config_registry: registry, npm_config_update_notifier: "false" };
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "bench-install", version: "1.0.0", private: true }));
  const started = performance.now();
  await exec("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", spec], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  const du = await exec("du", ["-sk", join(dir, "node_modules")]);
  const listed = await exec("npm", ["ls", "--all", "--parseable"], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 }).catch((e: { stdout: string }) => e);
  const packages = new Set(listed.stdout.split("\n").filter((line) => line.includes("node_modules"))).size;
  return { dir, seconds, bytes: Number(du.stdout.split("\t")[0]) * 1024, packages };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeHelp(dir: string, runs = 10): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await exec(join(dir, "node_modules", ".bin", "rye"), ["--help"], { cwd: dir, env: { ...process.env, HOME: dir } });
    times.push(performance.now() - started);
  }
  return median(times);
}

async function timeMcpInitialize(dir: string, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const child = spawn(join(dir, "node_modules", ".bin", "rye"), ["mcp"], { cwd: dir, env: { ...process.env, HOME: dir, RYE_OFFLINE: "1" }, stdio: ["pipe", "pipe", "ignore"] });
    const answered = new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes('"id":1')) resolve();
      });
      child.on("exit", (code) => reject(new Error(`rye mcp exited (${code}) before answering`)));
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`);
    await answered;
    times.push(performance.now() - started);
    child.kill();
  }
  return median(times);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (x: number) => `${Math.round(x)} ms`;
const verdaccio = await startVerdaccio(join(scratch, "verdaccio"), { uplink: upstream, local: ["ryeos", "@rye/*"] });
try {
  await exec(process.execPath, [join(PACKAGE_DIR, "scripts", "build.mjs")], { cwd: PACKAGE_DIR });
  const tarball = await pack(PACKAGE_DIR, scratch);
  await verdaccio.publish(tarball);
  const version = JSON.parse(await readFile(join(PACKAGE_DIR, "package.json"), "utf8")).version as string;
  const rows: { name: string; install: Install; help?: number; mcp?: number }[] = [];
  const after = await install(`ryeos@${version}`, `${verdaccio.url}/`);
  rows.push({ name: `ryeos@${version} (this checkout)`, install: after, help: await timeHelp(after.dir), mcp: await timeMcpInitialize(after.dir) });
  if (values.baseline) {
    for (const t of await baselineTarballs(values.baseline)) await verdaccio.publish(t, "baseline");
    const before = await install("ryeos@0.0.1", `${verdaccio.url}/`);
    rows.push({ name: `rye workspace package at ${values.baseline} (tsx)`, install: before, help: await timeHelp(before.dir), mcp: await timeMcpInitialize(before.dir) });
  }
  if (!values["no-inspector"]) {
    rows.push({ name: "@modelcontextprotocol/inspector (for scale)", install: await install("@modelcontextprotocol/inspector", `${verdaccio.url}/`) });
  }
  const tgz = (await exec("du", ["-k", tarball])).stdout.split("\t")[0];
  console.log(`node ${process.version}; ryeos tarball ${tgz} KB`);
  console.log("| package | install time | node_modules | packages | rye --help (median) | rye mcp → initialize (median) |");
  console.log("|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.install.seconds.toFixed(1)} s | ${mb(r.install.bytes)} | ${r.install.packages} | ${r.help === undefined ? "–" : ms(r.help)} | ${r.mcp === undefined ? "–" : ms(r.mcp)} |`);
  }
  const [a, ...others] = rows;
  for (const o of others) {
    const ratio = (x: number, y: number) => `${(x / y).toFixed(1)}×`;
    console.log(`ratios ${o.name} / ryeos: size ${ratio(o.install.bytes, a!.install.bytes)}, packages ${o.install.packages}/${a!.install.packages}` +
      (o.help !== undefined ? `, --help ${ratio(o.help, a!.help!)}, mcp ${ratio(o.mcp!, a!.mcp!)}` : ""));
  }
} finally {
  await verdaccio.stop();
  await rm(scratch, { recursive: true, force: true });
}
