/** Item management routes (visibility, publish/unpublish, yank/unyank, deprecate, delete, transfer): happy paths, errors, security. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hono } from "hono";
import { extractSignature, RyeError } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { hashToken } from "../auth/api-tokens.ts";
import type { AppEnv } from "../env.ts";
import { errorHandler } from "../middleware/errors.ts";
import { rateLimit } from "../middleware/rate-limit.ts";
import { requestContext } from "../middleware/request-context.ts";
import type { AppDeps } from "../services/deps.ts";
import { manageRoutes } from "./manage.ts";
import { searchRoutes } from "./search.ts";

type Json = Record<string, any>;

/** The routes under test, wrapped like app.ts wraps them. */
function buildApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext({ authenticator: deps.authenticator, logger: deps.logger, trustProxy: deps.config.trustProxy }));
  app.use("/v1/*", rateLimit(deps.config.rateLimit));
  app.route("/", manageRoutes(deps));
  app.route("/", searchRoutes(deps));
  app.notFound((c) => c.json(new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`).toEnvelope(), 404));
  app.onError(errorHandler(deps.logger));
  return app;
}

const knowledge = (name: string, version = "1.0.0", body = `Body of ${name}.`) =>
  `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\n${body}\n`;

let reg: TestRegistry;
let app: Hono<AppEnv>;
let alice: TestUser;
let tokens: Record<"alice" | "bob" | "carol" | "dave" | "root", string>;

async function call(method: string, path: string, token?: string, json?: unknown): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, ...(json !== undefined ? { body: typeof json === "string" ? json : JSON.stringify(json) } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}
/** Publishes `namespace/notes/<name>` through the real POST /v1/push. */
async function publish(id: string, version = "1.0.0", body?: string, visibility?: string): Promise<void> {
  const name = id.split("/").at(-1)!;
  const res = await reg.request("POST", "/v1/push", {
    token: tokens.alice,
    json: { item_type: "knowledge", item_id: id, content: knowledge(name, version, body), version, metadata: visibility ? { visibility } : undefined },
  });
  assert.equal(res.status, 201, JSON.stringify(await res.json()));
}
const pull = async (path: string, token?: string) => {
  const res = await reg.request("GET", `/v1/pull/knowledge/${path}`, { token });
  return { status: res.status, body: (await res.json()) as Json };
};
const lastLogEntry = () => reg.db.prisma.publishLogEntry.findFirst({ orderBy: { index: "desc" } });
const itemRow = (name: string) => reg.db.prisma.item.findFirst({ where: { name }, include: { namespace: true, versions: true } });

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
  app = buildApp(reg.deps);
  alice = await reg.createUser("alice");
  const bob = await reg.createUser("bob");
  const carol = await reg.createUser("carol");
  const dave = await reg.createUser("dave");
  const root = await reg.createUser("root", { admin: true });
  await reg.createOrg("acme", [
    { user: alice, role: "owner" },
    { user: carol, role: "admin" },
    { user: dave, role: "member" },
  ]);
  tokens = { alice: await reg.token(alice), bob: await reg.token(bob), carol: await reg.token(carol), dave: await reg.token(dave), root: await reg.token(root) };
});
after(() => reg.close());

describe("happy paths", () => {
  test("visibility, publish and unpublish answer the original shape and are audited", async () => {
    await publish("alice/notes/vis_note");
    const hide = await call("POST", "/v1/visibility/knowledge/alice/notes/vis_note", tokens.alice, { visibility: "private" });
    assert.equal(hide.status, 200, JSON.stringify(hide.body));
    assert.deepEqual(hide.body, { status: "updated", item_type: "knowledge", item_id: "alice/notes/vis_note", visibility: "private", previous_visibility: "public" });
    assert.equal((await pull("alice/notes/vis_note")).status, 404);
    assert.equal((await call("GET", "/v1/search?query=vis_note")).body.total, 0);
    const pub = await call("POST", "/v1/publish/knowledge/alice/notes/vis_note", tokens.alice);
    assert.deepEqual([pub.body.visibility, pub.body.previous_visibility], ["public", "private"]);
    assert.equal((await pull("alice/notes/vis_note")).status, 200);
    const unpub = await call("POST", "/v1/unpublish/knowledge/alice/notes/vis_note", tokens.alice);
    assert.deepEqual([unpub.body.visibility, unpub.body.previous_visibility], ["private", "public"]);
    const unlisted = await call("POST", "/v1/visibility/knowledge/alice/notes/vis_note", tokens.alice, { visibility: "unlisted" });
    assert.equal(unlisted.body.visibility, "unlisted");
    const audits = await reg.db.prisma.auditEvent.findMany({ where: { action: "item.visibility", targetId: "knowledge/alice/notes/vis_note" }, orderBy: { createdAt: "asc" } });
    assert.equal(audits.length, 4);
    assert.equal(audits[0]!.actorId, alice.id);
    const logged = await lastLogEntry();
    assert.deepEqual(audits[0]!.details, { from: "public", to: "private", log_index: Number(logged!.index) - 3 });
    assert.deepEqual([logged!.kind, logged!.payload], ["visibility", { kind: "item", item_type: "knowledge", id: "alice/notes/vis_note", from: "private", to: "unlisted", actor: "alice" }]);
  });

  test("yank moves latest and the search document, keeps explicit pulls, logs; unyank restores", async () => {
    await publish("alice/notes/yank_note", "1.0.0", "Mentions alphaword only.");
    await publish("alice/notes/yank_note", "1.1.0", "Mentions betaword only.");
    assert.equal((await call("GET", "/v1/search?query=alphaword")).body.total, 0);
    const yank = await call("POST", "/v1/yank/knowledge/alice/notes/yank_note", tokens.alice, { version: "1.1.0", reason: "broken" });
    assert.equal(yank.status, 200, JSON.stringify(yank.body));
    assert.deepEqual({ ...yank.body, log_index: 0 }, { status: "yanked", item_type: "knowledge", item_id: "alice/notes/yank_note", version: "1.1.0", reason: "broken", latest_version: "1.0.0", log_index: 0 });
    const entry = await lastLogEntry();
    assert.equal(Number(entry!.index), yank.body.log_index);
    assert.equal(entry!.kind, "yank");
    assert.deepEqual(entry!.payload, { kind: "item", item_type: "knowledge", id: "alice/notes/yank_note", version: "1.1.0", reason: "broken", actor: "alice" });
    assert.equal((await pull("alice/notes/yank_note")).body.version, "1.0.0");
    const pinned = await pull("alice/notes/yank_note?version=1.1.0");
    assert.equal(pinned.status, 200, "a yanked version stays pullable by explicit version");
    assert.deepEqual([pinned.body.yanked, pinned.body.yanked_reason], [true, "broken"]);
    const found = await call("GET", "/v1/search?query=alphaword");
    assert.deepEqual(found.body.results.map((r: Json) => [r.item_id, r.version]), [["alice/notes/yank_note", "1.0.0"]]);
    const detail = await call("GET", "/v1/items/knowledge/alice/notes/yank_note");
    assert.deepEqual(detail.body.versions.map((v: Json) => [v.version, v.yanked, v.yanked_reason]), [["1.1.0", true, "broken"], ["1.0.0", false, null]]);

    const unyank = await call("POST", "/v1/unyank/knowledge/alice/notes/yank_note", tokens.alice, { version: "1.1.0" });
    assert.equal(unyank.body.status, "unyanked");
    assert.equal(unyank.body.latest_version, "1.1.0");
    assert.equal((await lastLogEntry())!.kind, "unyank");
    assert.equal((await pull("alice/notes/yank_note")).body.version, "1.1.0");
    assert.equal((await call("GET", "/v1/search?query=betaword")).body.total, 1);
    assert.equal((await reg.db.prisma.auditEvent.count({ where: { action: { in: ["item.yank", "item.unyank"] } } })), 2);
  });

  test("yanking every version leaves no latest; explicit versions still pull", async () => {
    await publish("alice/notes/all_yanked");
    const yank = await call("POST", "/v1/yank/knowledge/alice/notes/all_yanked", tokens.alice, { version: "1.0.0" });
    assert.equal(yank.body.latest_version, null);
    assert.equal(yank.body.reason, null);
    assert.equal((await pull("alice/notes/all_yanked")).status, 404);
    assert.equal((await pull("alice/notes/all_yanked?version=1.0.0")).status, 200);
    assert.equal((await call("GET", "/v1/search?query=all_yanked")).body.results[0].version, null);
  });

  test("deprecate with a message, then undo", async () => {
    await publish("alice/notes/old_note");
    const dep = await call("POST", "/v1/deprecate/knowledge/alice/notes/old_note", tokens.alice, { message: "Use alice/notes/new_note" });
    assert.deepEqual(dep.body, { status: "deprecated", item_type: "knowledge", item_id: "alice/notes/old_note", deprecated: true, deprecation_message: "Use alice/notes/new_note" });
    assert.equal((await call("GET", "/v1/search?query=old_note")).body.results[0].deprecated, true);
    assert.equal((await pull("alice/notes/old_note")).body.deprecation_message, "Use alice/notes/new_note");
    const undo = await call("POST", "/v1/deprecate/knowledge/alice/notes/old_note", tokens.alice, { deprecated: false });
    assert.deepEqual([undo.body.status, undo.body.deprecated, undo.body.deprecation_message], ["undeprecated", false, null]);
    assert.equal((await call("GET", "/v1/items/knowledge/alice/notes/old_note")).body.deprecated, false);
  });

  test("a fresh, never-downloaded version or item can be deleted (original shape), with log and audit", async () => {
    await publish("alice/notes/del_note", "1.0.0");
    await publish("alice/notes/del_note", "1.1.0");
    const one = await call("DELETE", "/v1/delete/knowledge/alice/notes/del_note?version=1.1.0", tokens.alice);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.deepEqual(one.body, { status: "deleted", item_type: "knowledge", item_id: "alice/notes/del_note", version: "1.1.0", deleted_versions: ["1.1.0"] });
    assert.equal((await itemRow("del_note"))!.latestVersion, "1.0.0");
    assert.equal((await pull("alice/notes/del_note?version=1.1.0")).status, 404);
    const all = await call("DELETE", "/v1/delete/knowledge/alice/notes/del_note", tokens.alice);
    assert.deepEqual(all.body, { status: "deleted", item_type: "knowledge", item_id: "alice/notes/del_note", version: "all", deleted_versions: ["1.0.0"] });
    assert.equal(await itemRow("del_note"), null);
    const entry = await lastLogEntry();
    assert.equal(entry!.kind, "delete");
    assert.deepEqual(entry!.payload, { kind: "item", item_type: "knowledge", id: "alice/notes/del_note", version: "all", versions: ["1.0.0"], forced: false, actor: "alice" });
    assert.equal(await reg.db.prisma.auditEvent.count({ where: { action: "item.delete" } }), 2);

    await publish("alice/notes/single_note");
    const last = await call("DELETE", "/v1/delete/knowledge/alice/notes/single_note?version=1.0.0", tokens.alice);
    assert.deepEqual(last.body.deleted_versions, ["1.0.0"]);
    assert.equal(await itemRow("single_note"), null, "deleting the last version deletes the item");
  });

  test("transfer moves an item between a user and an organization; the id changes, the signed content does not", async () => {
    await publish("alice/notes/move_note");
    const before = await pull("alice/notes/move_note");
    const moved = await call("POST", "/v1/transfer/knowledge/alice/notes/move_note", tokens.alice, { to_namespace: "acme" });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(moved.body, { status: "transferred", item_type: "knowledge", item_id: "acme/notes/move_note", previous_item_id: "alice/notes/move_note", namespace: "acme", previous_namespace: "alice" });
    assert.equal((await pull("alice/notes/move_note")).status, 404);
    const after = await pull("acme/notes/move_note");
    assert.equal(after.body.content, before.body.content);
    const sig = extractSignature(after.body.content, "knowledge");
    assert.ok(sig.status === "signed" && sig.signature.username === "alice", "provenance still names the publisher");
    assert.equal((await call("GET", "/v1/search?query=move_note")).body.results[0].item_id, "acme/notes/move_note");
    const back = await call("POST", "/v1/transfer/knowledge/acme/notes/move_note", tokens.alice, { to_namespace: "ALICE" });
    assert.equal(back.body.item_id, "alice/notes/move_note");
  });
});

describe("errors", () => {
  test("the deletion policy: downloaded or older than 72 h is 409 with a yank hint; force is for registry admins", async () => {
    await publish("alice/notes/popular");
    assert.equal((await pull("alice/notes/popular")).status, 200);
    // The download is still in memory (written in batches): the delete route writes it before applying the policy.
    const downloaded = await call("DELETE", "/v1/delete/knowledge/alice/notes/popular?version=1.0.0", tokens.alice);
    assert.equal(downloaded.status, 409);
    assert.equal(downloaded.body.error.code, "CONFLICT");
    assert.match(downloaded.body.error.hint, /\/v1\/yank\//);
    assert.match(downloaded.body.error.message, /downloaded/);

    await publish("alice/notes/aged");
    await reg.db.prisma.itemVersion.updateMany({ where: { item: { name: "aged" } }, data: { createdAt: new Date(Date.now() - 73 * 3600_000) } });
    const aged = await call("DELETE", "/v1/delete/knowledge/alice/notes/aged", tokens.alice);
    assert.equal(aged.status, 409);
    assert.deepEqual(aged.body.error.details.published_before_window, ["1.0.0"]);
    const notForced = await call("DELETE", "/v1/delete/knowledge/alice/notes/aged?force=true", tokens.alice);
    assert.equal(notForced.status, 403);
    assert.equal(notForced.body.error.code, "FORBIDDEN");
    assert.equal((await call("DELETE", "/v1/delete/knowledge/alice/notes/aged?force=yes", tokens.root)).body.error.code, "BAD_REQUEST");
    assert.ok(await itemRow("aged"), "refusals change nothing");
    const forced = await call("DELETE", "/v1/delete/knowledge/alice/notes/popular?force=true", tokens.root);
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    assert.equal((await lastLogEntry())!.payload && ((await lastLogEntry())!.payload as Json).forced, true);
    assert.equal((await call("DELETE", "/v1/delete/knowledge/alice/notes/aged?version=9.9.9", tokens.alice)).body.error.code, "ITEM_NOT_FOUND");
    assert.equal((await call("DELETE", "/v1/delete/knowledge/alice/notes/aged?version=latest", tokens.alice)).body.error.code, "INVALID_VERSION");
  });

  test("yank and unyank: unknown and invalid versions, repeated calls", async () => {
    await publish("alice/notes/yank_errors");
    const path = "/v1/yank/knowledge/alice/notes/yank_errors";
    assert.equal((await call("POST", path, tokens.alice, { version: "9.9.9" })).body.error.code, "ITEM_NOT_FOUND");
    assert.equal((await call("POST", path, tokens.alice, { version: "one" })).body.error.code, "INVALID_VERSION");
    assert.equal((await call("POST", path, tokens.alice, {})).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", path, tokens.alice, { version: "1.0.0" })).status, 200);
    const again = await call("POST", path, tokens.alice, { version: "1.0.0" });
    assert.deepEqual([again.status, again.body.error.code], [409, "CONFLICT"]);
    assert.equal((await call("POST", "/v1/unyank/knowledge/alice/notes/yank_errors", tokens.alice, { version: "1.0.0" })).status, 200);
    assert.equal((await call("POST", "/v1/unyank/knowledge/alice/notes/yank_errors", tokens.alice, { version: "1.0.0" })).body.error.code, "CONFLICT");
  });

  test("bad bodies, types, ids and unknown items have codes", async () => {
    await publish("alice/notes/err_note");
    const vis = "/v1/visibility/knowledge/alice/notes/err_note";
    assert.equal((await call("POST", vis, tokens.alice, { visibility: "secret" })).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", vis, tokens.alice, "{not json")).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", vis, tokens.alice)).status, 400);
    assert.equal((await call("POST", vis, tokens.alice, { visibility: "x".repeat(20_000) })).status, 413);
    const dep = "/v1/deprecate/knowledge/alice/notes/err_note";
    assert.equal((await call("POST", dep, tokens.alice, {})).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", dep, tokens.alice, { message: "   " })).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", dep, tokens.alice, { deprecated: false, message: "x" })).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", "/v1/publish/widget/alice/notes/err_note", tokens.alice)).body.error.code, "INVALID_ITEM_TYPE");
    assert.equal((await call("POST", "/v1/publish/knowledge/alice/err_note", tokens.alice)).body.error.code, "INVALID_ITEM_ID");
    assert.equal((await call("POST", "/v1/publish/knowledge/alice/notes/nothing", tokens.alice)).body.error.code, "ITEM_NOT_FOUND");
    assert.equal((await call("DELETE", "/v1/delete/directive/alice/notes/err_note", tokens.alice)).body.error.code, "ITEM_NOT_FOUND");
  });

  test("transfer: same namespace, unknown namespace, name taken", async () => {
    await publish("alice/notes/clash");
    await publish("acme/notes/clash");
    const path = "/v1/transfer/knowledge/alice/notes/clash";
    assert.equal((await call("POST", path, tokens.alice, { to_namespace: "alice" })).body.error.code, "BAD_REQUEST");
    assert.equal((await call("POST", path, tokens.alice, { to_namespace: "nobody-here" })).status, 404);
    const taken = await call("POST", path, tokens.alice, { to_namespace: "acme" });
    assert.deepEqual([taken.status, taken.body.error.code], [409, "CONFLICT"]);
    assert.equal((await call("POST", path, tokens.alice, {})).body.error.code, "BAD_REQUEST");
    assert.ok(await reg.db.prisma.item.findFirst({ where: { name: "clash", namespace: { name: "alice" } } }));
  });
});

describe("security", () => {
  const routes = (id: string): [string, string, unknown][] => [
    ["POST", `/v1/visibility/knowledge/${id}`, { visibility: "private" }],
    ["POST", `/v1/publish/knowledge/${id}`, undefined],
    ["POST", `/v1/unpublish/knowledge/${id}`, undefined],
    ["POST", `/v1/yank/knowledge/${id}`, { version: "1.0.0" }],
    ["POST", `/v1/unyank/knowledge/${id}`, { version: "1.0.0" }],
    ["POST", `/v1/deprecate/knowledge/${id}`, { message: "gone" }],
    ["DELETE", `/v1/delete/knowledge/${id}`, undefined],
    ["POST", `/v1/transfer/knowledge/${id}`, { to_namespace: "bob" }],
  ];

  test("every route needs a token with items:write", async () => {
    await publish("alice/notes/guarded");
    const readOnly = await reg.token(alice, { scopes: ["items:read"] });
    for (const [method, path, body] of routes("alice/notes/guarded")) {
      assert.equal((await call(method, path, undefined, body)).status, 401, path);
      assert.equal((await call(method, path, "rye_invalid", body)).status, 401, path);
      const r = await call(method, path, readOnly, body);
      assert.deepEqual([r.status, r.body.error.code], [403, "FORBIDDEN"], path);
    }
    const item = await itemRow("guarded");
    assert.deepEqual([item!.visibility, item!.deprecated, item!.versions.length], ["public", false, 1]);
  });

  test("another user's namespace is 403 — also for items that do not exist, so nothing leaks", async () => {
    await publish("alice/notes/not_yours");
    await publish("acme/notes/org_secret", "1.0.0", undefined, "private");
    for (const id of ["alice/notes/not_yours", "alice/notes/does_not_exist", "acme/notes/org_secret"]) {
      for (const [method, path, body] of routes(id)) {
        const r = await call(method, path, tokens.bob, body);
        assert.deepEqual([r.status, r.body.error.code], [403, "FORBIDDEN"], `${method} ${path}`);
      }
    }
    const item = await itemRow("not_yours");
    assert.deepEqual([item!.visibility, item!.deprecated, item!.namespace.name], ["public", false, "alice"]);
    assert.equal((await itemRow("org_secret"))!.visibility, "private");
  });

  test("organization roles: members may not manage, admins may; registry admins may manage anything", async () => {
    await publish("acme/notes/team_note");
    const member = await call("POST", "/v1/deprecate/knowledge/acme/notes/team_note", tokens.dave, { message: "x" });
    assert.deepEqual([member.status, member.body.error.code], [403, "FORBIDDEN"]);
    assert.equal((await call("POST", "/v1/deprecate/knowledge/acme/notes/team_note", tokens.carol, { message: "by admin" })).status, 200);
    assert.equal((await call("POST", "/v1/unpublish/knowledge/acme/notes/team_note", tokens.root)).status, 200);
    assert.equal((await call("POST", "/v1/publish/knowledge/alice/notes/not_yours", tokens.root)).status, 200);
    const audit = await reg.db.prisma.auditEvent.findFirst({ where: { action: "item.visibility", targetId: "knowledge/acme/notes/team_note" } });
    assert.ok(audit, "registry admin actions are audited too");
  });

  test("transfer needs manage rights on both namespaces; namespace-restricted tokens cannot transfer", async () => {
    await publish("alice/notes/to_bob");
    const intoForeign = await call("POST", "/v1/transfer/knowledge/alice/notes/to_bob", tokens.alice, { to_namespace: "bob" });
    assert.deepEqual([intoForeign.status, intoForeign.body.error.code], [403, "FORBIDDEN"]);
    await publish("acme/notes/team_only");
    const carolOut = await call("POST", "/v1/transfer/knowledge/acme/notes/team_only", tokens.carol, { to_namespace: "carol" });
    assert.equal(carolOut.status, 200, "an org admin may move an org item to their own namespace");
    const daveIn = await call("POST", "/v1/transfer/knowledge/carol/notes/team_only", tokens.dave, { to_namespace: "acme" });
    assert.equal(daveIn.status, 403);
    const restricted = await reg.token(alice, { namespace: "alice" });
    const r = await call("POST", "/v1/transfer/knowledge/alice/notes/to_bob", restricted, { to_namespace: "acme" });
    assert.equal(r.status, 403);
    assert.equal((await itemRow("to_bob"))!.namespace.name, "alice");
  });

  test("a token restricted to an item pattern manages only matching items", async () => {
    await publish("alice/notes/ci_note");
    await publish("alice/notes/other_note");
    const scoped = await reg.token(alice);
    await reg.db.prisma.apiToken.update({ where: { tokenHash: hashToken(scoped) }, data: { itemPattern: "alice/notes/ci_*" } });
    assert.equal((await call("POST", "/v1/deprecate/knowledge/alice/notes/ci_note", scoped, { message: "x" })).status, 200);
    const other = await call("POST", "/v1/deprecate/knowledge/alice/notes/other_note", scoped, { message: "x" });
    assert.deepEqual([other.status, other.body.error.code], [403, "FORBIDDEN"]);
    assert.equal((await call("POST", "/v1/transfer/knowledge/alice/notes/ci_note", scoped, { to_namespace: "acme" })).status, 403);
  });

  test("hostile ids are rejected or not found, never interpreted", async () => {
    const before = await reg.db.prisma.item.count();
    for (const id of ["alice/../bob/x/y", "alice/notes/%00", "../../etc/passwd", "alice/notes/x'; DROP TABLE items;--", "alice/notes/*", "ALICE/notes/%25"]) {
      for (const [method, path, body] of routes(id)) {
        const r = await call(method, path, tokens.alice, body);
        assert.ok([400, 403, 404].includes(r.status), `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }
    assert.equal(await reg.db.prisma.item.count(), before);
  });

  test("concurrent yanks of one version: exactly one succeeds, one log entry", async () => {
    await publish("alice/notes/race_yank");
    const logBefore = await reg.db.prisma.publishLogEntry.count();
    const results = await Promise.all(Array.from({ length: 10 }, () => call("POST", "/v1/yank/knowledge/alice/notes/race_yank", tokens.alice, { version: "1.0.0" })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(9).fill(409)]);
    assert.equal(await reg.db.prisma.publishLogEntry.count(), logBefore + 1);
  });
});
