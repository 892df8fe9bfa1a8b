/**
 * A supervisor restarting the API on its embedded database (PGlite) right after `kill -9`: the killed server is a
 * zombie its parent has not reaped yet, and still named by the data directory's lock. Every restart must serve,
 * with what was written before the kill. And a second server on a data directory a live one holds is refused with
 * DATA_DIR_IN_USE (not INTERNAL), naming the holder.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePortBelowEphemeralRange } from "../../test/free-port.ts";
import { readAdminFile } from "../services/admin-endpoint.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const ROUNDS = 10;
const linux = existsSync("/proc/self/stat");

function stateOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];
  } catch {
    return undefined;
  }
}

/**
 * The server started by a parent that never reaps it, like a supervisor that has not yet handled SIGCHLD: the parent
 * prints the server's pid, then blocks its event loop for good. Killed, the server stays a zombie until the parent goes.
 */
async function startUnreaped(env: NodeJS.ProcessEnv): Promise<{ parent: ChildProcess; pid: number; stderr: () => string }> {
  const launcher = `const c = require("node:child_process").spawn(process.execPath, ["--import", "tsx", ${JSON.stringify(MAIN)}], { stdio: ["ignore", "ignore", "inherit"] });
    console.log(c.pid); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`;
  const parent = spawn(process.execPath, ["-e", launcher], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  parent.stderr!.on("data", (d) => (stderr += d));
  const [line] = (await once(parent.stdout!, "data")) as [Buffer];
  return { parent, pid: Number(line.toString().trim()), stderr: () => stderr };
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms: number, why: () => string, serverPid?: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms: ${why()}`);
    // A server that exited (a zombie under its never-reaping parent) will not answer: say why at once.
    if (serverPid !== undefined) assert.notEqual(stateOf(serverPid) ?? "Z", "Z", `${what}: the server exited: ${why()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("restarting the API on PGlite", () => {
  test(`kill -9 and an immediate restart, ${ROUNDS} times: every restart serves what was written before; a second server beside a live one gets DATA_DIR_IN_USE`, { skip: !linux && "zombies are observed in /proc (Linux)", timeout: 600_000 }, async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "rye-crash-"));
    const port = await freePortBelowEphemeralRange();
    const base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env, HOST: "127.0.0.1", PORT: String(port), RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "warn" };
    delete env.DATABASE_URL;
    const tokens = new Map<string, string>();
    let server = await startUnreaped(env);
    const parents = [server.parent];
    try {
      const started = Date.now();
      // The first start creates the database (initdb, migrations, seed): minutes on a busy machine.
      await until("the first start answers /health", () => fetch(`${base}/health`).then((r) => r.ok, () => false), 300_000, server.stderr, server.pid);
      t.diagnostic(`first start (new database): serving after ${Date.now() - started} ms`);
      for (let round = 0; round <= ROUNDS; round++) {
        for (const [username, token] of tokens) {
          const me = await call(base, "/v1/me", { headers: { authorization: `Bearer ${token}` } });
          assert.equal(me.status, 200, `round ${round}: ${username}'s token: ${JSON.stringify(me.body)}`);
          assert.equal(me.body.username, username);
        }
        assert.equal((await fetch(`${base}/v1/pull/tool/rye/rye/file-system/fs_read`)).status, 200, "the seeded items are there");
        if (round === ROUNDS) break;

        // Write an account through this server's admin endpoint, then kill it and start the next one at once.
        await until("the server's admin.json", async () => (await readAdminFile(dataDir))?.pid === server.pid, 30_000, server.stderr);
        const admin = (await readAdminFile(dataDir))!;
        const headers = { "content-type": "application/json", "x-rye-admin-secret": admin.secret };
        const username = `crash${round}`;
        const user = await call(base, "/v1/admin/users", { method: "POST", headers, body: JSON.stringify({ username, email: `${username}@example.test` }) });
        assert.equal(user.status, 201, JSON.stringify(user.body));
        const token = await call(base, "/v1/admin/tokens", { method: "POST", headers, body: JSON.stringify({ username, scopes: ["items:read"] }) });
        assert.equal(token.status, 201, JSON.stringify(token.body));
        tokens.set(username, token.body.token as string);

        const killed = server.pid;
        process.kill(killed, "SIGKILL");
        const killedAt = Date.now();
        server = await startUnreaped(env);
        parents.push(server.parent);
        await until("the killed server is a zombie", () => stateOf(killed) === "Z", 10_000, () => `state ${stateOf(killed)}`);
        // Serving while the killed one is still a zombie: the restart took its lock over, it did not wait for a reaper.
        await until("the restart answers /health", () => fetch(`${base}/health`).then((r) => r.ok, () => false), 120_000, server.stderr, server.pid);
        t.diagnostic(`restart ${round + 1}: serving ${Date.now() - killedAt} ms after kill -9`);
        assert.equal(stateOf(killed), "Z", "the killed server was never reaped meanwhile");
        parents.shift()!.kill("SIGKILL"); // its parent gone, init reaps the zombie
      }
      assert.doesNotMatch(server.stderr(), /error\[/);

      // The last one is alive: a second server on its data directory is refused, and the live one keeps serving.
      const second = spawn(process.execPath, ["--import", "tsx", MAIN], { env: { ...env, PORT: String(await freePortBelowEphemeralRange()) }, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      second.stderr!.on("data", (d) => (stderr += d));
      const [code] = (await once(second, "exit")) as [number];
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`^error\\[DATA_DIR_IN_USE\\]: the embedded database in .*pglite is in use by process ${server.pid} \\(waited \\d+ ms for it to exit\\)\\nhint: Stop the other rye server \\(process ${server.pid}\\).*RYE_DATA_DIR.*\\n$`));
      assert.doesNotMatch(stderr, /INTERNAL|bug in rye|\n\s+at /);
      assert.equal((await fetch(`${base}/health`)).status, 200, "the live server is untouched");
    } finally {
      process.kill(server.pid, "SIGKILL");
      for (const parent of parents) parent.kill("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
