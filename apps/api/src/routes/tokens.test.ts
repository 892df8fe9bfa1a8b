/** Personal API tokens: happy paths, errors, security (escalation above all), on PostgreSQL and PGlite. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { postgresAvailable } from "@rye/db/testing";
import { type Json, type Session, testClient } from "../../test/session-client.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { hashToken } from "../auth/api-tokens.ts";
import { rateLimit } from "../middleware/rate-limit.ts";

const DAY = 24 * 3600 * 1000;
const days = (iso: string) => (Date.parse(iso) - Date.now()) / DAY;

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
describe(`tokens on ${kind}`, () => {
  let reg: TestRegistry;
  let call: ReturnType<typeof testClient>["call"];
  let alice: Session & TestUser;
  let bob: Session & TestUser;
  const create = (auth: { session?: Session; token?: string }, json: Json) => call("POST", "/v1/tokens", { ...auth, json });

  before(async () => {
    reg = await createTestRegistry({ kind, config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    const client = testClient(reg.deps);
    call = client.call;
    alice = await client.signUp("alice");
    bob = await client.signUp("bob");
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("a session creates a token: the value once, hashed at rest, usable as a bearer token", async () => {
      const r = await create({ session: alice }, { name: "laptop", scopes: ["items:read", "items:write"] });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.match(r.body.token, /^rye_pat_[A-Za-z0-9_-]{43}$/);
      assert.equal(r.body.prefix, r.body.token.slice(0, 12));
      assert.deepEqual(r.body.scopes, ["items:read", "items:write"]);
      assert.ok(Math.abs(days(r.body.expires_at) - 90) < 0.01, "90 days by default");
      const row = await reg.db.prisma.apiToken.findUniqueOrThrow({ where: { id: r.body.id } });
      assert.equal(row.tokenHash, hashToken(r.body.token));
      assert.equal(row.tokenPrefix, r.body.prefix);
      assert.equal(row.orgId, null);
      const me = await call("GET", "/v1/me", { token: r.body.token });
      assert.equal(me.status, 200);
      assert.deepEqual([me.body.username, me.body.token.type, me.body.token.id], ["alice", "pat", r.body.id]);
      const audit = await reg.db.prisma.auditEvent.findFirstOrThrow({ where: { action: "token.create", targetId: r.body.id } });
      assert.equal(audit.actorId, alice.id);
    });

    test("listing shows metadata and last use, never the secret; revoking ends the token", async () => {
      const made = await create({ session: alice }, { name: "ci", scopes: ["items:read"], expires_in_days: 7, namespace: "Alice", item_pattern: "alice/ci/*" });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.namespace, "alice");
      assert.equal(made.body.item_pattern, "alice/ci/*");
      assert.ok(Math.abs(days(made.body.expires_at) - 7) < 0.01);
      await call("GET", "/v1/me", { token: made.body.token });
      const list = await call("GET", "/v1/tokens", { session: alice });
      assert.equal(list.status, 200);
      const listed = list.body.tokens.find((t: Json) => t.id === made.body.id);
      assert.deepEqual(Object.keys(listed).sort(), ["created_at", "expires_at", "id", "item_pattern", "last_used_at", "name", "namespace", "prefix", "revoked", "scopes"]);
      assert.ok(listed.last_used_at);
      assert.equal(listed.revoked, false);
      assert.ok(!JSON.stringify(list.body).includes(made.body.token));
      const revoked = await call("DELETE", `/v1/tokens/${made.body.id}`, { session: alice });
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.revoked, true);
      assert.equal((await call("GET", "/v1/me", { token: made.body.token })).status, 401);
      assert.equal((await call("DELETE", `/v1/tokens/${made.body.id}`, { session: alice })).status, 200, "revoking twice is harmless");
      assert.equal(await reg.db.prisma.auditEvent.count({ where: { action: "token.revoke", targetId: made.body.id } }), 1);
    });

    test("a token mints a narrower token, which never outlives it", async () => {
      const parent = await reg.token(alice, { scopes: ["items:read", "items:write"], expiresAt: new Date(Date.now() + 30 * DAY) });
      const child = await create({ token: parent }, { name: "read only", scopes: ["items:read"] });
      assert.equal(child.status, 201, JSON.stringify(child.body));
      assert.ok(Math.abs(days(child.body.expires_at) - 30) < 0.01, "the default is clamped to the parent's expiry");
      const shorter = await create({ token: parent }, { name: "short", scopes: ["items:write"], expires_in_days: 10 });
      assert.equal(shorter.status, 201);
      const audit = await reg.db.prisma.auditEvent.findFirstOrThrow({ where: { action: "token.create", targetId: child.body.id } });
      assert.equal((audit.details as Json).via_token, (await reg.db.prisma.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(parent) } })).id);
    });
  });

  describe("errors", () => {
    test("invalid requests are 400 with the field named", async () => {
      const bad: [Json, string][] = [
        [{ name: "x", scopes: ["admin:all"] }, "scopes.0"],
        [{ name: "x", scopes: [] }, "scopes"],
        [{ name: "", scopes: ["items:read"] }, "name"],
        [{ name: "x".repeat(101), scopes: ["items:read"] }, "name"],
        [{ name: "x", scopes: ["items:read"], expires_in_days: 0 }, "expires_in_days"],
        [{ name: "x", scopes: ["items:read"], expires_in_days: 366 }, "expires_in_days"],
        [{ name: "x", scopes: ["items:read"], expires_in_days: 1.5 }, "expires_in_days"],
        [{ name: "x", scopes: ["items:read"], expires_in_days: null }, "expires_in_days"],
        [{ name: "x", scopes: ["items:read"], user_id: bob.id }, ""],
        [{ name: "x", scopes: "items:read" }, "scopes"],
        [{ name: "ci\u0000", scopes: ["items:read"] }, "name"],
        [{ name: "x", scopes: ["items:read"], namespace: "x".repeat(40) }, "namespace"],
      ];
      for (const [json, field] of bad) {
        const r = await create({ session: alice }, json);
        assert.equal(r.status, 400, JSON.stringify(json));
        assert.equal(r.body.error.code, "BAD_REQUEST");
        assert.ok(r.body.error.details.some((d: Json) => d.field === field), `${JSON.stringify(json)}: ${JSON.stringify(r.body.error.details)}`);
      }
    });

    test("namespace and item pattern are checked", async () => {
      const cases: [Json, string][] = [
        [{ namespace: "bob" }, "namespace"],
        [{ namespace: "nowhere" }, "namespace"],
        [{ namespace: "ali\u0000ce" }, "namespace"],
        [{ item_pattern: "alice" }, "item_pattern"],
        [{ item_pattern: "alice/**/x" }, "item_pattern"],
        [{ namespace: "alice", item_pattern: "bob/*" }, "item_pattern"],
      ];
      for (const [extra, field] of cases) {
        const r = await create({ session: alice }, { name: "x", scopes: ["items:write"], ...extra });
        assert.equal(r.status, 400, JSON.stringify(extra));
        // NUL is refused for every JSON body before its route checks what the field means.
        assert.equal(r.body.error.code, JSON.stringify(extra).includes("\\u0000") ? "BAD_REQUEST" : "VALIDATION_FAILED");
        assert.equal(r.body.error.details[0].field, field);
      }
    });

    test("unknown and malformed token ids are 404", async () => {
      for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1' OR '1'='1"]) {
        const r = await call("DELETE", `/v1/tokens/${encodeURIComponent(id)}`, { session: alice });
        assert.equal(r.status, 404, id);
      }
    });
  });

  describe("security", () => {
    test("no session, no CSRF token, wrong CSRF token", async () => {
      const json = { name: "x", scopes: ["items:read"] };
      assert.equal((await call("POST", "/v1/tokens", { json })).status, 401);
      assert.equal((await call("GET", "/v1/tokens")).status, 401);
      assert.equal((await call("POST", "/v1/tokens", { json, session: alice, csrf: null })).status, 403);
      assert.equal((await call("POST", "/v1/tokens", { json, session: alice, csrf: bob.csrf })).status, 403, "another session's CSRF token");
      const list = await call("GET", "/v1/tokens", { session: alice });
      const id = list.body.tokens[0].id;
      assert.equal((await call("DELETE", `/v1/tokens/${id}`, { session: alice, csrf: null })).status, 403);
      assert.equal((await reg.db.prisma.apiToken.findUniqueOrThrow({ where: { id } })).revokedAt, null);
    });

    test("escalation: a token cannot mint broader scopes, a longer life, another namespace or pattern", async () => {
      const readOnly = await reg.token(alice, { scopes: ["items:read"], expiresAt: new Date(Date.now() + 10 * DAY) });
      for (const scopes of [["items:write"], ["org:admin"], ["items:read", "items:write"]]) {
        const r = await create({ token: readOnly }, { name: "up", scopes });
        assert.equal(r.status, 403, JSON.stringify(scopes));
        assert.equal(r.body.error.code, "FORBIDDEN");
      }
      assert.equal((await create({ token: readOnly }, { name: "long", scopes: ["items:read"], expires_in_days: 11 })).status, 403);
      const scoped = await reg.token(alice, { namespace: "alice" });
      const inherits = await create({ token: scoped }, { name: "same ns", scopes: ["items:read"] });
      assert.equal(inherits.body.namespace, "alice", "the namespace restriction is inherited");
      await reg.createOrg("acme", [{ user: alice, role: "owner" }]);
      assert.equal((await create({ token: scoped }, { name: "other ns", scopes: ["items:read"], namespace: "acme" })).status, 403);
      const patterned = await create({ session: alice }, { name: "pattern", scopes: ["items:write"], item_pattern: "alice/ci/*" });
      assert.equal(patterned.body.item_pattern, "alice/ci/*");
      assert.equal((await create({ token: patterned.body.token }, { name: "wider", scopes: ["items:write"], item_pattern: "alice/**" })).status, 403);
      assert.equal((await create({ token: patterned.body.token }, { name: "same", scopes: ["items:write"] })).body.item_pattern, "alice/ci/*");
      const orgToken = await reg.db.prisma.apiToken.create({ data: { userId: alice.id, orgId: (await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } })).id, name: "ci", tokenHash: hashToken("rye_pat_orgtoken-for-test"), scopes: ["items:read"], namespace: "acme" } });
      assert.ok(orgToken);
      assert.equal((await create({ token: "rye_pat_orgtoken-for-test" }, { name: "escape", scopes: ["items:read"], namespace: "acme" })).status, 403, "organization tokens cannot mint personal tokens");
      assert.equal((await call("GET", "/v1/tokens", { token: "rye_pat_orgtoken-for-test" })).status, 403, "nor see the creator's");
      assert.equal((await call("DELETE", `/v1/tokens/${patterned.body.id}`, { token: "rye_pat_orgtoken-for-test" })).status, 403, "nor revoke them");
    });

    test("revoked and expired tokens cannot mint, list or revoke", async () => {
      const revoked = await reg.token(alice, { revoked: true });
      const expired = await reg.token(alice, { expiresAt: new Date(Date.now() - 1000) });
      for (const token of [revoked, expired]) {
        assert.equal((await create({ token }, { name: "x", scopes: ["items:read"] })).status, 401);
        assert.equal((await call("GET", "/v1/tokens", { token })).status, 401);
      }
    });

    test("tokens are private to their user; narrower tokens cannot revoke broader ones", async () => {
      const mine = await create({ session: alice }, { name: "mine", scopes: ["items:read", "items:write"] });
      const list = await call("GET", "/v1/tokens", { session: bob });
      assert.ok(!list.body.tokens.some((t: Json) => t.id === mine.body.id));
      assert.equal((await call("DELETE", `/v1/tokens/${mine.body.id}`, { session: bob })).status, 404);
      const bobToken = await reg.token(bob, { scopes: ["items:read", "items:write", "org:admin"] });
      assert.equal((await call("DELETE", `/v1/tokens/${mine.body.id}`, { token: bobToken })).status, 404);
      const readOnly = await create({ session: alice }, { name: "ro", scopes: ["items:read"] });
      assert.equal((await call("DELETE", `/v1/tokens/${mine.body.id}`, { token: readOnly.body.token })).status, 403);
      assert.equal((await call("DELETE", `/v1/tokens/${readOnly.body.id}`, { token: readOnly.body.token })).status, 200, "a token may revoke itself");
      assert.equal((await call("GET", "/v1/me", { token: mine.body.token })).status, 200);
    });

    test("a disabled user's tokens cannot mint", async () => {
      const carol = await reg.createUser("carol");
      const token = await reg.token(carol);
      await reg.db.prisma.user.update({ where: { id: carol.id }, data: { disabledAt: new Date() } });
      assert.equal((await create({ token }, { name: "x", scopes: ["items:read"] })).status, 401);
      assert.equal(await reg.db.prisma.apiToken.count({ where: { userId: carol.id } }), 1);
    });
  });
});
}
