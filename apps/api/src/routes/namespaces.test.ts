/** GET /v1/namespaces/{name}: happy paths, errors, security (who sees members and private item counts). */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Session, testClient } from "../../test/session-client.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";

const knowledge = (name: string, category: string) =>
  `---\nid: ${name}\ntitle: ${name}\nversion: 1.0.0\nentry_type: reference\ncategory: ${category}\n---\n\nBody of ${name}.\n`;

describe("namespaces", () => {
  let reg: TestRegistry;
  let call: ReturnType<typeof testClient>["call"];
  let owner: Session & TestUser;
  let member: Session & TestUser;
  let outsider: Session & TestUser;
  let ownerToken: string;
  let outsiderToken: string;

  async function push(token: string, id: string, visibility: "public" | "unlisted" | "private" = "public"): Promise<void> {
    const segments = id.split("/");
    const res = await reg.request("POST", "/v1/push", {
      token,
      json: { item_type: "knowledge", item_id: id, content: knowledge(segments.at(-1)!, segments.slice(1, -1).join("/")), version: "1.0.0", metadata: { visibility } },
    });
    assert.equal(res.status, 201, await res.text());
  }

  before(async () => {
    reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 100_000, writes: 100_000 } } });
    const client = testClient(reg.deps);
    call = client.call;
    [owner, member, outsider] = [await client.signUp("nora"), await client.signUp("milo"), await client.signUp("otto")];
    await reg.deps.db.prisma.user.update({ where: { username: "nora" }, data: { displayName: "Nora N." } });
    const created = await call("POST", "/v1/orgs", { session: owner, json: { name: "acme", display_name: "Acme Corp" } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const inv = await call("POST", "/v1/orgs/acme/invitations", { session: owner, json: { username: "milo", role: "admin" } });
    assert.equal((await call("POST", "/v1/orgs/invitations/accept", { session: member, json: { token: inv.body.token } })).status, 200);
    const users = await reg.deps.db.prisma.user.findMany({ where: { username: { in: ["nora", "otto"] } } });
    ownerToken = await reg.token({ id: users.find((u) => u.username === "nora")!.id, username: "nora" });
    outsiderToken = await reg.token({ id: users.find((u) => u.username === "otto")!.id, username: "otto" });
    await push(ownerToken, "acme/notes/public-one");
    await push(ownerToken, "acme/notes/secret-one", "private");
    await push(ownerToken, "acme/notes/unlisted-one", "unlisted");
    await push(ownerToken, "nora/notes/mine");
    await push(ownerToken, "nora/notes/hidden", "private");
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("a user namespace: kind, display name, public item count, no members", async () => {
      const r = await call("GET", "/v1/namespaces/nora");
      assert.equal(r.status, 200);
      assert.deepEqual({ ...r.body, created_at: typeof r.body.created_at }, {
        name: "nora",
        kind: "user",
        display_name: "Nora N.",
        created_at: "string",
        item_count: 1,
        viewer_role: null,
        members: null,
      });
      assert.ok(!Number.isNaN(Date.parse(r.body.created_at)));
      assert.equal(r.res.headers.get("cache-control"), "private, no-cache");
    });

    test("the owner of a user namespace sees every item and the owner role", async () => {
      const r = await call("GET", "/v1/namespaces/nora", { session: owner });
      assert.equal(r.body.viewer_role, "owner");
      assert.equal(r.body.item_count, 2);
      assert.equal(r.body.members, null);
    });

    test("an organization to its members: members with roles, oldest first, and every item", async () => {
      for (const session of [owner, member]) {
        const r = await call("GET", "/v1/namespaces/acme", { session });
        assert.equal(r.status, 200);
        assert.equal(r.body.kind, "org");
        assert.equal(r.body.display_name, "Acme Corp");
        assert.equal(r.body.item_count, 3);
        assert.deepEqual(r.body.members.map((m: { username: string; role: string }) => [m.username, m.role]), [["nora", "owner"], ["milo", "admin"]]);
        assert.ok(r.body.members.every((m: { joined_at: string }) => !Number.isNaN(Date.parse(m.joined_at))));
      }
      assert.equal((await call("GET", "/v1/namespaces/acme", { session: member })).body.viewer_role, "admin");
      assert.equal((await call("GET", "/v1/namespaces/acme", { token: ownerToken })).body.viewer_role, "owner", "bearer tokens count too");
    });

    test("names are looked up case-insensitively, as they are stored", async () => {
      const r = await call("GET", "/v1/namespaces/ACME");
      assert.equal(r.status, 200);
      assert.equal(r.body.name, "acme");
    });

    test("a user without items: zero, not an error", async () => {
      const r = await call("GET", "/v1/namespaces/otto");
      assert.equal(r.body.kind, "user");
      assert.equal(r.body.item_count, 0);
    });
  });

  describe("errors", () => {
    test("unknown, invalid, over-long and reserved-but-unowned names are 404 with the error envelope", async () => {
      for (const name of ["nobody-here", "a_b", "x".repeat(40), "-x", "tools", "%2e%2e", "a"]) {
        const r = await call("GET", `/v1/namespaces/${name}`);
        assert.equal(r.status, 404, name);
        assert.equal(r.body.error.code, "NOT_FOUND", name);
        assert.ok(r.body.error.hint, name);
      }
    });
  });

  describe("security", () => {
    test("anonymous callers and outsiders see neither members nor private or unlisted item counts", async () => {
      for (const options of [{}, { session: outsider }, { token: outsiderToken }]) {
        const r = await call("GET", "/v1/namespaces/acme", options);
        assert.equal(r.status, 200);
        assert.equal(r.body.members, null);
        assert.equal(r.body.viewer_role, null);
        assert.equal(r.body.item_count, 1);
      }
      assert.equal((await call("GET", "/v1/namespaces/nora", { session: outsider })).body.item_count, 1);
    });

    test("no email address or internal id is ever in the answer", async () => {
      for (const options of [{}, { session: owner }]) {
        for (const name of ["nora", "acme"]) {
          const text = JSON.stringify((await call("GET", `/v1/namespaces/${name}`, options)).body);
          assert.doesNotMatch(text, /@example\.test/);
          assert.doesNotMatch(text, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);
        }
      }
    });

    test("a revoked token is refused, not treated as anonymous", async () => {
      const outsiderUser = await reg.deps.db.prisma.user.findUniqueOrThrow({ where: { username: "otto" } });
      const revoked = await reg.token({ id: outsiderUser.id, username: "otto" }, { revoked: true });
      const r = await call("GET", "/v1/namespaces/acme", { token: revoked });
      assert.equal(r.status, 401);
    });

    test("hostile names reach no query: 404 without echoing markup", async () => {
      const r = await call("GET", `/v1/namespaces/${encodeURIComponent("<script>alert(1)</script>")}`);
      assert.equal(r.status, 404);
      assert.equal(r.res.headers.get("content-type")?.startsWith("application/json"), true);
    });
  });
});
