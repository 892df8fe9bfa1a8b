/** `rye push|pull|publish|unpublish|yank|unyank|deprecate|delete` in-process against the real registry app on a loopback port. */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { extractSignature, sha256Hex } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { createApp } from "../../../../../apps/api/src/app.ts";
import { hashToken, TOKEN_PREFIX } from "../../../../../apps/api/src/auth/api-tokens.ts";
import { loadConfig } from "../../../../../apps/api/src/config.ts";
import type { AppEnv } from "../../../../../apps/api/src/env.ts";
import { silentLogger } from "../../../../../apps/api/src/logger.ts";
import { openRegistry } from "../../../../../apps/api/src/registry.ts";
import { userKeyRoutes } from "../../../../../apps/api/src/routes/user-keys.ts";
import { startProxy } from "../../../test/registry-server.ts";
import { createEngineContext } from "../../engine/context.ts";
import { registerPublish } from "./publish.ts";
import { runCommands } from "../test-fixtures.ts";

const knowledge = (id: string, version = "1.0.0") => `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${id}.\n`;

let url: string;
let db: Database;
let server: ReturnType<typeof serve>;
const tokens: Record<string, string> = {};

before(async () => {
  let app: Hono<AppEnv> | undefined;
  server = serve({ fetch: (req, env) => app!.fetch(req, env), port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = await openTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-cli-publish-registry-"));
  const deps = await openRegistry(loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: url, RYE_LOG_LEVEL: "silent" }), silentLogger, { env: { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") }, db });
  app = createApp(deps);
  if (!app.routes.some((r) => r.path === "/v1/me/keys")) app.route("/", userKeyRoutes(deps));
  for (const name of ["alice", "bob"]) {
    const user = await db.prisma.user.create({ data: { username: name, email: `${name}@example.test` } });
    await db.prisma.namespace.create({ data: { name, userId: user.id } });
    tokens[name] = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await db.prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(tokens[name]!), scopes: ["items:read", "items:write"] } });
  }
});
after(async () => {
  server.close();
  await db.close();
});

interface Workspace {
  env: NodeJS.ProcessEnv;
  cwd: string;
  prompts: string[];
  answer?: boolean;
}

async function setup(user?: string): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), "rye-cli-publish-"));
  const cwd = join(root, "project");
  await mkdir(cwd, { recursive: true });
  return { env: { USER_SPACE: join(root, "home"), RYE_REGISTRY_URL: url, ...(user ? { RYE_TOKEN: tokens[user] } : {}) }, cwd, prompts: [] };
}

async function put(w: Workspace, rel: string, content: string): Promise<string> {
  const path = join(w.cwd, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  return path;
}

async function rye(args: string[], w: Workspace) {
  // A scripted prompt, or none (a non-interactive run): answer undefined means "not a terminal".
  return runCommands((program, ctx) => registerPublish(program, ctx, { prompt: async (q) => (w.prompts.push(q), w.answer ?? false) }), args, w.env, w.cwd);
}

test("push: refused without confirmation, registers with --yes, file re-signed; VERSION_EXISTS shows the hint", async () => {
  const w = await setup("alice");
  const file = await put(w, ".ai/knowledge/notes/cli.md", knowledge("cli"));

  let r = await rye(["push", ".ai/knowledge/notes/cli.md"], w);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[UNTRUSTED_KEY\]: Your public key [0-9a-f]{16} is not registered/);
  assert.match(r.stderr, /hint: .*--yes/);
  assert.equal(w.prompts.length, 1);
  assert.equal(await readFile(file, "utf8"), knowledge("cli"));

  r = await rye(["push", ".ai/knowledge/notes/cli.md", "--yes", "--visibility", "unlisted"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await db.prisma.item.findFirstOrThrow({ where: { name: "cli" } })).visibility, "unlisted");
  assert.match(r.stderr, /Register your public key [0-9a-f]{16} with .*\? yes \(--yes\)/);
  assert.match(r.stderr, /Registered your public key/);
  assert.match(r.stdout, /Pushed knowledge alice\/notes\/cli@1\.0\.0 to http:\/\/127\.0\.0\.1:\d+; .* now carries the registry signature/);
  const sig = extractSignature(await readFile(file, "utf8"), "knowledge");
  assert.ok(sig.status === "signed" && sig.signature.provider === "rye-registry");
  assert.equal(w.prompts.length, 1, "--yes does not prompt");

  r = await rye(["push", file], w);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /error\[VERSION_EXISTS\]/);
  assert.match(r.stderr, /hint: Versions are immutable: bump the version and push again\./);

  await writeFile(file, knowledge("cli", "1.0.1"));
  r = await rye(["push", "notes/cli", "--type", "knowledge", "--json"], w);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.item_id, "alice/notes/cli");
  assert.equal(json.version, "1.0.1");
  assert.equal(json.key_registration, "already_registered");
});

