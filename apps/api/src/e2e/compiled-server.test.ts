/**
 * Production runs compiled JavaScript (issue #15 item 2): `npm run start:api` / `npm start` go through
 * scripts/build-server.mjs, which bundles the server when its output is missing or older than its sources and
 * then runs the bundle. Here the API bundle runs under plain Node with type stripping turned off — any
 * TypeScript module loaded at run time would fail — and serves the system bundle it seeded from the checkout;
 * the operator CLI (`npm run registry`) the same way.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, utimesSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ensureServerBuild, SERVER_TARGETS, serverBuildIsStale } from "../../../../scripts/build-server.mjs";
import { freePortBelowEphemeralRange } from "../../test/free-port.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

test("the API builds when stale, then runs as JavaScript with no TypeScript loader", { timeout: 180_000 }, async () => {
  const outfile = join(ROOT, (SERVER_TARGETS as Record<string, { outfile: string }>).api!.outfile);
  await ensureServerBuild("api", () => {});
  assert.equal(serverBuildIsStale("api"), false, "fresh right after a build");
  // Older than its sources → stale → rebuilt.
  const past = new Date(Date.now() - 365 * 24 * 3600_000);
  utimesSync(outfile, past, past);
  assert.equal(serverBuildIsStale("api"), true);
  const messages: string[] = [];
  assert.equal(await ensureServerBuild("api", (m: string) => messages.push(m)), true);
  assert.match(messages.join("\n"), /building the api server/);
  assert.equal(serverBuildIsStale("api"), false);
  assert.equal(await ensureServerBuild("api", () => {}), false, "no second build while fresh");
  assert.ok(existsSync(`${outfile}.map`), "with a source map");

  const dataDir = await mkdtemp(join(tmpdir(), "rye-compiled-"));
  const port = await freePortBelowEphemeralRange();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: "127.0.0.1", RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "warn" };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS; // the test runner's tsx loader must not reach the server
  const server = spawn(process.execPath, ["--no-experimental-strip-types", join(ROOT, "scripts/build-server.mjs"), "api", "--run"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (d) => (stderr += d));
  try {
    const base = `http://127.0.0.1:${port}`;
    while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) {
      assert.equal(server.exitCode, null, `the server exited: ${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Seeded from the repository's .ai/ (paths computed from the sources' locations still hold in the bundle).
    const res = await fetch(`${base}/v1/pull/tool/rye/rye/file-system/fs_read`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { item_id: string; signature: { fingerprint: string } };
    assert.equal(body.item_id, "rye/rye/file-system/fs_read");
    assert.ok(body.signature.fingerprint);
  } finally {
    server.kill("SIGTERM");
    if (server.exitCode === null) await once(server, "exit");
    await rm(dataDir, { recursive: true, force: true });
  }
  assert.equal(server.exitCode, 0, stderr);
});

test("the operator CLI runs compiled too, with its arguments", { timeout: 120_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const out = execFileSync(process.execPath, ["--no-experimental-strip-types", join(ROOT, "scripts/build-server.mjs"), "registry", "--run", "keys", "--help"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.match(out, /Usage: registry keys/);
  assert.match(out, /rotate/);
});
