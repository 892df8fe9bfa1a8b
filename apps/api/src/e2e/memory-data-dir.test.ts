/**
 * `RYE_DATA_DIR=memory://`: a registry whose database lives in its process writes nothing where it was started (its
 * keys are as short-lived as its database), and the operator CLI refuses it instead of writing to an empty copy.
 */
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { isErrorCode } from "@rye/core";
import { runRegistryCli } from "../cli/registry-cli.ts";
import { loadConfig } from "../config.ts";
import { keyDirOf } from "../registry.ts";
import { freePort } from "../../test/free-port.ts";
import { spawnRegistry } from "../../test/registry-process.ts";

test("an in-memory registry keeps its keys in a private temporary folder of its process, removed when it exits, and writes nothing in its working directory", { timeout: 120_000 }, async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), "rye-memory-cwd-"));
  const privateTmp = await mkdtemp(join(tmpdir(), "rye-memory-tmp-"));
  t.after(() => Promise.all([rm(cwd, { recursive: true, force: true }), rm(privateTmp, { recursive: true, force: true })]));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), RYE_DATA_DIR: "memory://", RYE_LOG_LEVEL: "warn", TMPDIR: privateTmp };
  delete env.DATABASE_URL;
  delete env.RYE_REGISTRY_KEY_DIR;
  const registry = await spawnRegistry(env, cwd);
  try {
    const keys = (await (await fetch(`${registry.url}/v1/keys`)).json()) as { active: string };
    assert.match(keys.active, /^[0-9a-f]{16}$/);
    assert.deepEqual(await readdir(cwd), [], "nothing is written where the registry was started (before: a folder named 'memory:')");
    const held = (await readdir(privateTmp)).filter((name) => name.startsWith("rye-registry-keys-"));
    assert.equal(held.length, 1, `one key folder in the process's temporary folder: ${held.join(", ")}`);
    assert.equal(statSync(join(privateTmp, held[0]!)).mode & 0o777, 0o700);
    assert.ok(existsSync(join(privateTmp, held[0]!, "private_key.pem")));
  } finally {
    await registry.stop();
  }
  assert.deepEqual((await readdir(privateTmp)).filter((name) => name.startsWith("rye-registry-keys-")), [], "the keys go with the process");
  assert.deepEqual(await readdir(cwd), []);
});

test("memory://: RYE_REGISTRY_KEY_DIR still wins, and a PostgreSQL registry without it is refused with a hint", () => {
  const config = loadConfig({ RYE_DATA_DIR: "memory://" });
  const keyDir = keyDirOf(config, {});
  assert.ok(!keyDir.includes("memory:"), keyDir);
  assert.equal(keyDirOf(config, {}), keyDir, "one folder per process");
  assert.equal(keyDirOf(config, { RYE_REGISTRY_KEY_DIR: "/srv/rye/keys" }), "/srv/rye/keys");
  assert.throws(
    () => keyDirOf(config, { DATABASE_URL: "postgresql://db.example/rye" }),
    (err: Error & { code?: string; hint?: string }) => err.code === "BAD_REQUEST" && /RYE_REGISTRY_KEY_DIR/.test(err.hint ?? "") && isErrorCode(err.code),
  );
});

test("the operator CLI refuses an in-memory registry's database instead of writing to an empty copy of it", async () => {
  const lines: string[] = [];
  const code = await runRegistryCli(["users", "create", "erin", "--email", "erin@example.test"], { RYE_DATA_DIR: "memory://" }, (s) => lines.push(s));
  assert.equal(code, 1);
  assert.match(lines.join("\n"), /^error\[BAD_REQUEST\]: RYE_DATA_DIR=memory:\/\/ is a database inside the server's own process/m);
  assert.match(lines.join("\n"), /hint: Run the registry on a data folder/);
});