test("push: the written-back file is pinned in .ai/rye.lock, so it keeps verifying in the project; an edit does not", async () => {
  const w = await setup("alice");
  const file = await put(w, ".ai/knowledge/notes/pinned.md", knowledge("pinned"));
  const r = await rye(["push", ".ai/knowledge/notes/pinned.md", "--yes"], w);
  assert.equal(r.code, 0, r.stderr);
  const written = await readFile(file, "utf8");
  const lock = JSON.parse(await readFile(join(w.cwd, ".ai", "rye.lock"), "utf8")) as { items: Array<Record<string, unknown>> };
  const entry = lock.items.find((e) => e.id === "alice/notes/pinned");
  assert.ok(entry, JSON.stringify(lock));
  assert.equal(entry.version, "1.0.0");
  assert.equal(entry.registry, url);
  assert.equal(entry.file_sha256, sha256Hex(written));
  assert.equal(entry.file_extension, ".md");

  const engine = await createEngineContext({ projectPath: w.cwd, env: w.env });
  const verified = await engine.verifier.verify(written, "knowledge", "project");
  assert.equal(verified.ok, true, verified.message);
  assert.match(verified.message, /pinned key of http/);
  const edited = await engine.verifier.verify(written.replace("Body of pinned.", "Body of pinned, edited."), "knowledge", "project");
  assert.equal(edited.ok, false);
});

