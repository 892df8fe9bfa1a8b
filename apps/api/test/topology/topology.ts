/**
 * The scaled-out topology as processes: N API processes (`tsx apps/api/src/main.ts`, as the other process tests
 * run the server) on one PostgreSQL database, behind a real haproxy (Debian's /usr/sbin/haproxy, `-db`: in the
 * foreground) whose configuration is written to a temp directory. Used by topology.test.ts and the topology bench.
 *
 * - The processes share the database and the registry key directory; each has its own data directory.
 * - haproxy health-checks GET /ready every 200 ms, retries a failed connection on another process, and routes a
 *   request carrying `X-Rye-Target: <process name>` to that process (so a test can say "through A", "through B");
 *   every answer says which process served it in `X-Served-By`.
 * - `env` is added to every API process's environment (e.g. an S3 blob store's RYE_S3_* variables).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchPostgresDatabase } from "@rye/db/testing";
import { programMissing, programPath } from "../../../../scripts/test-requirements.ts";
import { freePort, freePortBelowEphemeralRange } from "../free-port.ts";

/** haproxy: $RYE_HAPROXY, else found on PATH or in /usr/sbin (Debian's). */
export const HAPROXY = programPath("haproxy") ?? process.env.RYE_HAPROXY ?? "/usr/sbin/haproxy";
const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Why the topology cannot run here, or false. */
export function topologyUnavailable(): string | false {
  if (!process.env.DATABASE_URL) return "needs DATABASE_URL (PostgreSQL): several processes cannot share PGlite";
  return programMissing("haproxy");
}

