/**
 * The real one-origin server (`node --import tsx apps/web/server/main.ts`, what `npm start` runs) on a
 * free loopback port, a fresh data directory and a fresh database: a scratch PostgreSQL database on the
 * server of DATABASE_URL when it is set, else the embedded PGlite in the data directory.
 *
 * The website build is shared by everyone working in the checkout (apps/web/.next), so it is rebuilt
 * under the same lock as `flock /tmp/rye-next-build.lock npm run build:web`, and a running test server
 * holds that lock in shared mode: nobody rebuilds .next under a server that is being tested.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { newestWebInputMtime, webBuildIsStale } from "../../apps/web/server/build.ts";
import { createScratchPostgresDatabase } from "../../packages/db/src/scratch-database.ts";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const webDir = join(repoRoot, "apps/web");
export const BUILD_LOCK = process.env.RYE_NEXT_BUILD_LOCK ?? "/tmp/rye-next-build.lock";

export interface RyeServer {
  /** http://127.0.0.1:<port>, the registry's public URL too. */
  baseURL: string;
  port: number;
  /** The scratch PostgreSQL database of this server, or undefined on PGlite. */
  databaseUrl: string | undefined;
  kind: "postgres" | "pglite";
  dataDir: string;
  /** The server's stdout and stderr (JSON logs). */
  logFile: string;
  stop(): Promise<void>;
}

function log(message: string): void {
  process.stderr.write(`e2e: ${message}\n`);
}

function hasFlock(): boolean {
  return spawnSync("flock", ["--version"], { stdio: "ignore" }).status === 0;
}

/** A process holding the build lock in shared mode until release() (or until this process dies). */
interface LockHolder {
  release(): void;
}

async function holdSharedLock(): Promise<LockHolder> {
  reportIfBusy("-s");
  const child = spawn("flock", ["-s", BUILD_LOCK, "sh", "-c", "echo locked; exec cat >/dev/null"], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolvePromise, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`flock -s ${BUILD_LOCK} exited with ${code}`)));
    child.stdout!.once("data", () => resolvePromise());
  });
  child.removeAllListeners("exit");
  return { release: () => child.stdin!.end() };
}

/**
 * Who holds the build lock, for "waiting for the lock" messages: the processes that have the lock file
 * open (a child started under `flock` inherits it) minus those queued for it in /proc/locks.
 */
export function lockHolders(): string {
  try {
    const inode = statSync(BUILD_LOCK).ino;
    const waiting = new Set(
      readFileSync("/proc/locks", "utf8")
        .split("\n")
        .filter((l) => l.includes("->") && l.includes(`:${inode} `))
        .map((l) => l.replace(/^.*->\s*/, "").split(/\s+/)[3]!),
    );
    const holders: string[] = [];
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d) && !waiting.has(d))) {
      try {
        const fds = readdirSync(`/proc/${pid}/fd`);
        if (!fds.some((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`) === BUILD_LOCK; } catch { return false; } })) continue;
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
        holders.push(`pid ${pid}: ${cmd.slice(0, 120)}`);
      } catch {
        // not ours to read, or gone
      }
    }
    return holders.join("; ") || "unknown";
  } catch {
    return "unknown";
  }
}

/** Logs who is in the way when `flock` cannot take the lock at once (mode -s: shared, -x: exclusive). */
function reportIfBusy(mode: "-s" | "-x"): void {
  if (spawnSync("flock", ["-n", mode, BUILD_LOCK, "true"], { stdio: "ignore" }).status !== 0) {
    log(`waiting for ${BUILD_LOCK} (held by ${lockHolders()}). A server started under \`flock\` keeps the lock until it exits: start servers after the build, not inside it.`);
  }
}

function buildUnderLock(): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const args = ["--import", "tsx", join(repoRoot, "e2e/helpers/build-web.ts")];
    if (hasFlock()) reportIfBusy("-x");
    const child = hasFlock()
      ? spawn("flock", [BUILD_LOCK, process.execPath, ...args], { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] })
      : spawn(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolvePromise()
        : reject(new Error(`next build failed (exit ${code}); see its output above. In a shared checkout, another engineer's half-written file can cause this: retry in a minute.`)),
    );
  });
}

