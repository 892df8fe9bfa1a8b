/**
 * A registry API as its own process for tests that need one (the Go verifier, witnesses): started from the sources on
 * `port`, ready when `/ready` answers, with alice signed up and a `push(name)` that publishes `alice/notes/<name>`.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { knowledgeItem } from "../bench/load.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface RegistryProcess {
  url: string;
  server: ChildProcess;
  /** Publishes knowledge `alice/notes/<name>@1.0.0`. */
  push(name: string): Promise<void>;
  stop(): Promise<void>;
}

export type SpawnedRegistry = Pick<RegistryProcess, "url" | "server" | "stop">;

/**
 * `npm start`'s entry (apps/api/src/main.ts) from the sources as a child with exactly `env` (PORT in it), in `cwd`;
 * resolves once `/ready` answers, and fails with the server's standard error if it exits or does not get there.
 */
export async function spawnRegistry(env: NodeJS.ProcessEnv, cwd = ROOT): Promise<SpawnedRegistry> {
  const url = `http://127.0.0.1:${env.PORT}`;
  // tsx resolved from here: `cwd` may be a folder without node_modules.
  const server = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(ROOT, "apps/api/src/main.ts")], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(d);
  });
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    server.kill("SIGTERM");
    await once(server, "exit");
  };
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the registry exited with ${server.exitCode}: ${stderr}`);
    if (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) break;
    if (i > 1200) {
      await stop();
      throw new Error(`the registry did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, server, stop };
}

/** Starts the registry on `port` with `env` (DATABASE_URL, RYE_* settings) over the test process's environment. */
export async function startRegistryProcess(port: number, dataDir: string, env: Record<string, string>): Promise<RegistryProcess> {
  const base = `http://127.0.0.1:${port}`;
  const { url, server, stop } = await spawnRegistry({ ...process.env, PORT: String(port), HOST: "127.0.0.1", RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: base, RYE_LOG_LEVEL: "error", ...env });
  const signup = await fetch(`${url}/v1/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "alice", email: "alice@example.test", password: "correct horse battery staple" }) });
  assert.equal(signup.status, 201);
  const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
  const { csrf_token } = (await signup.json()) as { csrf_token: string };
  const tokenRes = await fetch(`${url}/v1/tokens`, { method: "POST", headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf_token }, body: JSON.stringify({ name: "t", scopes: ["items:write"] }) });
  const { token } = (await tokenRes.json()) as { token: string };
  const push = async (name: string) => {
    const res = await fetch(`${url}/v1/push`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ item_type: "knowledge", item_id: `alice/notes/${name}`, version: "1.0.0", content: knowledgeItem(name) }) });
    assert.equal(res.status, 201, await res.text());
  };
  return { url, server, push, stop };
}
