/**
 * The website's session cookie on the routes the CLI uses with bearer tokens (push, item management,
 * author keys): happy paths, errors (missing/wrong CSRF, no session) and security (same namespace
 * rules as tokens; a bearer token still wins and keeps its own scopes).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { KeyPair } from "@rye/core";
import { generateKeyPair, signItem } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { type Json, type Session, testClient } from "../../test/session-client.ts";

const knowledge = (id: string, version = "1.0.0", category = "notes") =>
  `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: ${category}\n---\n\nBody of ${id}.\n`;

let reg: TestRegistry;
let client: ReturnType<typeof testClient>;
let alice: Session & { username: string };
let bob: Session & { username: string };
let aliceKey: KeyPair;

async function signed(id: string, version = "1.0.0", key = aliceKey): Promise<string> {
  return (await signItem(knowledge(id, version), "knowledge", key)).content;
}
function pushBody(itemId: string, content: string, version = "1.0.0", visibility?: string) {
  return { item_type: "knowledge", item_id: itemId, content, version, ...(visibility ? { metadata: { visibility } } : {}) };
}

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
  client = testClient(reg.deps);
  alice = await client.signUp("alice");
  bob = await client.signUp("bob");
  aliceKey = await generateKeyPair();
});
after(() => reg.close());

describe("happy paths", () => {
  test("a signed-in browser registers its key, pushes a signed item and sees it", async () => {
    const none = await client.call("GET", "/v1/me/keys", { session: alice });
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.deepEqual(none.body.keys, []);
    const registered = await client.call("POST", "/v1/me/keys", { session: alice, json: { public_key: aliceKey.publicKey.pem, label: "browser" } });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.equal(registered.body.key.fingerprint, aliceKey.publicKey.fingerprint);

    const pushed = await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/web_note", await signed("web_note")) });
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    assert.equal(pushed.body.version, "1.0.0");
    assert.equal(pushed.body.signature.registry_username, "alice");
    assert.equal(pushed.body.attestation.payload.author.fingerprint, aliceKey.publicKey.fingerprint);

    const audit = await reg.db.prisma.auditEvent.findFirst({ where: { action: "item.publish", targetId: "knowledge/alice/notes/web_note@1.0.0" } });
    assert.equal(audit?.actorId, alice.id);
  });

  test("the owner manages the item from the browser: visibility, yank/unyank, deprecate, transfer, delete", async () => {
    await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/managed", await signed("managed")) });
    await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/managed", await signed("managed", "1.1.0"), "1.1.0") });
    const path = "knowledge/alice/notes/managed";
    const vis = await client.call("POST", `/v1/visibility/${path}`, { session: alice, json: { visibility: "private" } });
    assert.equal(vis.status, 200, JSON.stringify(vis.body));
    assert.equal(vis.body.visibility, "private");
    const yank = await client.call("POST", `/v1/yank/${path}`, { session: alice, json: { version: "1.1.0", reason: "broken" } });
    assert.equal(yank.status, 200, JSON.stringify(yank.body));
    assert.equal(yank.body.latest_version, "1.0.0");
    assert.equal((await client.call("POST", `/v1/unyank/${path}`, { session: alice, json: { version: "1.1.0" } })).status, 200);
    const dep = await client.call("POST", `/v1/deprecate/${path}`, { session: alice, json: { message: "use alice/notes/other" } });
    assert.equal(dep.body.status, "deprecated");
    assert.equal((await client.call("POST", `/v1/deprecate/${path}`, { session: alice, json: { deprecated: false } })).body.status, "undeprecated");

    await client.call("POST", "/v1/orgs", { session: alice, json: { name: "acme-web" } });
    const moved = await client.call("POST", `/v1/transfer/${path}`, { session: alice, json: { to_namespace: "acme-web" } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.item_id, "acme-web/notes/managed");

    const del = await client.call("DELETE", "/v1/delete/knowledge/acme-web/notes/managed?version=1.1.0", { session: alice });
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(del.body.deleted_versions, ["1.1.0"]);
  });
});

describe("errors", () => {
  test("state changes without the session's CSRF token are refused with 403 and change nothing", async () => {
    const content = await signed("no_csrf");
    for (const csrf of [null, "wrong-token", `${alice.csrf}x`]) {
      const push = await client.call("POST", "/v1/push", { session: alice, csrf, json: pushBody("alice/notes/no_csrf", content) });
      assert.equal(push.status, 403, JSON.stringify(push.body));
      assert.equal(push.body.error.code, "FORBIDDEN");
      assert.match(push.body.error.message, /CSRF/);
    }
    assert.equal(await reg.db.prisma.item.count({ where: { name: "no_csrf" } }), 0);

    await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/csrf_target", await signed("csrf_target")) });
    const yank = await client.call("POST", "/v1/yank/knowledge/alice/notes/csrf_target", { session: alice, csrf: null, json: { version: "1.0.0" } });
    assert.equal(yank.status, 403);
    const del = await client.call("DELETE", "/v1/delete/knowledge/alice/notes/csrf_target", { session: alice, csrf: null });
    assert.equal(del.status, 403);
    const key = await client.call("POST", "/v1/me/keys", { session: alice, csrf: null, json: { public_key: (await generateKeyPair()).publicKey.pem } });
    assert.equal(key.status, 403);
    assert.equal((await reg.db.prisma.itemVersion.findFirst({ where: { item: { name: "csrf_target" } } }))?.yanked, false);
  });

  test("another session's CSRF token does not work", async () => {
    const push = await client.call("POST", "/v1/push", { session: alice, csrf: bob.csrf, json: pushBody("alice/notes/other_csrf", await signed("other_csrf")) });
    assert.equal(push.status, 403);
  });

  test("no session and no token: 401 with a hint to sign in", async () => {
    const push = await client.call("POST", "/v1/push", { json: pushBody("alice/notes/anon", await signed("anon")) });
    assert.equal(push.status, 401);
    assert.match(push.body.error.hint, /Sign in/);
    assert.equal((await client.call("GET", "/v1/me/keys")).status, 401);
    const expired = { ...alice, cookie: "rye_session=not-a-session" };
    assert.equal((await client.call("POST", "/v1/yank/knowledge/alice/notes/web_note", { session: expired, json: { version: "1.0.0" } })).status, 401);
  });

  test("server-side answers reach the browser as the envelope: duplicate version 409, unregistered key", async () => {
    const dup = await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/web_note", await signed("web_note")) });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, "VERSION_EXISTS");
    const stranger = await generateKeyPair();
    const untrusted = await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/stranger", await signed("stranger", "1.0.0", stranger)) });
    assert.equal(untrusted.body.error.code, "UNTRUSTED_KEY");
  });
});

describe("security", () => {
  test("a session cannot publish to or manage another user's namespace", async () => {
    const push = await client.call("POST", "/v1/push", { session: bob, json: pushBody("alice/notes/by_bob", knowledge("by_bob")) });
    assert.equal(push.status, 403, JSON.stringify(push.body));
    assert.equal(await reg.db.prisma.item.count({ where: { name: "by_bob" } }), 0);
    for (const [method, path, json] of [
      ["POST", "/v1/visibility/knowledge/alice/notes/web_note", { visibility: "private" }],
      ["POST", "/v1/yank/knowledge/alice/notes/web_note", { version: "1.0.0" }],
      ["POST", "/v1/deprecate/knowledge/alice/notes/web_note", { message: "mine now" }],
      ["POST", "/v1/transfer/knowledge/alice/notes/web_note", { to_namespace: "bob" }],
      ["DELETE", "/v1/delete/knowledge/alice/notes/web_note", undefined],
    ] as const) {
      const r = await client.call(method, path, { session: bob, ...(json ? { json } : {}) });
      assert.equal(r.status, 403, `${method} ${path}: ${JSON.stringify(r.body)}`);
    }
    const item = await reg.db.prisma.item.findFirst({ where: { name: "web_note" }, include: { namespace: true } });
    assert.equal(item?.namespace.name, "alice");
    assert.equal(item?.visibility, "public");
    assert.equal(item?.deprecated, false);
  });

  test("an org member (not admin) may publish there from the browser but not manage", async () => {
    await client.call("POST", "/v1/orgs", { session: alice, json: { name: "team-web" } });
    const org = await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "team-web" } });
    await reg.db.prisma.membership.create({ data: { orgId: org.id, userId: bob.id, role: "member" } });
    const bobKey = await generateKeyPair();
    await client.call("POST", "/v1/me/keys", { session: bob, json: { public_key: bobKey.publicKey.pem } });
    const pushed = await client.call("POST", "/v1/push", { session: bob, json: pushBody("team-web/notes/shared", await signed("shared", "1.0.0", bobKey)) });
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    const yank = await client.call("POST", "/v1/yank/knowledge/team-web/notes/shared", { session: bob, json: { version: "1.0.0" } });
    assert.equal(yank.status, 403);
    assert.match(yank.body.error.message, /owner or admin/);
  });

  test("a bearer token wins over the cookie and keeps its own scopes", async () => {
    const user = await reg.db.prisma.user.findUniqueOrThrow({ where: { username: "alice" } });
    const readOnly = await reg.token({ id: user.id, username: "alice" }, { scopes: ["items:read"] });
    const push = await client.call("POST", "/v1/push", { session: alice, token: readOnly, json: pushBody("alice/notes/scoped", await signed("scoped")) });
    assert.equal(push.status, 403);
    assert.match(push.body.error.message, /items:write/);
  });

  test("a private item pulls and shows for a member's session and stays 404 for other sessions and anonymous callers", async () => {
    const pushed = await client.call("POST", "/v1/push", { session: alice, json: pushBody("alice/notes/secret_web", await signed("secret_web"), "1.0.0", "private") });
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    const mine = await client.call("GET", "/v1/pull/knowledge/alice/notes/secret_web", { session: alice, csrf: null });
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.equal(mine.res.headers.get("cache-control"), "private, no-cache");
    assert.equal((await client.call("GET", "/v1/pull/knowledge/alice/notes/secret_web", { session: bob })).status, 404);
    assert.equal((await client.call("GET", "/v1/pull/knowledge/alice/notes/secret_web")).status, 404);
    const meta = await client.call("GET", "/v1/items/knowledge/alice/notes/secret_web", { session: alice });
    assert.equal(meta.status, 200, JSON.stringify(meta.body));
    assert.equal(meta.body.visibility, "private");
    assert.equal((await client.call("GET", "/v1/items/knowledge/alice/notes/secret_web", { session: bob })).status, 404);
    assert.equal((await client.call("GET", "/v1/items/knowledge/alice/notes/secret_web")).status, 404);
  });

  test("session keys are the account's: bob's session does not list alice's keys", async () => {
    const list = await client.call("GET", "/v1/me/keys", { session: bob });
    assert.ok(!list.body.keys.some((k: Json) => k.fingerprint === aliceKey.publicKey.fingerprint));
  });
});
