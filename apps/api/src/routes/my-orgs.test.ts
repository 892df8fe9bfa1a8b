/**
 * The caller's organizations and invitations (GET /v1/me/orgs, GET /v1/me/invitations, POST
 * /v1/me/invitations/{id}/accept|decline) and an organization's pending invitations (GET/DELETE
 * /v1/orgs/{name}/invitations): happy paths, errors, security (cross-user and cross-organization).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Json, type Session, testClient } from "../../test/session-client.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { OPENAPI_SCHEMAS } from "../contract/document.ts";

describe("the caller's organizations and invitations", () => {
  let reg: TestRegistry;
  let call: ReturnType<typeof testClient>["call"];
  let owner: Session & TestUser;
  let admin: Session & TestUser;
  let invitee: Session & TestUser;
  let stranger: Session & TestUser;

  const invite = (session: Session, org: string, json: Json) => call("POST", `/v1/orgs/${org}/invitations`, { session, json });
  const myInvitations = async (session: Session) => (await call("GET", "/v1/me/invitations", { session })).body.invitations as Json[];

  before(async () => {
    reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    const client = testClient(reg.deps);
    call = client.call;
    [owner, admin, invitee, stranger] = [await client.signUp("olga"), await client.signUp("abel"), await client.signUp("ines"), await client.signUp("sven")];
    assert.equal((await call("POST", "/v1/orgs", { session: owner, json: { name: "north", display_name: "North Co" } })).status, 201);
    assert.equal((await call("POST", "/v1/orgs", { session: owner, json: { name: "south" } })).status, 201);
    assert.equal((await call("POST", "/v1/orgs", { session: stranger, json: { name: "west" } })).status, 201);
    const inv = await invite(owner, "north", { username: "abel", role: "admin" });
    assert.equal((await call("POST", "/v1/orgs/invitations/accept", { session: admin, json: { token: inv.body.token } })).status, 200);
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("GET /v1/me/orgs lists the caller's organizations with role and member count, by name", async () => {
      const r = await call("GET", "/v1/me/orgs", { session: owner });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.orgs.map((o: Json) => [o.name, o.display_name, o.role, o.member_count]), [["north", "North Co", "owner", 2], ["south", "", "owner", 1]]);
      assert.ok(!Number.isNaN(Date.parse(r.body.orgs[0].joined_at)));
      assert.deepEqual((await call("GET", "/v1/me/orgs", { session: admin })).body.orgs.map((o: Json) => [o.name, o.role]), [["north", "admin"]]);
      assert.deepEqual((await call("GET", "/v1/me/orgs", { session: invitee })).body.orgs, []);
    });

    test("an invitation by username shows up for the invitee, who accepts it by id", async () => {
      const inv = await invite(admin, "north", { username: "ines" });
      assert.equal(inv.status, 201);
      const pending = await myInvitations(invitee);
      assert.equal(pending.length, 1);
      assert.deepEqual({ ...pending[0], created_at: undefined, expires_at: undefined }, { id: inv.body.id, org: "north", org_display_name: "North Co", role: "member", invited_by: "abel", created_at: undefined, expires_at: undefined });
      const orgSide = await call("GET", "/v1/orgs/north/invitations", { session: owner });
      assert.equal(orgSide.status, 200);
      assert.deepEqual(orgSide.body.invitations.map((i: Json) => [i.id, i.username, i.email, i.role, i.invited_by]), [[inv.body.id, "ines", null, "member", "abel"]]);
      assert.ok(!JSON.stringify(orgSide.body).includes(inv.body.token), "the secret is not shown again");

      const accepted = await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { session: invitee });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.deepEqual(accepted.body, { org: "north", role: "member" });
      assert.deepEqual(await myInvitations(invitee), []);
      assert.deepEqual((await call("GET", "/v1/orgs/north/invitations", { session: owner })).body.invitations, []);
      assert.deepEqual((await call("GET", "/v1/me/orgs", { session: invitee })).body.orgs.map((o: Json) => o.name), ["north"]);
      assert.equal((await call("POST", "/v1/orgs/invitations/accept", { session: invitee, json: { token: inv.body.token } })).status, 404, "used once");
    });

    test("decline an invitation; withdraw one from the organization's side; both are audited", async () => {
      const first = await invite(owner, "south", { username: "ines", role: "admin" });
      const declined = await call("POST", `/v1/me/invitations/${first.body.id}/decline`, { session: invitee });
      assert.equal(declined.status, 200, JSON.stringify(declined.body));
      assert.deepEqual(declined.body, { org: "south", id: first.body.id, declined: true });
      assert.equal((await call("POST", "/v1/orgs/invitations/accept", { session: invitee, json: { token: first.body.token } })).status, 404);

      const second = await invite(owner, "south", { username: "ines" });
      const withdrawn = await call("DELETE", `/v1/orgs/south/invitations/${second.body.id}`, { session: owner });
      assert.equal(withdrawn.status, 200, JSON.stringify(withdrawn.body));
      assert.deepEqual(withdrawn.body, { org: "south", id: second.body.id, revoked: true });
      assert.deepEqual(await myInvitations(invitee), []);
      assert.equal((await call("POST", "/v1/orgs/invitations/accept", { session: invitee, json: { token: second.body.token } })).status, 404);
      const actions = (await reg.db.prisma.auditEvent.findMany({ where: { action: { in: ["org.invitation.decline", "org.invitation.revoke"] } } })).map((e) => e.action).sort();
      assert.deepEqual(actions, ["org.invitation.decline", "org.invitation.revoke"]);
    });

    test("email invitations are listed once the email is verified", async () => {
      const inv = await invite(owner, "south", { email: "sven@example.test" });
      assert.deepEqual(await myInvitations(stranger), [], "not verified yet");
      await reg.db.prisma.user.update({ where: { id: stranger.id }, data: { emailVerified: true } });
      assert.deepEqual((await myInvitations(stranger)).map((i) => i.id), [inv.body.id]);
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { session: stranger })).status, 200);
      await call("DELETE", "/v1/orgs/south/members/sven", { session: owner });
    });

    test("bearer tokens: reading needs no scope; accepting needs org:admin; a namespace-restricted token sees its organization only", async () => {
      const reader = await reg.token(owner, { scopes: ["items:read"] });
      assert.deepEqual((await call("GET", "/v1/me/orgs", { token: reader })).body.orgs.map((o: Json) => o.name), ["north", "south"]);
      const restricted = await reg.token(owner, { scopes: ["items:read"], namespace: "south" });
      assert.deepEqual((await call("GET", "/v1/me/orgs", { token: restricted })).body.orgs.map((o: Json) => o.name), ["south"]);
      const inv = await invite(owner, "south", { username: "ines" });
      const itemsOnly = await reg.token(invitee, { scopes: ["items:read", "items:write"] });
      assert.deepEqual((await call("GET", "/v1/me/invitations", { token: itemsOnly })).body.invitations.map((i: Json) => i.id), [inv.body.id]);
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { token: itemsOnly })).status, 403);
      const orgAdmin = await reg.token(invitee, { scopes: ["org:admin"] });
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { token: orgAdmin })).status, 200);
      await call("DELETE", "/v1/orgs/south/members/ines", { session: invitee });
    });
  });

  test("the answers are the documented schemas (strictly: no undeclared field)", async () => {
    const strict = (id: string, body: Json) => {
      const schema = OPENAPI_SCHEMAS[id]!;
      const parsed = schema.safeParse(body);
      assert.ok(parsed.success, `${id}: ${JSON.stringify(parsed.error?.issues)}`);
      assert.deepEqual(parsed.data, body, `${id} declares every field`);
    };
    const inv = await invite(owner, "south", { username: "ines" });
    strict("MyOrgList", (await call("GET", "/v1/me/orgs", { session: owner })).body);
    strict("MyInvitationList", (await call("GET", "/v1/me/invitations", { session: invitee })).body);
    strict("OrgInvitationList", (await call("GET", "/v1/orgs/south/invitations", { session: owner })).body);
    strict("InvitationDeclined", (await call("POST", `/v1/me/invitations/${inv.body.id}/decline`, { session: invitee })).body);
    const again = await invite(owner, "south", { username: "ines" });
    strict("InvitationRevoked", (await call("DELETE", `/v1/orgs/south/invitations/${again.body.id}`, { session: owner })).body);
  });

  describe("errors", () => {
    test("unknown, malformed, expired and already-answered invitation ids: 404", async () => {
      for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "%00"]) {
        // NUL is refused before any route (INVALID_PARAMETER); the others are simply not found.
        const status = id === "%00" ? 400 : 404;
        assert.equal((await call("POST", `/v1/me/invitations/${id}/accept`, { session: invitee })).status, status, id);
        assert.equal((await call("POST", `/v1/me/invitations/${id}/decline`, { session: invitee })).status, status, id);
        assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${id}`, { session: owner })).status, status, id);
      }
      const late = await invite(owner, "south", { username: "ines" });
      await reg.db.prisma.orgInvitation.update({ where: { id: late.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      assert.deepEqual(await myInvitations(invitee), []);
      assert.equal((await call("POST", `/v1/me/invitations/${late.body.id}/accept`, { session: invitee })).status, 404);
      assert.equal((await call("DELETE", `/v1/orgs/south/invitations/${late.body.id}`, { session: owner })).status, 404);
      assert.equal((await call("GET", "/v1/orgs/nowhere-org/invitations", { session: owner })).status, 404);
    });

    test("accepting while already a member: 409", async () => {
      const inv = await invite(owner, "north", { email: "ines@example.test" });
      await reg.db.prisma.user.update({ where: { id: invitee.id }, data: { emailVerified: true } });
      assert.deepEqual(await myInvitations(invitee), [], "not listed: ines is in north already");
      const r = await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { session: invitee });
      assert.equal(r.status, 409);
      assert.equal(r.body.error.code, "CONFLICT");
      assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${inv.body.id}`, { session: owner })).status, 200);
    });
  });

  describe("security", () => {
    test("no session: 401; a session without its CSRF token cannot accept, decline or withdraw", async () => {
      assert.equal((await call("GET", "/v1/me/orgs")).status, 401);
      assert.equal((await call("GET", "/v1/me/invitations")).status, 401);
      const inv = await invite(owner, "south", { username: "ines" });
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`)).status, 401);
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { session: invitee, csrf: null })).status, 403);
      assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/decline`, { session: invitee, csrf: owner.csrf })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/south/invitations/${inv.body.id}`, { session: owner, csrf: "" })).status, 403);
      assert.equal((await myInvitations(invitee)).length, 1, "nothing changed");
      await call("DELETE", `/v1/orgs/south/invitations/${inv.body.id}`, { session: owner });
    });

    test("cross-user: someone else's invitation answers 404 and stays pending, even for the inviter", async () => {
      const inv = await invite(owner, "south", { username: "ines" });
      for (const session of [stranger, owner, admin]) {
        assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/accept`, { session })).status, 404);
        assert.equal((await call("POST", `/v1/me/invitations/${inv.body.id}/decline`, { session })).status, 404);
        assert.ok(!(await myInvitations(session)).some((i) => i.id === inv.body.id));
      }
      assert.equal((await myInvitations(invitee)).length, 1);
      await call("DELETE", `/v1/orgs/south/invitations/${inv.body.id}`, { session: owner });
    });

    test("cross-organization: members and outsiders cannot list or withdraw; another organization's id is not found", async () => {
      const north = await invite(owner, "north", { username: "sven" });
      const west = await invite(stranger, "west", { username: "ines" });
      assert.equal((await call("GET", "/v1/orgs/north/invitations", { session: invitee })).status, 403, "members do not manage");
      assert.equal((await call("GET", "/v1/orgs/north/invitations", { session: stranger })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${north.body.id}`, { session: invitee })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/west/invitations/${west.body.id}`, { session: owner })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${west.body.id}`, { session: owner })).status, 404, "west's invitation through north");
      assert.equal((await myInvitations(invitee)).some((i) => i.id === west.body.id), true, "still pending");
      const token = await reg.token(owner, { scopes: ["org:admin"], namespace: "south" });
      assert.equal((await call("GET", "/v1/orgs/north/invitations", { token })).status, 403, "a token restricted to south");
    });

    test("admins cannot withdraw an invitation to become owner", async () => {
      const inv = await invite(owner, "north", { username: "sven", role: "owner" });
      assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${inv.body.id}`, { session: admin })).status, 403);
      assert.equal((await call("DELETE", `/v1/orgs/north/invitations/${inv.body.id}`, { session: owner })).status, 200);
    });

    test("organization (CI) tokens cannot list a member's organizations or invitations", async () => {
      const ci = await call("POST", "/v1/orgs/north/tokens", { session: owner, json: { name: "ci", scopes: ["items:read"] } });
      assert.equal(ci.status, 201);
      assert.equal((await call("GET", "/v1/me/orgs", { token: ci.body.token })).status, 403);
      assert.equal((await call("GET", "/v1/me/invitations", { token: ci.body.token })).status, 403);
    });
  });
});
