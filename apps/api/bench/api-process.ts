/** A registry API as its own process for benches: started on a free loopback port, ready when /health answers. */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../test/free-port.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

export interface ApiProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ApiProcessOptions {
  /** The built server (apps/api/dist/main.js) or the sources through tsx; default the sources. */
  runtime?: "dist" | "tsx";
  /** Another built server to run instead (a bundle next to apps/api/dist/main.js, e.g. an earlier build kept to compare against). */
  entry?: string;
  /** A fresh data directory (embedded PGlite) made with this prefix and removed on stop; else `env` says where. */
  dataDirPrefix?: string;
  logLevel?: string;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** Starts the API with `env` over the caller's environment, rate limits out of the way of the load generator. */
export async function startApiProcess(env: NodeJS.ProcessEnv, options: ApiProcessOptions = {}): Promise<ApiProcess> {
  const port = await freePort();
  const dataDir = options.dataDirPrefix ? await mkdtemp(join(tmpdir(), options.dataDirPrefix)) : undefined;
  const entry = options.entry ? [options.entry] : options.runtime === "dist" ? [join(root, "apps/api/dist/main.js")] : ["--import", "tsx", join(root, "apps/api/src/main.ts")];
  const child = spawn(process.execPath, entry, {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      ...(dataDir ? { RYE_DATA_DIR: dataDir } : {}),
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      RYE_LOG_LEVEL: options.logLevel ?? "error",
      RYE_RATE_LIMIT_READS: "1000000000",
      RYE_RATE_LIMIT_WRITES: "1000000000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the registry exited with ${child.exitCode}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error("the registry did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      await stopChild(child);
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