/** Written when a build fails: later workers of the run fail at once instead of building the same sources again. */
const FAILED_MARKER = join(repoRoot, "test-results/.next-build-failed");
async function build(): Promise<void> {
  if (existsSync(FAILED_MARKER) && newestWebInputMtime(webDir) <= statSync(FAILED_MARKER).mtimeMs) {
    throw new Error(`next build failed earlier in this run (${readFileSync(FAILED_MARKER, "utf8").trim()}) and no website source changed since: not building again. Fix the build (flock ${BUILD_LOCK} npm run build:web shows why).`);
  }
  try {
    await buildUnderLock();
    rmSync(FAILED_MARKER, { force: true });
  } catch (err) {
    mkdirSync(dirname(FAILED_MARKER), { recursive: true });
    writeFileSync(FAILED_MARKER, `at ${new Date().toISOString()}\n`);
    throw err;
  }
}

/** Builds the site when stale, then holds the build lock (shared) so it stays as built while tests run. */
export async function freshBuild(): Promise<LockHolder> {
  if (!hasFlock()) {
    if (webBuildIsStale(webDir)) await build();
    return { release() {} };
  }
  for (let attempt = 1; attempt <= 5; attempt++) {
    if (webBuildIsStale(webDir)) {
      log("the website build is stale: next build (under the build lock)");
      await build();
    }
    const holder = await holdSharedLock();
    if (!webBuildIsStale(webDir)) return holder;
    // Someone changed a source file between the build and the lock: build again.
    holder.release();
  }
  log("the website sources keep changing; testing the build the server makes at start");
  return holdSharedLock();
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePromise(port));
    });
  });
}

async function waitForHealth(baseURL: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null | undefined;
  child.once("exit", (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`the server exited with ${exited} before it was ready:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${baseURL}/health`);
      // /health answers as soon as the API listens; the site is ready when its first page renders.
      if (res.ok && (await fetch(`${baseURL}/`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server did not become ready within ${timeoutMs / 1000}s:\n${tail(logFile)}`);
}

export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return "(no server log)";
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

export async function startServer(options: { env?: Record<string, string>; logDir?: string } = {}): Promise<RyeServer> {
  const lock = await freshBuild();
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(join(tmpdir(), "rye-e2e-"));
  const serverUrl = process.env.DATABASE_URL;
  const scratch = serverUrl ? await createScratchPostgresDatabase(serverUrl) : undefined;
  const logDir = options.logDir ?? join(repoRoot, "test-results/server-logs");
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `server-${port}.log`);
  const out = createWriteStream(logFile);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    HOST: "127.0.0.1",
    RYE_DATA_DIR: dataDir,
    RYE_REGISTRY_URL: baseURL,
    RYE_LOG_LEVEL: process.env.RYE_E2E_LOG_LEVEL ?? "warn",
    // Every request of a run comes from 127.0.0.1: the default per-IP limits would throttle the suite.
    RYE_RATE_LIMIT_READS: "100000",
    RYE_RATE_LIMIT_WRITES: "10000",
    // Webhook receivers of the tests listen on 127.0.0.1; deliveries are looked for often.
    RYE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "1",
    RYE_WEBHOOK_POLL_MS: "200",
    RYE_WEBHOOK_RETRY_BASE_MS: "500",
    ...options.env,
  };
  if (scratch) env.DATABASE_URL = scratch.url;
  else delete env.DATABASE_URL;
  log(`starting the server on ${baseURL} (${scratch ? "PostgreSQL" : "PGlite"}, data ${dataDir}, log ${logFile})`);
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "apps/web/server/main.ts")], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  child.once("exit", () => out.end());
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      lock.release();
      await scratch?.drop().catch((err: Error) => log(`could not drop the scratch database: ${err.message}`));
      await rm(dataDir, { recursive: true, force: true });
    })());
  try {
    await waitForHealth(baseURL, child, logFile, 240_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseURL, port, databaseUrl: scratch?.url, kind: scratch ? "postgres" : "pglite", dataDir, logFile, stop };
}
