/**
 * pushItem / pullCommand / manageItem against the real registry app on a loopback port (with the
 * user-key routes mounted), plus a tampering proxy and a flaky server for the retry policy.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { extractSignature, generateKeyPair, keyResolverFrom, publicKeyFromPem, RyeError, signItem, verifyItem } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { createApp } from "../../../../apps/api/src/app.ts";
import { hashToken, TOKEN_PREFIX } from "../../../../apps/api/src/auth/api-tokens.ts";
import { loadConfig } from "../../../../apps/api/src/config.ts";
import type { AppEnv } from "../../../../apps/api/src/env.ts";
import { silentLogger } from "../../../../apps/api/src/logger.ts";
import { openRegistry } from "../../../../apps/api/src/registry.ts";
import { userKeyRoutes } from "../../../../apps/api/src/routes/user-keys.ts";
import { startProxy } from "../../test/registry-server.ts";
import { registryFetch } from "./http.ts";
import { manageItem, pushItem, splitRegistryId } from "./publish.ts";
import { pullCommand as pullItemToFile } from "./pull-command.ts";
import type { PublishContext } from "./publish.ts";
import { rejects } from "../../test/rejects.ts";

const directive = (name: string, version = "1.0.0", category = "tools") =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${version}">\n  <metadata>\n    <description>Do ${name}.</description>\n    <category>${category}</category>\n    <author>alice</author>\n  </metadata>\n</directive>\n\`\`\`\n`;
const knowledge = (id: string, version = "1.0.0") => `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${id}.\n`;

interface Registry {
  url: string;
  db: Database;
  user(name: string): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

async function startRegistry(): Promise<Registry> {
  let app: Hono<AppEnv> | undefined;
  const server = serve({ fetch: (req, env) => app!.fetch(req, env), port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = await openTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-publish-registry-"));
  const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: url, RYE_LOG_LEVEL: "silent" });
  const deps = await openRegistry(config, silentLogger, { env: { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") }, db });
  app = createApp(deps);
  // Until app.ts registers them (lead), mount the user-key routes here.
  if (!app.routes.some((r) => r.path === "/v1/me/keys")) app.route("/", userKeyRoutes(deps));
  return {
    url,
    db,
    async user(name) {
      const user = await db.prisma.user.create({ data: { username: name, email: `${name}@example.test` } });
      await db.prisma.namespace.create({ data: { name, userId: user.id } });
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
      await db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
      return { id: user.id, token };
    },
    async close() {
      server.close();
      await db.close();
    },
  };
}

let reg: Registry;
let alice: { id: string; token: string };
let bob: { id: string; token: string };
before(async () => {
  reg = await startRegistry();
  alice = await reg.user("alice");
  bob = await reg.user("bob");
});
after(() => reg.close());

async function workspace(token?: string): Promise<{ ctx: PublishContext; project: string; questions: string[]; answer: { yes: boolean } }> {
  const root = await mkdtemp(join(tmpdir(), "rye-publish-"));
  const project = join(root, "project");
  await mkdir(project, { recursive: true });
  const questions: string[] = [];
  const answer = { yes: true };
  const env: NodeJS.ProcessEnv = { USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: reg.url, ...(token ? { RYE_TOKEN: token } : {}) };
  return {
    project,
    questions,
    answer,
    ctx: {
      projectPath: project,
      env,
      confirm: async (q) => {
        questions.push(q);
        return answer.yes;
      },
      retry: { baseDelayMs: 1 },
    },
  };
}

async function put(project: string, rel: string, content: string): Promise<string> {
  const path = join(project, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  return path;
}

async function registryKey() {
  return publicKeyFromPem(await (await fetch(`${reg.url}/v1/public-key`)).text());
}

const exists = (path: string) => stat(path).then(() => true, () => false);

describe("push", () => {
  test("signs locally, refuses without key confirmation, registers after it, rewrites the file with the registry signature", async () => {
    const w = await workspace(alice.token);
    const file = await put(w.project, ".ai/directives/tools/deploy.md", directive("deploy"));

    w.answer.yes = false;
    const refused = await rejects(pushItem({ path: file }, w.ctx), "UNTRUSTED_KEY", /not registered/);
    assert.match(refused.hint, /--yes/);
    assert.equal(w.questions.length, 1);
    assert.match(w.questions[0]!, new RegExp(`^Register your public key [0-9a-f]{16} with ${reg.url}\\?$`));
    assert.equal(await readFile(file, "utf8"), directive("deploy"), "nothing written");
    assert.equal(await reg.db.prisma.item.count({ where: { name: "deploy" } }), 0, "nothing pushed");
    assert.equal(await reg.db.prisma.userKey.count({ where: { userId: alice.id } }), 0);

    w.answer.yes = true;
    const result = await pushItem({ path: ".ai/directives/tools/deploy.md" }, w.ctx);
    assert.equal(result.status, "pushed");
    assert.equal(result.item_id, "alice/tools/deploy");
    assert.equal(result.version, "1.0.0");
    assert.equal(result.key_registration, "registered");
    assert.equal(result.key_created, false, "the refused attempt already created (and kept) the key");
    const keyRow = await reg.db.prisma.userKey.findUniqueOrThrow({ where: { fingerprint: result.author_fingerprint } });
    assert.equal(keyRow.userId, alice.id);

    const written = await readFile(file, "utf8");
    const sig = extractSignature(written, "directive");
    assert.ok(sig.status === "signed");
    assert.equal(sig.signature.provider, "rye-registry");
    assert.equal(sig.signature.username, "alice");
    assert.equal((await verifyItem(written, "directive", keyResolverFrom([await registryKey()]))).code, "OK");
    const version = await reg.db.prisma.itemVersion.findFirstOrThrow({ where: { item: { name: "deploy" } } });
    assert.equal(version.authorFingerprint, result.author_fingerprint, "the author signature travelled with the push");
    assert.equal(version.authorVerified, true);

    // The same version again: the registry says VERSION_EXISTS with its hint; the key is not asked for again.
    const dup = await rejects(pushItem({ path: file }, w.ctx), "VERSION_EXISTS");
    assert.match(dup.hint, /bump the version/);
    assert.equal(w.questions.length, 2);
    assert.equal(await readFile(file, "utf8"), written, "a failed push leaves the file alone");

    // A new version by local id; the key is already registered.
    await writeFile(file, directive("deploy", "1.1.0"));
    const next = await pushItem({ itemId: "tools/deploy", type: "directive", visibility: "unlisted" }, w.ctx);
    assert.equal(next.key_registration, "already_registered");
    assert.equal(next.version, "1.1.0");
    assert.equal(w.questions.length, 2);
  });

  test("tools send their file extension; --namespace publishes to another namespace the user may write", async () => {
    const w = await workspace(alice.token);
    const tool = await put(w.project, ".ai/tools/web/fetch.yaml", `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch"\nconfig:\n  url: "{url}"\n`);
    const r = await pushItem({ path: tool }, w.ctx);
    assert.equal(r.item_id, "alice/web/fetch");
    const item = await reg.db.prisma.item.findFirstOrThrow({ where: { name: "fetch" } });
    assert.equal(item.fileExtension, ".yaml");
    const other = await put(w.project, ".ai/knowledge/notes/elsewhere.md", knowledge("elsewhere"));
    await rejects(pushItem({ path: other, namespace: "bob" }, w.ctx), "FORBIDDEN");
  });

  test("errors: not signed in, unknown type, missing files, a key revoked on the registry", async () => {
    const anon = await workspace();
    const file = await put(anon.project, ".ai/knowledge/notes/n.md", knowledge("n"));
    const unauth = await rejects(pushItem({ path: file }, anon.ctx), "UNAUTHORIZED");
    assert.match(unauth.hint, /rye login/);
    const w = await workspace(bob.token);
    await rejects(pushItem({ path: await put(w.project, "notes.txt", "hello") }, w.ctx), "INVALID_ITEM_TYPE");
    await rejects(pushItem({ path: "missing.md" }, w.ctx), "ITEM_NOT_FOUND");
    await rejects(pushItem({ itemId: "notes/nothing", type: "knowledge" }, w.ctx), "ITEM_NOT_FOUND");
    const badToken = await workspace("rye_pat_invalid");
    await rejects(pushItem({ path: await put(badToken.project, ".ai/knowledge/notes/n.md", knowledge("n")) }, badToken.ctx), "UNAUTHORIZED");

    // bob's key gets registered, then revoked on the registry: push stops with a clear message.
    const bobFile = await put(w.project, ".ai/knowledge/notes/bobs.md", knowledge("bobs"));
    const first = await pushItem({ path: bobFile }, w.ctx);
    await fetch(`${reg.url}/v1/me/keys/${first.author_fingerprint}`, { method: "DELETE", headers: { authorization: `Bearer ${bob.token}` } });
    await writeFile(bobFile, knowledge("bobs", "1.0.1"));
    const revoked = await rejects(pushItem({ path: bobFile }, w.ctx), "UNTRUSTED_KEY", /revoked/);
    assert.match(revoked.hint, /rye keygen --force/);
  });
});

describe("pull", () => {
  before(async () => {
    const w = await workspace(alice.token);
    await pushItem({ path: await put(w.project, ".ai/knowledge/notes/facts.md", knowledge("facts")) }, w.ctx);
    await writeFile(join(w.project, ".ai/knowledge/notes/facts.md"), knowledge("facts", "1.1.0"));
    await pushItem({ path: join(w.project, ".ai/knowledge/notes/facts.md") }, w.ctx);
  });

  test("writes a verified file under <space>/.ai/<type folder>/<namespace>/<category>/; versions, type inference, idempotence", async () => {
    const w = await workspace();
    const r = await pullItemToFile({ id: "alice/notes/facts" }, w.ctx);
    assert.equal(r.status, "pulled");
    assert.equal(r.item_type, "knowledge");
    assert.equal(r.version, "1.1.0");
    assert.equal(r.path, join(w.project, ".ai/knowledge/alice/notes/facts.md"));
    const content = await readFile(r.path, "utf8");
    assert.equal((await verifyItem(content, "knowledge", keyResolverFrom([await registryKey()]))).code, "OK");
    assert.equal((await pullItemToFile({ id: "alice/notes/facts", type: "knowledge" }, w.ctx)).status, "unchanged");
    // The lock pins 1.1.0: going back needs --allow-downgrade; a file the user changed needs --force.
    await rejects(pullItemToFile({ id: "alice/notes/facts", version: "1.0.0" }, w.ctx), "VERSION_MISMATCH");
    await writeFile(r.path, `${content}\nmy note\n`);
    await rejects(pullItemToFile({ id: "alice/notes/facts", version: "1.0.0", allowDowngrade: true }, w.ctx), "ITEM_EXISTS");
    const old = await pullItemToFile({ id: "alice/notes/facts", version: "1.0.0", allowDowngrade: true, force: true }, w.ctx);
    assert.equal(old.version, "1.0.0");
    assert.match(await readFile(old.path, "utf8"), /version: 1\.0\.0/);
    const user = await pullItemToFile({ id: "alice/notes/facts", to: "user" }, w.ctx);
    assert.equal(user.path, join(w.ctx.env.USER_SPACE!, ".ai/knowledge/alice/notes/facts.md"));
  });

  test("errors: unknown ids and versions, hostile ids", async () => {
    const w = await workspace();
    await rejects(pullItemToFile({ id: "alice/notes/nothing" }, w.ctx), "ITEM_NOT_FOUND");
    const version = await rejects(pullItemToFile({ id: "alice/notes/facts", version: "9.9.9", type: "knowledge" }, w.ctx), "ITEM_NOT_FOUND");
    assert.match(version.message, /9\.9\.9/);
    for (const id of ["alice/../../etc/passwd", "../x/y", "alice", "alice/notes/..", "/abs/x/y"]) await rejects(pullItemToFile({ id }, w.ctx), "INVALID_ITEM_ID");
    assert.equal(await exists(join(w.project, ".ai")), false);
  });

  test("a tampered body (proxy rewriting the content or re-signing with another key) is refused and nothing is written", async () => {
    const w = await workspace();
    // Pin the genuine key first (through the real registry), as any earlier use would have.
    await pullItemToFile({ id: "alice/notes/facts", to: "user" }, w.ctx);
    const lockBefore = await readFile(join(w.project, ".ai/rye.lock"), "utf8");
    const forger = await generateKeyPair();
    let mode: "edit" | "resign" | "swap-id" = "edit";
    const proxy = await startProxy(reg.url, async (path, body) => {
      if (!path.startsWith("/v1/pull/")) return body;
      const b = body as { content: string; item_id: string };
      if (mode === "edit") return { ...b, content: b.content.replace("Body of facts.", "Body of evil.") };
      if (mode === "resign") return { ...b, content: (await signItem(b.content.replace("Body of facts.", "Body of evil."), "knowledge", forger)).content };
      return { ...b, item_id: "alice/notes/other" };
    });
    try {
      const edited = await rejects(pullItemToFile({ id: "alice/notes/facts", type: "knowledge", registryUrl: proxy.url }, w.ctx), "INTEGRITY_MISMATCH", /nothing was written/);
      assert.match(edited.hint, /altered/);
      mode = "resign";
      await rejects(pullItemToFile({ id: "alice/notes/facts", type: "knowledge", registryUrl: proxy.url }, w.ctx), "UNTRUSTED_KEY");
      mode = "swap-id";
      await rejects(pullItemToFile({ id: "alice/notes/facts", type: "knowledge", registryUrl: proxy.url }, w.ctx), "INTEGRITY_MISMATCH", /nothing was written/);
      assert.equal(await exists(join(w.project, ".ai/knowledge")), false, "nothing written to the project");
      assert.equal(await readFile(join(w.project, ".ai/rye.lock"), "utf8"), lockBefore, "the lock is unchanged");
    } finally {
      await proxy.close();
    }
  });
});

describe("management", () => {
  test("unpublish / publish / yank / unyank / deprecate / delete round trips", async () => {
    const w = await workspace(alice.token);
    const anon = await workspace();
    const file = await put(w.project, ".ai/knowledge/notes/managed.md", knowledge("managed"));
    await pushItem({ path: file }, w.ctx);
    const id = "alice/notes/managed";

    assert.equal((await manageItem({ action: "unpublish", type: "knowledge", id }, w.ctx)).visibility, "private");
    await rejects(pullItemToFile({ id, type: "knowledge" }, anon.ctx), "ITEM_NOT_FOUND");
    await manageItem({ action: "publish", type: "knowledge", id }, w.ctx);
    assert.equal((await pullItemToFile({ id, type: "knowledge" }, anon.ctx)).status, "pulled");

    await manageItem({ action: "yank", type: "knowledge", id, version: "1.0.0", reason: "broken" }, w.ctx);
    await rejects(pullItemToFile({ id, type: "knowledge", to: "user" }, anon.ctx), "ITEM_NOT_FOUND", /no installable version/);
    const yanked = await pullItemToFile({ id, type: "knowledge", version: "1.0.0", to: "user" }, anon.ctx);
    assert.equal(yanked.yanked, true);
    await manageItem({ action: "unyank", type: "knowledge", id, version: "1.0.0" }, w.ctx);
    assert.equal((await reg.db.prisma.itemVersion.findFirstOrThrow({ where: { item: { name: "managed" } } })).yanked, false);

    await manageItem({ action: "deprecate", type: "knowledge", id, message: "use alice/notes/facts" }, w.ctx);
    const deprecated = await pullItemToFile({ id, type: "knowledge", force: true }, anon.ctx);
    assert.equal(deprecated.deprecated, true);
    assert.equal(deprecated.deprecation_message, "use alice/notes/facts");
    await manageItem({ action: "deprecate", type: "knowledge", id, undo: true }, w.ctx);
    assert.equal((await reg.db.prisma.item.findFirstOrThrow({ where: { name: "managed" } })).deprecated, false);

    // Downloaded items cannot be deleted (the registry's policy, with its hint); a fresh one can.
    const conflict = await rejects(manageItem({ action: "delete", type: "knowledge", id }, w.ctx), "CONFLICT");
    assert.match(conflict.hint, /Yank/);
    const fresh = await put(w.project, ".ai/knowledge/notes/fresh.md", knowledge("fresh"));
    await pushItem({ path: fresh }, w.ctx);
    const deleted = await manageItem({ action: "delete", type: "knowledge", id: "alice/notes/fresh", version: "1.0.0" }, w.ctx);
    assert.equal(deleted.status, "deleted");
    assert.equal(await reg.db.prisma.itemVersion.count({ where: { item: { name: "fresh" } } }), 0);
  });

  test("errors and security: someone else's item, no token, missing version or message", async () => {
    const w = await workspace(bob.token);
    await rejects(manageItem({ action: "yank", type: "knowledge", id: "alice/notes/facts", version: "1.0.0" }, w.ctx), "FORBIDDEN");
    await rejects(manageItem({ action: "delete", type: "knowledge", id: "alice/notes/facts" }, w.ctx), "FORBIDDEN");
    await rejects(manageItem({ action: "publish", type: "knowledge", id: "alice/notes/facts" }, (await workspace()).ctx), "UNAUTHORIZED");
    await rejects(manageItem({ action: "yank", type: "knowledge", id: "alice/notes/facts" }, w.ctx), "BAD_REQUEST", /needs a version/);
    await rejects(manageItem({ action: "deprecate", type: "knowledge", id: "alice/notes/facts" }, w.ctx), "BAD_REQUEST", /--message/);
    assert.equal((await reg.db.prisma.itemVersion.findFirstOrThrow({ where: { item: { name: "facts" }, version: "1.0.0" } })).yanked, false);
  });
});

describe("retries", () => {
  async function flaky(statuses: number[]): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
    let n = 0;
    const server = createServer((req, res) => {
      const status = statuses[n++] ?? 200;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(status === 200 ? JSON.stringify({ ok: true, method: req.method }) : JSON.stringify({ error: { code: status === 429 ? "RATE_LIMITED" : "UNAVAILABLE", message: "busy", hint: "later" } }));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => n, close: () => new Promise((r) => server.close(() => r())) };
  }

  test("GETs retry 429/5xx with backoff, then give up with the registry's error", async () => {
    const s = await flaky([503, 429, 200]);
    try {
      const res = await registryFetch(s.url, "/x", { retry: { baseDelayMs: 1 } });
      assert.equal(res.status, 200);
      assert.equal(s.hits(), 3);
    } finally {
      await s.close();
    }
    const down = await flaky([503, 503, 503, 503]);
    try {
      const res = await registryFetch(down.url, "/x", { retry: { attempts: 2, baseDelayMs: 1 } });
      assert.equal(res.status, 503);
      assert.equal(down.hits(), 2);
    } finally {
      await down.close();
    }
  });

  test("POSTs are never retried", async () => {
    const s = await flaky([503, 200]);
    try {
      const w = await workspace("rye_pat_whatever");
      await rejects(manageItem({ action: "publish", type: "knowledge", id: "alice/notes/facts", registryUrl: s.url }, w.ctx), "UNAVAILABLE");
      assert.equal(s.hits(), 1);
    } finally {
      await s.close();
    }
  });

  test("splitRegistryId refuses traversal", () => {
    assert.deepEqual(splitRegistryId("acme/a/b/c").segments, ["acme", "a", "b", "c"]);
    assert.throws(() => splitRegistryId("acme/../x"), RyeError);
  });
});
