/**
 * End to end, two registries: a public default registry (`RYE_REGISTRY_URL`) and an organization's
 * private registry routed by namespace (`rye registry add acme <url> --scope acme`), both the real API
 * on loopback ports, driven through the real `rye` binary. Every request each registry receives is
 * recorded, so routing is checked on the wire, not only in the lock file.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { runRye } from "../cli.ts";
import type { TestRegistry } from "../registry-server.ts";
import { startTestRegistry } from "../registry-server.ts";
import type { Workspace } from "../workspace.ts";
import { createWorkspace, nodeTool } from "../workspace.ts";

type Json = Record<string, any>;

const SECRET = "acme/tools/secret";
const HELLO = "alice/tools/hello";
const tool = (result: string) => nodeTool("tools", `export function main() { return ${result}; }`);

let pub: TestRegistry;
let org: TestRegistry;
/** alice on the public registry, bob (owner of the acme organization) on the org registry, carol owning an "acme" org on the public one. */
const tokens: Record<string, string> = {};
let orgReadToken: string;

interface Session {
  reg: TestRegistry;
  cookie: string;
  csrf: string;
}

async function signUp(reg: TestRegistry, username: string): Promise<Session> {
  const res = await fetch(`${reg.url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: "correct horse battery staple" }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return { reg, cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

async function post(session: Session, path: string, body: unknown): Promise<Json> {
  const res = await fetch(`${session.reg.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201, `${path}: ${await res.clone().text()}`);
  return (await res.json()) as Json;
}

/** `rye push` of a tool file from a fresh publisher workspace. */
async function publish(reg: TestRegistry, token: string, file: string, content: string, extra: string[] = []): Promise<Json> {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_TOKEN: token };
  delete env.RYE_OFFLINE;
  delete env.RYE_REGISTRY_URL;
  const path = join(ws.projectDir, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  const run = await runRye(["push", file, "--registry", reg.url, "--yes", "--json", ...extra], { env, cwd: ws.projectDir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  return JSON.parse(run.stdout) as Json;
}

interface Consumer {
  ws: Workspace;
  env: NodeJS.ProcessEnv;
  rye(args: string[], input?: string): Promise<{ code: number; body: Json; stderr: string }>;
  lock(): Promise<Json[]>;
}

/** A user whose default registry is the public one (RYE_REGISTRY_URL), nothing else configured yet. */
async function consumer(): Promise<Consumer> {
  const ws = await createWorkspace();
  const env: NodeJS.ProcessEnv = { ...ws.env, RYE_REGISTRY_URL: pub.url };
  delete env.RYE_OFFLINE;
  delete env.RYE_TOKEN;
  return {
    ws,
    env,
    async rye(args, input) {
      const run = await runRye([...args, "--json"], { env, cwd: ws.projectDir, ...(input !== undefined ? { input } : {}) });
      return { code: run.code, body: JSON.parse(run.stdout) as Json, stderr: run.stderr };
    },
    async lock() {
      return (JSON.parse(await readFile(join(ws.projectDir, ".ai", "rye.lock"), "utf8")) as { items: Json[] }).items;
    },
  };
}

/** Requests that mention the acme namespace or alice's items, per registry. */
const mentions = (reg: TestRegistry, needle: string) => reg.requests.filter((r) => r.path.includes(needle));

before(async () => {
  [pub, org] = await Promise.all([startTestRegistry(), startTestRegistry()]);

  // The public registry: alice publishes a public tool.
  const alice = await signUp(pub, "alice");
  tokens.alice = (await post(alice, "/v1/tokens", { name: "cli", scopes: ["items:read", "items:write"] })).token;
  await publish(pub, tokens.alice!, ".ai/tools/tools/hello.mjs", tool(`{ from: "public" }`));

  // The organization's registry: bob owns acme and publishes a private tool; acme's CI token may read.
  const bob = await signUp(org, "bob");
  await post(bob, "/v1/orgs", { name: "acme" });
  tokens.bob = (await post(bob, "/v1/tokens", { name: "cli", scopes: ["items:read", "items:write"] })).token;
  const pushed = await publish(org, tokens.bob!, ".ai/tools/tools/secret.mjs", tool(`{ from: "acme", secret: 42 }`), ["--namespace", "acme", "--visibility", "private"]);
  assert.equal(pushed.item_id, SECRET);
  orgReadToken = (await post(bob, "/v1/orgs/acme/tokens", { name: "readers", scopes: ["items:read"] })).token;

  // Someone else owns a namespace "acme" on the public registry and publishes a public look-alike
  // (only a project that routes acme to the public registry should ever see it).
  const carol = await signUp(pub, "carol");
  await post(carol, "/v1/orgs", { name: "acme" });
  tokens.carol = (await post(carol, "/v1/tokens", { name: "cli", scopes: ["items:read", "items:write"] })).token;
  await publish(pub, tokens.carol!, ".ai/tools/tools/secret.mjs", tool(`{ from: "public-acme" }`), ["--namespace", "acme"]);

  // Routing is checked from here on: forget the set-up traffic.
  pub.requests.length = 0;
  org.requests.length = 0;
});

after(async () => {
  await Promise.all([pub?.close(), org?.close()]);
});

test("acme/… goes to the org registry (private: not found without a token, found with it); alice/… to the public one; never crossed", async () => {
  const c = await consumer();
  const added = await c.rye(["registry", "add", "acme", org.url, "--scope", "acme"]);
  assert.equal(added.code, 0, added.stderr);
  assert.deepEqual(added.body, { status: "added", name: "acme", url: org.url, scopes: ["acme"], default: false });

  // Anonymous: the private item does not exist as far as this user can tell.
  const anonymous = await c.rye(["load", "tool", SECRET]);
  assert.equal(anonymous.code, 1);
  assert.equal(anonymous.body.error.code, "ITEM_NOT_FOUND", JSON.stringify(anonymous.body));
  assert.deepEqual(mentions(org, SECRET), [{ method: "GET", path: `/v1/pull/tool/${SECRET}?tlog_from=0`, authorized: false }]);
  assert.deepEqual(mentions(pub, "acme"), [], "the public registry is never asked for acme items");

  // Signed in to the org registry with the organization's read token (stored credentials).
  const login = await c.rye(["login", "--token-stdin", "--registry", org.url], orgReadToken);
  assert.equal(login.code, 0, login.stderr);
  assert.equal(login.body.status, "signed_in");
  assert.equal(login.body.registry, org.url);
  assert.equal(login.body.username, "bob");
  const credentials = JSON.parse(await readFile(join(c.ws.userBase, ".ai", "auth", "credentials.json"), "utf8")) as Json;
  assert.deepEqual(Object.keys(credentials.registries), [org.url], "a credential for the org registry only");
  assert.equal(credentials.registries[org.url].access_token, orgReadToken);
  assert.equal(credentials.registries[org.url].method, "token");

  const secret = await c.rye(["load", "tool", SECRET]);
  assert.equal(secret.code, 0, JSON.stringify(secret.body));
  assert.equal(secret.body.source, "user");
  assert.equal(secret.body.verification.ok, true);
  assert.equal(secret.body.verification.fingerprint, await org.activeFingerprint());
  assert.match(secret.body.content, /from: "acme", secret: 42/);
  assert.equal(secret.body.registry_notice, `Pinned registry key ${await org.activeFingerprint()} for ${org.url} (first use)`);
  const secretPulls = mentions(org, `/v1/pull/tool/${SECRET}`);
  assert.equal(secretPulls.length, 2);
  assert.equal(secretPulls[1]!.authorized, true, "the stored credential is sent to the org registry");

  const hello = await c.rye(["load", "tool", HELLO]);
  assert.equal(hello.code, 0, JSON.stringify(hello.body));
  assert.equal(hello.body.verification.fingerprint, await pub.activeFingerprint());
  assert.match(hello.body.content, /from: "public"/);

  const executed = await c.rye(["execute", "tool", SECRET, "--params", "{}"]);
  assert.equal(executed.code, 0, JSON.stringify(executed.body));
  assert.deepEqual(executed.body.data, { from: "acme", secret: 42 });

  const lock = await c.lock();
  assert.deepEqual(
    lock.map((e) => ({ id: e.id, registry: e.registry, key: e.key_fingerprint })),
    [
      { id: SECRET, registry: org.url, key: await org.activeFingerprint() },
      { id: HELLO, registry: pub.url, key: await pub.activeFingerprint() },
    ].sort((a, b) => a.id.localeCompare(b.id)),
  );
  const pins = JSON.parse(await readFile(join(c.ws.userBase, ".ai", "trusted_keys", "registries.json"), "utf8")) as Record<string, Json>;
  assert.deepEqual(Object.fromEntries(Object.entries(pins).map(([url, p]) => [url, p.fingerprint])), {
    [org.url]: await org.activeFingerprint(),
    [pub.url]: await pub.activeFingerprint(),
  });

  // On the wire: acme only at the org registry, alice only at the public one; no token ever sent to the public registry.
  assert.deepEqual(mentions(pub, "acme"), []);
  assert.deepEqual(mentions(org, "alice"), []);
  assert.ok(mentions(pub, `/v1/pull/tool/${HELLO}`).length === 1);
  assert.deepEqual(pub.requests.filter((r) => r.authorized), [], "the org credential never goes to the public registry");

  const listed = await c.rye(["registry", "list"]);
  assert.equal(listed.code, 0);
  assert.deepEqual(listed.body.default, { url: pub.url, source: "env", pinned_key: await pub.activeFingerprint() });
  assert.deepEqual(listed.body.registries, [{ name: "acme", url: org.url, scopes: ["acme"], origin: "user", default: false, pinned_key: await org.activeFingerprint() }]);
});

test("a project's .ai/config/registries.json overrides the user configuration", async () => {
  const c = await consumer();
  assert.equal((await c.rye(["registry", "add", "acme", org.url, "--scope", "acme"])).code, 0);
  assert.equal((await c.rye(["login", "--token-stdin", "--registry", org.url], orgReadToken)).code, 0);
  // The project routes acme to the public registry instead (e.g. a mirror).
  const override = join(c.ws.projectDir, ".ai", "config", "registries.json");
  await mkdir(dirname(override), { recursive: true });
  await writeFile(override, JSON.stringify({ registries: [{ name: "acme-mirror", url: pub.url, scopes: ["acme"] }] }));
  const listed = await c.rye(["registry", "list"]);
  assert.deepEqual(
    listed.body.registries.map((r: Json) => ({ name: r.name, url: r.url, scopes: r.scopes, origin: r.origin })),
    [
      { name: "acme-mirror", url: pub.url, scopes: ["acme"], origin: "project" },
      { name: "acme", url: org.url, scopes: [], origin: "user" },
    ],
    "the project claims the acme scope",
  );

  const orgBefore = mentions(org, SECRET).length;
  const pubBefore = mentions(pub, SECRET).length;
  const secret = await c.rye(["load", "tool", SECRET]);
  assert.equal(secret.code, 0, JSON.stringify(secret.body));
  assert.match(secret.body.content, /from: "public-acme"/);
  assert.equal(secret.body.verification.fingerprint, await pub.activeFingerprint());
  assert.equal(mentions(org, SECRET).length, orgBefore, "the org registry is not asked");
  assert.equal(mentions(pub, SECRET).length, pubBefore + 1);
  assert.deepEqual(
    (await c.lock()).map((e) => ({ id: e.id, registry: e.registry })),
    [{ id: SECRET, registry: pub.url }],
  );

  // Without the override file the user configuration applies again (in a project of its own).
  const other = await consumer();
  assert.equal((await other.rye(["registry", "add", "acme", org.url, "--scope", "acme"])).code, 0);
  assert.equal((await other.rye(["login", "--token-stdin", "--registry", org.url], orgReadToken)).code, 0);
  const fromOrg = await other.rye(["load", "tool", SECRET]);
  assert.equal(fromOrg.code, 0, JSON.stringify(fromOrg.body));
  assert.match(fromOrg.body.content, /from: "acme", secret: 42/);
  assert.deepEqual((await other.lock()).map((e) => e.registry), [org.url]);
});

test("search asks the default registry and each scoped registry, and keeps only hits routing resolves there", async () => {
  const c = await consumer();
  assert.equal((await c.rye(["registry", "add", "acme", org.url, "--scope", "acme"])).code, 0);
  const before = { pub: pub.requests.length, org: org.requests.length };

  // Anonymous: the private org item stays invisible, and carol's public look-alike is dropped (acme routes to the org registry).
  const anonymous = await c.rye(["search", "secret", "--registry-only"]);
  assert.equal(anonymous.code, 0, anonymous.stderr);
  assert.deepEqual(anonymous.body.results, []);
  assert.deepEqual(anonymous.body.registries.map((r: Json) => r.url), [pub.url, org.url]);
  assert.ok(org.requests.slice(before.org).some((r) => r.path.startsWith("/v1/search") && r.path.includes("namespace=acme")), "the org registry is searched within its scope");

  assert.equal((await c.rye(["login", "--token-stdin", "--registry", org.url], orgReadToken)).code, 0);
  const signedIn = await c.rye(["search", "secret", "--registry-only"]);
  assert.equal(signedIn.code, 0, signedIn.stderr);
  assert.deepEqual(
    signedIn.body.results.map((h: Json) => ({ id: h.id, registry: h.registry })),
    [{ id: SECRET, registry: org.url }],
  );
  const hello = await c.rye(["search", "hello", "--registry-only"]);
  assert.deepEqual(hello.body.results.map((h: Json) => ({ id: h.id, registry: h.registry })), [{ id: HELLO, registry: pub.url }]);
  assert.deepEqual(pub.requests.slice(before.pub).filter((r) => r.authorized), [], "the org credential never goes to the public registry");
});
