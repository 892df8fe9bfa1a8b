/**
 * `npm start` on the embedded database (a single-process PGlite) and the operator CLI at the same time:
 * the CLI goes through the server's loopback admin endpoint; once the server stops, straight to the database.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/free-port.ts";
import { spawnRegistry } from "../../test/registry-process.ts";

const API = fileURLToPath(new URL("..", import.meta.url));

function run(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(API, script), ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.end(input ?? "");
    child.on("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

test("operator commands work while npm start runs on PGlite, and after it stops", { timeout: 120_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "rye-operator-"));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), RYE_DATA_DIR: dataDir, RYE_LOG_LEVEL: "warn" };
  delete env.DATABASE_URL;
  const registry = await spawnRegistry(env);
  try {
    const base = registry.url;
    while (!existsSync(join(dataDir, "admin.json"))) await new Promise((r) => setTimeout(r, 50));

    const user = await run("cli/registry-cli.ts", ["users", "create", "erin", "--email", "erin@example.test", "--password-stdin"], env, "a long enough password\n");
    assert.equal(user.code, 0, user.stdout + user.stderr);
    assert.equal(JSON.parse(user.stdout).username, "erin");
    const token = await run("cli/registry-cli.ts", ["tokens", "create", "erin", "--expires", "30d", "--scope", "items:read", "items:write"], env);
    assert.equal(token.code, 0, token.stdout);
    const secret = /"token": "(rye_pat_[^"]+)"/.exec(token.stdout)![1]!;
    assert.match(token.stdout, /shown only once/);

    const push = await fetch(`${base}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: "knowledge", item_id: "erin/notes/hi", version: "1.0.0", content: "---\nid: hi\ntitle: Hi\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nHi.\n" }),
    });
    assert.equal(push.status, 201, await push.clone().text());

    const org = await run("cli/registry-cli.ts", ["orgs", "create", "acme", "--owner", "erin"], env);
    assert.equal(org.code, 0, org.stdout);
    const dup = await run("cli/registry-cli.ts", ["users", "create", "erin", "--email", "other@example.test"], env);
    assert.equal(dup.code, 1);
    assert.match(dup.stdout, /error\[CONFLICT\]/);

    const rotated = await run("cli/registry-cli.ts", ["keys", "rotate"], env);
    assert.equal(rotated.code, 0, rotated.stdout);
    const keys = (await (await fetch(`${base}/v1/keys`)).json()) as { active: string; keys: unknown[] };
    assert.equal(keys.keys.length, 2);
    assert.equal(keys.active, JSON.parse(rotated.stdout).next, "the running server signs with the new key");

    // Start-up made every quality and safety signal current (docs/quality.md): a refresh through the server has nothing to do.
    const signals = await run("cli/registry-cli.ts", ["signals", "refresh"], env);
    assert.equal(signals.code, 0, signals.stdout + signals.stderr);
    assert.deepEqual({ ...JSON.parse(signals.stdout), rules_version: "-" }, { status: "refreshed", rules_version: "-", versions: 0, items: 0 });

    const revoked = await run("cli/registry-cli.ts", ["tokens", "revoke", /"id": "([^"]+)"/.exec(token.stdout)![1]!], env);
    assert.equal(revoked.code, 0, revoked.stdout);
    const refused = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(refused.status, 401);
  } finally {
    await registry.stop();
  }
  assert.equal(existsSync(join(dataDir, "admin.json")), false, "the admin endpoint file is removed on shutdown");
  const offline = await run("cli/registry-cli.ts", ["users", "create", "frank", "--email", "frank@example.test"], env);
  assert.equal(offline.code, 0, offline.stdout + offline.stderr);
  const offlineSignals = await run("cli/registry-cli.ts", ["signals", "refresh"], env);
  assert.equal(offlineSignals.code, 0, offlineSignals.stdout + offlineSignals.stderr);
  assert.match(JSON.parse(offlineSignals.stdout).rules_version, /^a\d+-[0-9a-f]{16}$/);
});
