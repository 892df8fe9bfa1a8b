/** GET/POST /v1/me/keys and DELETE /v1/me/keys/{fingerprint}: happy paths, errors, security. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { generateKeyPair, signItem } from "@rye/core";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { userKeyRoutes } from "./user-keys.ts";

const knowledge = (id: string, version = "1.0.0") => `---\nid: ${id}\ntitle: ${id}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\nBody of ${id}.\n`;

describe("user keys", () => {
  let reg: TestRegistry;
  let alice: TestUser;
  let bob: TestUser;
  let aliceToken: string;
  let bobToken: string;
  type Json = Record<string, any>;

  async function call(method: string, path: string, token: string | undefined, json?: unknown): Promise<{ status: number; body: Json }> {
    const res = await reg.request(method, path, { token, ...(json !== undefined ? { json } : {}) });
    return { status: res.status, body: (await res.json()) as Json };
  }

  before(async () => {
    reg = await createTestRegistry();
    // Until app.ts registers the routes, mount them on the test app (the app's middleware applies to them).
    if (!reg.app.routes.some((r) => r.path === "/v1/me/keys")) reg.app.route("/", userKeyRoutes(reg.deps));
    alice = await reg.createUser("alice");
    bob = await reg.createUser("bob");
    aliceToken = await reg.token(alice);
    bobToken = await reg.token(bob);
  });
  after(() => reg.close());

  describe("happy paths", () => {
    test("register, list, idempotent re-register, revoke; each mutation is audited", async () => {
      const key = await generateKeyPair();
      const created = await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem, label: "laptop" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.status, "registered");
      assert.equal(created.body.key.fingerprint, key.publicKey.fingerprint);
      assert.equal(created.body.key.label, "laptop");
      assert.equal(created.body.key.revoked, false);

      // The same key again (even with CRLF line ends) is the same registration.
      const again = await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem.replace(/\n/g, "\r\n") });
      assert.equal(again.status, 200);
      assert.equal(again.body.status, "already_registered");
      assert.equal(again.body.key.fingerprint, key.publicKey.fingerprint);

      const list = await call("GET", "/v1/me/keys", aliceToken);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.keys.map((k: Json) => [k.fingerprint, k.label, k.revoked]), [[key.publicKey.fingerprint, "laptop", false]]);
      assert.ok(!Number.isNaN(Date.parse(list.body.keys[0].created_at)));

      const revoked = await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, aliceToken);
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.status, "revoked");
      assert.equal(revoked.body.key.revoked, true);
      const twice = await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, aliceToken);
      assert.equal(twice.body.status, "already_revoked");
      assert.equal((await call("GET", "/v1/me/keys", aliceToken)).body.keys[0].revoked, true);

      const audit = await reg.db.prisma.auditEvent.findMany({ where: { targetId: key.publicKey.fingerprint }, orderBy: { createdAt: "asc" } });
      assert.deepEqual(audit.map((a) => [a.action, a.actorId]), [["user_key.register", alice.id], ["user_key.revoke", alice.id]]);
    });

    test("a registered key makes signed pushes verify; a revoked one is refused", async () => {
      const key = await generateKeyPair();
      assert.equal((await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem })).status, 201);
      const signed = (await signItem(knowledge("keyed"), "knowledge", key)).content;
      const ok = await call("POST", "/v1/push", aliceToken, { item_type: "knowledge", item_id: "alice/notes/keyed", content: signed, version: "1.0.0" });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.attestation.payload.author.verified, true);
      await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, aliceToken);
      const signed2 = (await signItem(knowledge("keyed", "1.0.1"), "knowledge", key)).content;
      const refused = await call("POST", "/v1/push", aliceToken, { item_type: "knowledge", item_id: "alice/notes/keyed", content: signed2, version: "1.0.1" });
      assert.equal(refused.body.error.code, "UNTRUSTED_KEY");
    });
  });

  describe("errors", () => {
    test("bad bodies, non-Ed25519 keys, unknown fingerprints, revoked keys cannot come back", async () => {
      assert.equal((await call("POST", "/v1/me/keys", aliceToken, {})).body.error.code, "BAD_REQUEST");
      assert.equal((await call("POST", "/v1/me/keys", aliceToken, { public_key: "x", extra: 1 })).body.error.code, "BAD_REQUEST");
      const notAKey = await call("POST", "/v1/me/keys", aliceToken, { public_key: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n" });
      assert.equal(notAKey.status, 400);
      assert.equal(notAKey.body.error.code, "INVALID_KEY");
      const garbage = await reg.request("POST", "/v1/me/keys", { token: aliceToken, body: "{nope", headers: { "content-type": "application/json" } });
      assert.equal(garbage.status, 400);
      const label = await call("POST", "/v1/me/keys", aliceToken, { public_key: (await generateKeyPair()).publicKey.pem, label: "a\u0000b" });
      assert.equal(label.body.error.code, "BAD_REQUEST");
      const big = await reg.request("POST", "/v1/me/keys", { token: aliceToken, json: { public_key: "x".repeat(10_000) } });
      assert.equal(big.status, 413);

      assert.equal((await call("DELETE", "/v1/me/keys/0123456789abcdef", aliceToken)).status, 404);
      assert.equal((await call("DELETE", "/v1/me/keys/..%2F..%2Fetc", aliceToken)).status, 404);

      const key = await generateKeyPair();
      await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem });
      await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, aliceToken);
      const back = await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem });
      assert.equal(back.status, 409);
      assert.match(back.body.error.hint, /rye keygen/);
    });
  });

  describe("security", () => {
    test("no token → 401; read-only tokens may list but not register or revoke", async () => {
      const key = await generateKeyPair();
      assert.equal((await call("GET", "/v1/me/keys", undefined)).status, 401);
      assert.equal((await call("POST", "/v1/me/keys", undefined, { public_key: key.publicKey.pem })).status, 401);
      assert.equal((await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, undefined)).status, 401);
      const readOnly = await reg.token(alice, { scopes: ["items:read"] });
      assert.equal((await call("GET", "/v1/me/keys", readOnly)).status, 200);
      const denied = await call("POST", "/v1/me/keys", readOnly, { public_key: key.publicKey.pem });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, "FORBIDDEN");
      const revokedToken = await reg.token(alice, { revoked: true });
      assert.equal((await call("GET", "/v1/me/keys", revokedToken)).status, 401);
    });

    test("a key registered to another user → 409 and stays theirs; others cannot see or revoke it", async () => {
      const key = await generateKeyPair();
      assert.equal((await call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem })).status, 201);
      const stolen = await call("POST", "/v1/me/keys", bobToken, { public_key: key.publicKey.pem });
      assert.equal(stolen.status, 409);
      assert.equal(stolen.body.error.code, "CONFLICT");
      assert.ok(!(await call("GET", "/v1/me/keys", bobToken)).body.keys.some((k: Json) => k.fingerprint === key.publicKey.fingerprint));
      const revoke = await call("DELETE", `/v1/me/keys/${key.publicKey.fingerprint}`, bobToken);
      assert.equal(revoke.status, 404, "someone else's key looks missing");
      const row = await reg.db.prisma.userKey.findUniqueOrThrow({ where: { fingerprint: key.publicKey.fingerprint } });
      assert.equal(row.userId, alice.id);
      assert.equal(row.revokedAt, null);
      // And bob cannot push items signed with alice's key.
      const signed = (await signItem(knowledge("borrowed"), "knowledge", key)).content;
      const push = await call("POST", "/v1/push", bobToken, { item_type: "knowledge", item_id: "bob/notes/borrowed", content: signed, version: "1.0.0" });
      assert.equal(push.body.error.code, "UNTRUSTED_KEY");
    });

    test("concurrent registrations of one key by two users: exactly one wins", async () => {
      const key = await generateKeyPair();
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => call("POST", "/v1/me/keys", aliceToken, { public_key: key.publicKey.pem })),
        ...Array.from({ length: 5 }, () => call("POST", "/v1/me/keys", bobToken, { public_key: key.publicKey.pem })),
      ]);
      const rows = await reg.db.prisma.userKey.findMany({ where: { fingerprint: key.publicKey.fingerprint } });
      assert.equal(rows.length, 1);
      const winner = rows[0]!.userId === alice.id ? 0 : 5;
      const loser = winner === 0 ? 5 : 0;
      assert.ok(results.slice(winner, winner + 5).every((r) => r.status === 200 || r.status === 201), JSON.stringify(results.map((r) => r.status)));
      assert.ok(results.slice(loser, loser + 5).every((r) => r.status === 409), JSON.stringify(results.map((r) => r.status)));
    });
  });
});
