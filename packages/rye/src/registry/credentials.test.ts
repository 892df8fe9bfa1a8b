import assert from "node:assert/strict";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { CredentialStore } from "./credentials.ts";
import { normalizeRegistryUrl, resolveRegistryUrl } from "./registry-url.ts";
import { accessTokenFor } from "./session.ts";

test("credentials are stored per registry with 0600/0700 modes and survive a corrupt file", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const env = { USER_SPACE: home };
  const store = new CredentialStore(env);
  await store.set("https://a.example", { access_token: "A", method: "token", username: "alice" });
  await store.set("https://b.example", { access_token: "B", method: "device", refresh_token: "R", expires_at: Date.now() + 3600_000 });
  assert.equal((await stat(store.path)).mode & 0o777, 0o600);
  assert.equal((await stat(store.dir)).mode & 0o777, 0o700);
  assert.equal((await store.get("https://a.example"))?.access_token, "A");
  assert.equal(await accessTokenFor("https://b.example", env), "B", "not expired: used as is");
  assert.equal(await accessTokenFor("https://b.example", { ...env, RYE_TOKEN: "ci" }), "ci", "RYE_TOKEN wins");
  assert.equal(await store.delete("https://a.example"), true);
  assert.equal(await store.get("https://a.example"), undefined);
  assert.ok(!(await readFile(store.path, "utf8")).includes('"A"'));
  await writeFile(store.path, "{ broken");
  assert.equal(await store.get("https://b.example"), undefined);
});

test("an expired token without a refresh token asks to log in again", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const env = { USER_SPACE: home };
  await new CredentialStore(env).set("https://a.example", { access_token: "A", method: "web", expires_at: Date.now() - 1 });
  await assert.rejects(accessTokenFor("https://a.example", env), (e: unknown) => e instanceof RyeError && e.code === "UNAUTHORIZED" && /rye login/.test(e.hint));
});

test("registry URLs: https anywhere, http only on loopback, no credentials", () => {
  assert.equal(normalizeRegistryUrl("https://reg.example.com/"), "https://reg.example.com");
  assert.equal(normalizeRegistryUrl("http://127.0.0.1:3000"), "http://127.0.0.1:3000");
  assert.equal(resolveRegistryUrl(undefined, {}), "http://localhost:3000");
  assert.equal(resolveRegistryUrl(undefined, { RYE_REGISTRY_URL: "https://x.example" }), "https://x.example");
  for (const bad of ["http://reg.example.com", "ftp://x", "https://user:pw@x.example", "not a url"]) {
    assert.throws(() => normalizeRegistryUrl(bad), (e: unknown) => e instanceof RyeError && e.code === "BAD_REQUEST", bad);
  }
});
