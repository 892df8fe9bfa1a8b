/** Organizations, members, invitations and organization tokens: happy paths, errors, security, on PostgreSQL and PGlite. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { postgresAvailable } from "@rye/db/testing";
import { type Json, type Session, testClient } from "../../test/session-client.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
describe(`organizations on ${kind}`, () => {
  let reg: TestRegistry;
  let client: ReturnType<typeof testClient>;
  let call: ReturnType<typeof testClient>["call"];
  let owner: Session & TestUser;
  let admin: Session & TestUser;
  let member: Session & TestUser;
  let outsider: Session & TestUser;

  const invite = (session: Session, org: string, json: Json) => call("POST", `/v1/orgs/${org}/invitations`, { session, json });
  const accept = (session: Session, token: string) => call("POST", "/v1/orgs/invitations/accept", { session, json: { token } });
  const setRole = (session: Session, org: string, username: string, role: string) => call("PATCH", `/v1/orgs/${org}/members/${username}`, { session, json: { role } });
  const remove = (session: Session, org: string, username: string) => call("DELETE", `/v1/orgs/${org}/members/${username}`, { session });
  async function join(org: string, by: Session, who: Session & TestUser, role: string): Promise<void> {
    const inv = await invite(by, org, { username: who.username, role });
    assert.equal(inv.status, 201, JSON.stringify(inv.body));
    assert.equal((await accept(who, inv.body.token)).status, 200);
  }
  const roles = async (org: string, session: Session) => Object.fromEntries((await call("GET", `/v1/orgs/${org}`, { session })).body.members.map((m: Json) => [m.username, m.role]));

  before(async () => {
    reg = await createTestRegistry({ kind, config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    client = testClient(reg.deps);
    call = client.call;
    [owner, admin, member, outsider] = [await client.signUp("olivia"), await client.signUp("adam"), await client.signUp("mia"), await client.signUp("oscar")];
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("create: the creator owns it, it gets a namespace, the event is audited", async () => {
      const r = await call("POST", "/v1/orgs", { session: owner, json: { name: "Acme", display_name: " Acme Corp " } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual({ ...r.body, created_at: undefined }, { name: "acme", display_name: "Acme Corp", role: "owner", created_at: undefined });
      const org = await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" }, include: { namespace: true, memberships: true } });
      assert.equal(org.namespace?.name, "acme");
      assert.deepEqual(org.memberships.map((m) => [m.userId, m.role]), [[owner.id, "owner"]]);
      assert.equal(await reg.db.prisma.auditEvent.count({ where: { action: "org.create", targetId: org.id, actorId: owner.id } }), 1);
    });

    test("invite by username, accept, manage roles; members see members, the public sees a summary", async () => {
      await join("acme", owner, admin, "admin");
      await join("acme", admin, member, "member");
      assert.deepEqual(await roles("acme", member), { olivia: "owner", adam: "admin", mia: "member" });
      const pub = await call("GET", "/v1/orgs/acme");
      assert.equal(pub.status, 200);
      assert.deepEqual(Object.keys(pub.body).sort(), ["created_at", "display_name", "item_count", "name"]);
      assert.equal(pub.body.item_count, 0);
      assert.equal((await call("GET", "/v1/orgs/acme", { session: outsider })).body.members, undefined);
      assert.equal((await setRole(owner, "acme", "mia", "admin")).body.role, "admin");
      assert.equal((await setRole(admin, "acme", "mia", "member")).body.role, "member");
      const actions = (await reg.db.prisma.auditEvent.findMany({ where: { action: { startsWith: "org." } }, orderBy: { createdAt: "asc" } })).map((e) => e.action);
      for (const a of ["org.invitation.create", "org.invitation.accept", "org.member.role"]) assert.ok(actions.includes(a), a);
    });

    test("invite by email: the user with that verified email accepts", async () => {
      const inv = await invite(owner, "acme", { email: "Oscar@Example.test" });
      assert.equal(inv.status, 201);
      assert.equal(inv.body.email, "oscar@example.test");
      assert.equal(inv.body.role, "member");
      assert.match(inv.body.token, /^rye_inv_[A-Za-z0-9_-]{43}$/);
      assert.equal((await accept(outsider, inv.body.token)).status, 403, "the email is not verified yet");
      await reg.db.prisma.user.update({ where: { id: outsider.id }, data: { emailVerified: true } });
      const ok = await accept(outsider, inv.body.token);
      assert.deepEqual(ok.body, { org: "acme", role: "member" });
      assert.equal((await remove(outsider, "acme", "oscar")).status, 200, "anyone may leave");
      assert.equal((await roles("acme", owner)).oscar, undefined);
    });

    test("organization tokens: owners and admins create, list and revoke them", async () => {
      const r = await call("POST", "/v1/orgs/acme/tokens", { session: admin, json: { name: "deploy", scopes: ["items:write"], item_pattern: "acme/ci/*" } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.namespace, "acme");
      assert.match(r.body.token, /^rye_pat_/);
      const row = await reg.db.prisma.apiToken.findUniqueOrThrow({ where: { id: r.body.id } });
      assert.equal(row.orgId, (await reg.db.prisma.organization.findUniqueOrThrow({ where: { name: "acme" } })).id);
      assert.equal(row.userId, admin.id);
      const me = await call("GET", "/v1/me", { token: r.body.token });
      assert.deepEqual([me.body.token.type, me.body.token.namespace, me.body.token.item_pattern], ["pat", "acme", "acme/ci/*"]);
      assert.equal(me.body.token.org_id, row.orgId);
      assert.equal(me.body.email, null, "the creator's email stays private");
      const list = await call("GET", "/v1/orgs/acme/tokens", { session: owner });
      assert.equal(list.body.tokens.length, 1);
      assert.equal(list.body.tokens[0].created_by, "adam");
      assert.ok(!JSON.stringify(list.body).includes(r.body.token));
      const revoked = await call("DELETE", `/v1/orgs/acme/tokens/${r.body.id}`, { session: owner });
      assert.equal(revoked.body.revoked, true);
      assert.equal((await call("GET", "/v1/me", { token: r.body.token })).status, 401);
    });

    test("bearer tokens with org:admin manage organizations", async () => {
      const token = await reg.token(owner, { scopes: ["org:admin"] });
      const r = await call("POST", "/v1/orgs", { token, json: { name: "beta" } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal((await call("GET", "/v1/orgs/beta/tokens", { token })).status, 200);
    });
  });

  describe("errors", () => {
    test("names: invalid, reserved, taken by a user or an organization", async () => {
      for (const [name, status] of [["x", 400], ["-x-", 400], ["admin", 400], ["orgs", 400], ["olivia", 409], ["ACME", 409]] as const) {
        const r = await call("POST", "/v1/orgs", { session: owner, json: { name } });
        assert.equal(r.status, status, name);
      }
      assert.equal((await call("POST", "/v1/orgs", { session: owner, json: { name: "gamma", display_name: "x".repeat(101) } })).status, 400);
    });

    test("unknown organizations, members and invitations", async () => {
      assert.equal((await call("GET", "/v1/orgs/nothing-here")).status, 404);
      assert.equal((await invite(owner, "nothing-here", { username: "mia" })).status, 404);
      assert.equal((await invite(owner, "acme", { username: "nobody-at-all" })).status, 404);
      assert.equal((await invite(owner, "acme", { username: "mia" })).status, 409, "already a member");
      assert.equal((await invite(owner, "acme", { username: "mia", email: "mia@example.test" })).status, 400);
      assert.equal((await invite(owner, "acme", {})).status, 400);
      assert.equal((await invite(owner, "acme", { email: "not an email" })).status, 400);
      assert.equal((await invite(owner, "acme", { username: "oscar", role: "emperor" })).status, 400);
      assert.equal((await remove(owner, "acme", "oscar")).status, 404);
      assert.equal((await setRole(owner, "acme", "nobody-at-all", "admin")).status, 404);
      assert.equal((await accept(outsider, "rye_inv_unknown")).status, 404);
    });

    test("invitations work once, expire, and a newer one replaces an older one", async () => {
      const first = await invite(owner, "acme", { username: "oscar" });
      const second = await invite(owner, "acme", { username: "oscar" });
      assert.equal((await accept(outsider, first.body.token)).status, 404);
      assert.equal((await accept(outsider, second.body.token)).status, 200);
      assert.equal((await accept(outsider, second.body.token)).status, 404);
      assert.equal((await remove(owner, "acme", "oscar")).status, 200);
      const late = await invite(owner, "acme", { username: "oscar" });
      await reg.db.prisma.orgInvitation.update({ where: { id: late.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      assert.equal((await accept(outsider, late.body.token)).status, 404);
    });

    test("the last owner can be neither removed nor demoted", async () => {
      const r = await remove(owner, "acme", "olivia");
      assert.equal(r.status, 409);
      assert.equal(r.body.error.code, "CONFLICT");
      assert.equal((await setRole(owner, "acme", "olivia", "admin")).status, 409);
      await setRole(owner, "acme", "adam", "owner");
      assert.equal((await setRole(admin, "acme", "olivia", "admin")).status, 200, "with two owners, one may step down");
      assert.equal((await setRole(admin, "acme", "adam", "member")).status, 409);
      await setRole(admin, "acme", "olivia", "owner");
      await setRole(owner, "acme", "adam", "admin");
      assert.deepEqual(await roles("acme", owner), { olivia: "owner", adam: "admin", mia: "member" });
    });

    test("organization tokens may only read and write items", async () => {
      const r = await call("POST", "/v1/orgs/acme/tokens", { session: owner, json: { name: "x", scopes: ["items:read", "org:admin"] } });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, "VALIDATION_FAILED");
      assert.equal((await call("POST", "/v1/orgs/acme/tokens", { session: owner, json: { name: "x", scopes: ["items:read"], namespace: "olivia" } })).status, 400);
      assert.equal((await call("POST", "/v1/orgs/acme/tokens", { session: owner, json: { name: "x", scopes: ["items:read"], item_pattern: "olivia/*" } })).status, 400);
    });
  });

  describe("security", () => {
    test("no session: 401; no or wrong CSRF token: 403, nothing changes", async () => {
      assert.equal((await call("POST", "/v1/orgs", { json: { name: "delta" } })).status, 401);
      assert.equal((await call("POST", "/v1/orgs", { session: owner, csrf: null, json: { name: "delta" } })).status, 403);
      assert.equal((await call("DELETE", "/v1/orgs/acme/members/mia", { session: owner, csrf: admin.csrf })).status, 403);
      assert.equal((await call("POST", "/v1/orgs/acme/invitations", { session: owner, csrf: "", json: { username: "oscar" } })).status, 403);
      assert.equal((await call("GET", "/v1/orgs/acme/tokens")).status, 401);
      assert.equal(await reg.db.prisma.organization.count({ where: { name: "delta" } }), 0);
      assert.equal((await roles("acme", owner)).mia, "member");
    });

    test("members cannot manage; admins cannot touch owners or make owners", async () => {
      assert.equal((await invite(member, "acme", { username: "oscar" })).status, 403);
      assert.equal((await setRole(member, "acme", "mia", "admin")).status, 403, "no self-promotion");
      assert.equal((await remove(member, "acme", "adam")).status, 403);
      assert.equal((await call("POST", "/v1/orgs/acme/tokens", { session: member, json: { name: "x", scopes: ["items:read"] } })).status, 403);
      assert.equal((await call("GET", "/v1/orgs/acme/tokens", { session: member })).status, 403);
      assert.equal((await invite(admin, "acme", { username: "oscar", role: "owner" })).status, 403);
      assert.equal((await setRole(admin, "acme", "mia", "owner")).status, 403);
      assert.equal((await setRole(admin, "acme", "adam", "owner")).status, 403, "admins cannot promote themselves");
      assert.equal((await setRole(admin, "acme", "olivia", "member")).status, 403);
      assert.equal((await remove(admin, "acme", "olivia")).status, 403);
      assert.deepEqual(await roles("acme", owner), { olivia: "owner", adam: "admin", mia: "member" });
    });

    test("cross-organization: managing another organization is refused", async () => {
      const other = await call("POST", "/v1/orgs", { session: outsider, json: { name: "zeta" } });
      assert.equal(other.status, 201);
      const zetaToken = await call("POST", "/v1/orgs/zeta/tokens", { session: outsider, json: { name: "z", scopes: ["items:read"] } });
      assert.equal((await invite(owner, "zeta", { username: "mia" })).status, 403);
      assert.equal((await setRole(owner, "zeta", "oscar", "member")).status, 403);
      assert.equal((await remove(owner, "zeta", "oscar")).status, 403);
      assert.equal((await call("GET", "/v1/orgs/zeta/tokens", { session: owner })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/acme/tokens/${zetaToken.body.id}`, { session: owner })).status, 404, "another organization's token is not found through acme");
      assert.equal((await call("GET", "/v1/orgs/zeta", { session: owner })).body.members, undefined);
      assert.equal((await call("GET", "/v1/me", { token: zetaToken.body.token })).status, 200, "still valid");
    });

    test("invitations are bound to the invited account", async () => {
      const inv = await invite(owner, "acme", { username: "oscar" });
      const r = await accept(member, inv.body.token);
      assert.equal(r.status, 403);
      assert.equal((await accept(owner, inv.body.token)).status, 403, "not even the inviter");
      assert.equal((await accept(outsider, inv.body.token)).status, 200);
      await remove(owner, "acme", "oscar");
    });

    test("bearer tokens: org:admin is required, namespace restrictions hold, org tokens cannot manage", async () => {
      const itemsOnly = await reg.token(owner, { scopes: ["items:read", "items:write"] });
      assert.equal((await call("POST", "/v1/orgs", { token: itemsOnly, json: { name: "eta" } })).status, 403);
      assert.equal((await call("POST", "/v1/orgs/acme/invitations", { token: itemsOnly, json: { username: "oscar" } })).status, 403);
      const restricted = await reg.token(owner, { scopes: ["org:admin"], namespace: "olivia" });
      assert.equal((await call("POST", "/v1/orgs/acme/invitations", { token: restricted, json: { username: "oscar" } })).status, 403);
      assert.equal((await call("POST", "/v1/orgs", { token: restricted, json: { name: "eta" } })).status, 403);
      const orgAdmin = await reg.token(owner, { scopes: ["org:admin"] });
      const narrow = await call("POST", "/v1/orgs/acme/tokens", { token: orgAdmin, json: { name: "x", scopes: ["items:write"] } });
      assert.equal(narrow.status, 403, "a token cannot mint scopes it lacks, even for an organization");
      const ci = await call("POST", "/v1/orgs/acme/tokens", { session: owner, json: { name: "ci", scopes: ["items:read", "items:write"] } });
      assert.equal((await call("POST", "/v1/orgs/acme/invitations", { token: ci.body.token, json: { username: "oscar" } })).status, 403);
      assert.equal((await call("POST", "/v1/orgs/acme/tokens", { token: ci.body.token, json: { name: "y", scopes: ["items:read"] } })).status, 403);
    });

    test("a removed member's organization tokens are revoked with the membership", async () => {
      await setRole(owner, "acme", "mia", "admin");
      const t = await call("POST", "/v1/orgs/acme/tokens", { session: member, json: { name: "mia-ci", scopes: ["items:write"] } });
      assert.equal(t.status, 201);
      const r = await remove(owner, "acme", "mia");
      assert.equal(r.status, 200);
      assert.equal((await call("GET", "/v1/me", { token: t.body.token })).status, 401);
      const event = await reg.db.prisma.auditEvent.findFirstOrThrow({ where: { action: "org.member.remove" }, orderBy: { createdAt: "desc" } });
      assert.equal((event.details as Json).revoked_tokens, 1);
    });

    test("a disabled owner cannot manage with an old token", async () => {
      const t = await reg.token(outsider, { scopes: ["org:admin"] });
      await reg.db.prisma.user.update({ where: { id: outsider.id }, data: { disabledAt: new Date() } });
      assert.equal((await call("POST", "/v1/orgs/zeta/invitations", { token: t, json: { username: "mia" } })).status, 401);
      assert.equal((await call("POST", "/v1/orgs/zeta/invitations", { session: outsider, json: { username: "mia" } })).status, 401);
    });

    test("two owners demoting each other at once: one of them stays owner", async () => {
      const [x, y] = [await client.signUp("xavier"), await client.signUp("yara")];
      await call("POST", "/v1/orgs", { session: x, json: { name: "duo" } });
      await join("duo", x, y, "owner");
      const results = await Promise.all([setRole(x, "duo", "yara", "member"), setRole(y, "duo", "xavier", "member")]);
      assert.equal(results.filter((r) => r.status === 200).length, 1, JSON.stringify(results.map((r) => r.body)));
      assert.ok(results.every((r) => [200, 403, 409].includes(r.status)));
      const owners = await reg.db.prisma.membership.count({ where: { organization: { name: "duo" }, role: "owner" } });
      assert.equal(owners, 1);
    });

    test("hostile path segments are not interpreted", async () => {
      for (const name of ["..%2F..%2Fetc", "acme'--", "a".repeat(300)]) {
        const r = await call("GET", `/v1/orgs/${name}`);
        assert.equal(r.status, 404, name);
      }
      assert.equal((await remove(owner, "acme", "..%2Folivia")).status, 404);
      // NUL is refused before any route: in the path as INVALID_PARAMETER, in a JSON body as BAD_REQUEST.
      for (const r of [await call("GET", "/v1/orgs/%00"), await remove(owner, "acme", "olivia%00")]) {
        assert.equal(r.status, 400);
        assert.equal(r.body.error.code, "INVALID_PARAMETER");
      }
      const nul = await invite(owner, "acme", { username: "mi\u0000a" });
      assert.equal(nul.status, 400);
      assert.equal(nul.body.error.details[0].field, "username");
      assert.equal((await call("POST", "/v1/orgs", { session: owner, json: { name: "theta", display_name: "bad\u0000name" } })).status, 400);
    });
  });
});
}
