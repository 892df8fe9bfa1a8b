import assert from "node:assert/strict";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { CredentialStore } from "./credentials.ts";
import { detectKeychain, type Keychain } from "./keychain.ts";
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

/** An in-memory keychain: no OS keychain exists on the test machines (no D-Bus session, no Secret Service). */
function memoryKeychain(): Keychain & { entries: Map<string, string>; failWrites: boolean } {
  const entries = new Map<string, string>();
  return {
    entries,
    failWrites: false,
    async get(account) {
      return entries.get(account) ?? null;
    },
    async set(account, secret) {
      if (this.failWrites) throw new Error("locked");
      entries.set(account, secret);
    },
    async delete(account) {
      return entries.delete(account);
    },
  };
}

test("with a keychain the tokens go there and the file keeps only what is not secret", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const keychain = memoryKeychain();
  const store = new CredentialStore({ USER_SPACE: home }, { keychain: async () => keychain });
  assert.equal(await store.backend(), "keychain");
  assert.equal(await store.set("https://a.example", { access_token: "ACCESS", refresh_token: "REFRESH", method: "device", username: "alice", expires_at: 5 }), "keychain");
  const file = await readFile(store.path, "utf8");
  assert.ok(!file.includes("ACCESS") && !file.includes("REFRESH"), "no token in the file");
  assert.equal(JSON.parse(file).registries["https://a.example"].secret_store, "keychain");
  assert.deepEqual(JSON.parse(keychain.entries.get("https://a.example")!), { access_token: "ACCESS", refresh_token: "REFRESH" });
  const back = await store.get("https://a.example");
  assert.equal(back?.access_token, "ACCESS");
  assert.equal(back?.refresh_token, "REFRESH");
  assert.equal(back?.username, "alice");
  assert.equal(await store.delete("https://a.example"), true);
  assert.equal(keychain.entries.size, 0, "logout removes the keychain entry too");
});

test("the keychain entry gone (or the keychain gone) means signed out, not a crash", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const keychain = memoryKeychain();
  await new CredentialStore({ USER_SPACE: home }, { keychain: async () => keychain }).set("https://a.example", { access_token: "A", method: "web" });
  keychain.entries.clear();
  assert.equal(await new CredentialStore({ USER_SPACE: home }, { keychain: async () => keychain }).get("https://a.example"), undefined);
  assert.equal(await new CredentialStore({ USER_SPACE: home }, { keychain: async () => null }).get("https://a.example"), undefined);
});

test("selection: no keychain → the 0600 file; RYE_CREDENTIAL_STORE=file skips a keychain; =keychain without one is an error", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const none = new CredentialStore({ USER_SPACE: home }, { keychain: async () => null });
  assert.equal(await none.backend(), "file");
  assert.equal(await none.set("https://a.example", { access_token: "A", method: "web" }), "file");
  assert.equal((await stat(none.path)).mode & 0o777, 0o600);
  assert.equal(JSON.parse(await readFile(none.path, "utf8")).registries["https://a.example"].access_token, "A");

  const keychain = memoryKeychain();
  const fileChosen = new CredentialStore({ USER_SPACE: home, RYE_CREDENTIAL_STORE: "file" }, { keychain: async () => keychain });
  assert.equal(await fileChosen.set("https://b.example", { access_token: "B", method: "web" }), "file");
  assert.equal(keychain.entries.size, 0);

  const required = new CredentialStore({ USER_SPACE: home, RYE_CREDENTIAL_STORE: "keychain" }, { keychain: async () => null });
  await assert.rejects(required.set("https://c.example", { access_token: "C", method: "web" }), (e: unknown) => e instanceof RyeError && e.code === "UNAVAILABLE" && /RYE_CREDENTIAL_STORE=auto/.test(e.hint));
  assert.throws(() => new CredentialStore({ USER_SPACE: home, RYE_CREDENTIAL_STORE: "vault" }), (e: unknown) => e instanceof RyeError && e.code === "BAD_REQUEST");
});

test("auto: a keychain that refuses the write falls back to the file; a required one reports it", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-creds-"));
  const keychain = memoryKeychain();
  keychain.failWrites = true;
  const auto = new CredentialStore({ USER_SPACE: home }, { keychain: async () => keychain });
  assert.equal(await auto.set("https://a.example", { access_token: "A", method: "web" }), "file");
  assert.equal((await auto.get("https://a.example"))?.access_token, "A");
  const required = new CredentialStore({ USER_SPACE: home, RYE_CREDENTIAL_STORE: "keychain" }, { keychain: async () => keychain });
  await assert.rejects(required.set("https://a.example", { access_token: "A", method: "web" }), (e: unknown) => e instanceof RyeError && e.code === "UNAVAILABLE");
});

test("keychain detection never throws: missing binding, a store that is unavailable, one that hangs", async () => {
  assert.equal(await detectKeychain(async () => null), null);
  assert.equal(await detectKeychain(async () => { throw new Error("cannot load"); }), null);
  class Unavailable {
    constructor() {
      throw new Error("DBus error: no session bus");
    }
  }
  assert.equal(await detectKeychain(async () => Unavailable as never), null);
  class Hangs {
    getPassword = () => new Promise<string>(() => {});
    setPassword = () => new Promise<void>(() => {});
    deletePassword = () => new Promise<boolean>(() => {});
  }
  assert.equal(await detectKeychain(async () => Hangs as never, 20), null);
  class Works {
    static store = new Map<string, string>();
    constructor(readonly service: string, readonly account: string) {}
    getPassword = async () => Works.store.get(this.account) ?? null;
    setPassword = async (p: string) => void Works.store.set(this.account, p);
    deletePassword = async () => Works.store.delete(this.account);
  }
  const found = await detectKeychain(async () => Works as never);
  assert.ok(found, "a store that round-trips is used");
  assert.equal(Works.store.size, 0, "the probe entry is removed");
  // The real binding on this machine: installed, but there is no Secret Service, so no keychain (and no crash).
  const real = await detectKeychain();
  if (real) {
    await real.set("rye-test-probe", "x");
    assert.equal(await real.get("rye-test-probe"), "x");
    await real.delete("rye-test-probe");
  } else {
    assert.equal(await new CredentialStore({ USER_SPACE: await mkdtemp(join(tmpdir(), "rye-creds-")) }).backend(), "file");
  }
});