test("push: an interactive yes registers the key; usage errors", async () => {
  const w = await setup("bob");
  w.answer = true;
  await put(w, ".ai/knowledge/notes/bobs.md", knowledge("bobs"));
  let r = await rye(["push", ".ai/knowledge/notes/bobs.md"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(w.prompts.length, 1);
  assert.match(w.prompts[0]!, /^Register your public key [0-9a-f]{16} with http/);
  r = await rye(["push", "notes/bobs"], w);
  assert.match(r.stderr, /is not a file; to push an item by id pass --type/);
  r = await rye(["push", ".ai/knowledge/notes/bobs.md", "--visibility", "secret"], w);
  assert.match(r.stderr, /--visibility must be public, unlisted or private/);
  r = await rye(["push", ".ai/knowledge/notes/bobs.md", "--namespace", "alice", "--json"], w);
  assert.equal(JSON.parse(r.stdout).error.code, "FORBIDDEN");
  const anon = await setup();
  await put(anon, "x.md", knowledge("x"));
  r = await rye(["push", "x.md", "--type", "knowledge"], anon);
  assert.match(r.stderr, /error\[UNAUTHORIZED\]: Not signed in/);
  assert.match(r.stderr, /hint: Run: rye login --registry/);
});

test("pull: verified write, @version, --to user; a tampered body writes nothing", async () => {
  const w = await setup();
  let r = await rye(["pull", "alice/notes/cli@1.0.0"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Pulled knowledge alice\/notes\/cli@1\.0\.0 → .*\.ai\/knowledge\/alice\/notes\/cli\.md \(verified with [0-9a-f]{16}\)/);
  assert.match(r.stderr, /Pinned registry key .* \(first use\)/);
  assert.match(await readFile(join(w.cwd, ".ai/knowledge/alice/notes/cli.md"), "utf8"), /version: 1\.0\.0/);
  r = await rye(["pull", "alice/notes/cli", "--to", "user", "--type", "knowledge", "--json"], w);
  assert.equal(r.code, 0, r.stdout);
  assert.equal(JSON.parse(r.stdout).path, join(w.env.USER_SPACE!, ".ai/knowledge/alice/notes/cli.md"));
  r = await rye(["pull", "alice/notes/cli", "--to", "elsewhere"], w);
  assert.match(r.stderr, /--to must be project or user/);
  r = await rye(["pull", "alice/notes/missing"], w);
  assert.match(r.stderr, /error\[ITEM_NOT_FOUND\]/);

  const proxy = await startProxy(url, (path, body) => (path.startsWith("/v1/pull/") ? { ...(body as object), content: (body as { content: string }).content.replace("Body of cli.", "Body of evil.") } : body));
  try {
    const fresh = { ...w, cwd: join(w.cwd, "other") };
    await mkdir(fresh.cwd);
    r = await rye(["pull", "alice/notes/cli", "--type", "knowledge", "--registry", proxy.url], fresh);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error\[INTEGRITY_MISMATCH\]: .*nothing was written/);
    assert.equal(await stat(join(fresh.cwd, ".ai")).then(() => true, () => false), false);
  } finally {
    await proxy.close();
  }
});

test("publish / unpublish / yank / unyank / deprecate / delete", async () => {
  const w = await setup("alice");
  w.answer = true;
  await put(w, ".ai/knowledge/notes/cycle.md", knowledge("cycle"));
  assert.equal((await rye(["push", ".ai/knowledge/notes/cycle.md"], w)).code, 0);
  const item = () => db.prisma.item.findFirstOrThrow({ where: { name: "cycle" }, include: { versions: true } });

  let r = await rye(["unpublish", "knowledge", "alice/notes/cycle"], w);
  assert.match(r.stdout, /Unpublished knowledge alice\/notes\/cycle \(private\)/);
  assert.equal((await item()).visibility, "private");
  r = await rye(["publish", "knowledge", "alice/notes/cycle", "--json"], w);
  assert.equal(JSON.parse(r.stdout).visibility, "public");
  r = await rye(["publish", "knowledge", "alice/notes/cycle@1.0.0"], w);
  assert.match(r.stderr, /applies to the whole item/);

  r = await rye(["yank", "knowledge", "alice/notes/cycle"], w);
  assert.match(r.stderr, /yank needs a version/);
  r = await rye(["yank", "knowledge", "alice/notes/cycle@1.0.0", "--reason", "oops"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Yanked knowledge alice\/notes\/cycle@1\.0\.0/);
  assert.equal((await item()).versions[0]!.yanked, true);
  r = await rye(["unyank", "knowledge", "alice/notes/cycle@1.0.0"], w);
  assert.equal((await item()).versions[0]!.yanked, false);

  r = await rye(["deprecate", "knowledge", "alice/notes/cycle"], w);
  assert.match(r.stderr, /deprecate needs --message/);
  r = await rye(["deprecate", "knowledge", "alice/notes/cycle", "--message", "use facts"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await item()).deprecationMessage, "use facts");
  r = await rye(["deprecate", "knowledge", "alice/notes/cycle", "--undo"], w);
  assert.match(r.stdout, /no longer deprecated/);
  assert.equal((await item()).deprecated, false);

  const bob = await setup("bob");
  r = await rye(["delete", "knowledge", "alice/notes/cycle"], bob);
  assert.match(r.stderr, /error\[FORBIDDEN\]/);
  r = await rye(["delete", "knowledge", "alice/notes/cycle", "--force"], w);
  assert.match(r.stderr, /error\[FORBIDDEN\]: force=true is reserved to registry administrators/);
  r = await rye(["delete", "widget", "alice/notes/cycle"], w);
  assert.match(r.stderr, /Item type must be directive, tool, knowledge or skill/);
  r = await rye(["delete", "knowledge", "alice/notes/cycle@1.0.0"], w);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Deleted knowledge alice\/notes\/cycle@1\.0\.0/);
  assert.equal(await db.prisma.itemVersion.count({ where: { item: { name: "cycle" } } }), 0);
});
