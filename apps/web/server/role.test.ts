/** RYE_ROLE for `npm start` (apps/web/server/main.ts): `api` serves the API alone; `web` needs the API's address. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, freePortBelowEphemeralRange } from "../../api/test/free-port.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { env: { ...process.env, DATABASE_URL: "", HOST: "127.0.0.1", RYE_LOG_LEVEL: "info", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return { child, stdout: () => stdout, stderr: () => stderr, exited: once(child, "exit").then(() => child.exitCode) };
}

test("RYE_ROLE=api: the API alone (no website build), probes answer, SIGTERM exits 0", { timeout: 120_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-role-api-"));
  const port = await freePortBelowEphemeralRange();
  const server = start({ RYE_ROLE: "api", PORT: String(port), RYE_DATA_DIR: dataDir });
  try {
    const base = `http://127.0.0.1:${port}`;
    while (!(await fetch(`${base}/ready`).then((r) => r.ok, () => false))) {
      assert.equal(server.child.exitCode, null, `the server exited: ${server.stderr()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal((await fetch(`${base}/v1/keys`)).status, 200);
    const site = await fetch(`${base}/`);
    assert.equal(site.status, 404, "no website in this role");
    assert.equal(((await site.json()) as { error: { code: string } }).error.code, "NOT_FOUND");
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0, server.stderr());
    const lines = server.stdout().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.every((l) => l.role === "api" && l.pid === server.child.pid), "every log line names the role and the process");
    assert.ok(lines.some((l) => l.msg === "stopped"));
  } finally {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("RYE_ROLE=web without RYE_INTERNAL_API_URL, or an unknown role, stops at start with the reason", { timeout: 60_000 }, async () => {
  const web = start({ RYE_ROLE: "web", PORT: String(await freePort()), RYE_INTERNAL_API_URL: "" });
  assert.equal(await web.exited, 1);
  assert.match(web.stderr(), /error\[BAD_REQUEST\]: RYE_ROLE=web needs RYE_INTERNAL_API_URL/);
  const bogus = start({ RYE_ROLE: "everything", PORT: String(await freePort()) });
  assert.equal(await bogus.exited, 1);
  assert.match(bogus.stderr(), /RYE_ROLE: expected api, web or all/);
});