export interface ApiProcess {
  name: string;
  port: number;
  /** The process's own address (bypassing the balancer). */
  url: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything it wrote to stdout (JSON log lines) and stderr. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export interface Topology {
  /** The balancer's address: what clients use. */
  url: string;
  databaseUrl: string;
  keyDir: string;
  processes: ApiProcess[];
  /** Starts process `name` again on its port (after it was stopped or killed) and waits until haproxy routes to it. */
  restart(name: string): Promise<ApiProcess>;
  /** Until haproxy's health checks have every running process up. */
  waitRouted(): Promise<void>;
  stop(): Promise<void>;
}

export interface TopologyOptions {
  processes?: number;
  /** Extra environment of every API process (the lead's S3 store: `startS3Server().env`). */
  env?: Record<string, string>;
  /** haproxy's `stdout`/`stderr` (for debugging). */
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a process may take to become ready, and haproxy to route to it. */
const START_DEADLINE_MS = 60_000;

function haproxyConfig(port: number, servers: { name: string; port: number }[]): string {
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-keep-alive 2s
  # A connection refused or reset before an answer is tried again, on another process.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response
  # One request per server-side connection: no keep-alive reuse to race with a process closing its sockets.
  option http-server-close
  option forwardfor

frontend registry
  bind 127.0.0.1:${port}
  default_backend api

backend api
  balance roundrobin
  option httpchk
  http-check send meth GET uri /ready ver HTTP/1.1 hdr host registry
  http-check expect status 200
  default-server inter 200ms fastinter 100ms downinter 200ms fall 1 rise 1
  http-response set-header X-Served-By %s
${servers.map((s) => `  use-server ${s.name} if { req.hdr(x-rye-target) -m str ${s.name} }`).join("\n")}
${servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`).join("\n")}
`;
}

export async function startTopology(options: TopologyOptions = {}): Promise<Topology> {
  const unavailable = topologyUnavailable();
  if (unavailable) throw new Error(unavailable);
  const count = options.processes ?? 2;
  const work = await mkdtemp(join(tmpdir(), "rye-topology-"));
  const keyDir = join(work, "keys");
  const scratch = await createScratchPostgresDatabase();
  const balancerPort = await freePort();
  const url = `http://127.0.0.1:${balancerPort}`;
  const slots = await Promise.all(Array.from({ length: count }, async (_, i) => ({ name: String.fromCharCode(97 + i), port: await freePortBelowEphemeralRange() })));

  function launch(slot: { name: string; port: number }): ApiProcess {
    const dataDir = join(work, `data-${slot.name}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: scratch.url,
      PORT: String(slot.port),
      HOST: "127.0.0.1",
      RYE_DATA_DIR: dataDir,
      RYE_REGISTRY_KEY_DIR: keyDir,
      RYE_REGISTRY_URL: url,
      RYE_TRUST_PROXY: "true",
      RYE_LOG_LEVEL: "info",
      RYE_SHUTDOWN_DRAIN_DELAY_MS: "1000",
      RYE_SHUTDOWN_TIMEOUT_MS: "10000",
      ...options.env,
    };
    const child = spawn(process.execPath, ["--import", "tsx", MAIN], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = once(child, "exit").then(() => child.exitCode);
    return { name: slot.name, port: slot.port, url: `http://127.0.0.1:${slot.port}`, dataDir, child, stdout: () => stdout, stderr: () => stderr, exited };
  }

  async function waitReady(p: ApiProcess): Promise<void> {
    const deadline = Date.now() + START_DEADLINE_MS;
    for (;;) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`API process ${p.name} exited: ${p.stderr()}`);
      if (Date.now() > deadline) throw new Error(`API process ${p.name} was not ready within ${START_DEADLINE_MS} ms: ${p.stderr()}`);
      if (await fetch(`${p.url}/ready`).then((r) => r.ok, () => false)) return;
      await sleep(100);
    }
  }

  // The first process migrates and seeds; the others start on the migrated database (each would also wait on the
  // migration lock, but starting them after keeps the CPU of a small CI machine for one at a time).
  const processes: ApiProcess[] = [launch(slots[0]!)];
  await waitReady(processes[0]!);
  for (const slot of slots.slice(1)) processes.push(launch(slot));
  await Promise.all(processes.map(waitReady));

  const configPath = join(work, "haproxy.cfg");
  await writeFile(configPath, haproxyConfig(balancerPort, slots));
  const haproxy = spawn(HAPROXY, ["-db", "-f", configPath], { stdio: ["ignore", "pipe", "pipe"] });
  let haproxyOutput = "";
  for (const stream of [haproxy.stdout!, haproxy.stderr!]) stream.on("data", (d) => {
    haproxyOutput += d;
    options.log?.(String(d));
  });

  /** Asks each running process by name through the balancer until each answers as itself. */
  async function waitRouted(): Promise<void> {
    for (const p of processes) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      const deadline = Date.now() + START_DEADLINE_MS;
      for (;;) {
        if (haproxy.exitCode !== null) throw new Error(`haproxy exited: ${haproxyOutput}`);
        if (Date.now() > deadline) {
          haproxy.kill("SIGTERM");
          throw new Error(`haproxy did not route to ${p.name} within ${START_DEADLINE_MS} ms: ${haproxyOutput}`);
        }
        const servedBy = await fetch(`${url}/ready`, { headers: { "x-rye-target": p.name } }).then((r) => (r.ok ? r.headers.get("x-served-by") : null), () => null);
        if (servedBy === p.name) break;
        await sleep(100);
      }
    }
  }
  await waitRouted();

  return {
    url,
    databaseUrl: scratch.url,
    keyDir,
    processes,
    waitRouted,
    async restart(name) {
      const index = processes.findIndex((p) => p.name === name);
      const old = processes[index]!;
      if (old.child.exitCode === null && old.child.signalCode === null) throw new Error(`process ${name} is still running`);
      const fresh = launch(slots[index]!);
      processes[index] = fresh;
      await waitReady(fresh);
      await waitRouted();
      return fresh;
    },
    async stop() {
      haproxy.kill("SIGTERM");
      await Promise.all(
        processes.map(async (p) => {
          if (p.child.exitCode === null && p.child.signalCode === null) {
            p.child.kill("SIGTERM");
            await p.exited;
          }
        }),
      );
      if (haproxy.exitCode === null && haproxy.signalCode === null) await once(haproxy, "exit");
      await scratch.drop();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** The admin endpoint file a process wrote (its loopback URL and secret). */
export async function adminEndpointOf(p: ApiProcess): Promise<{ url: string; secret: string }> {
  return JSON.parse(await readFile(join(p.dataDir, "admin.json"), "utf8")) as { url: string; secret: string };
}
