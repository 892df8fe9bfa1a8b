/** Bearer routing: personal tokens to their authenticator, JWTs verified, their user looked up and their jti checked against the revocation list. */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { generateKeyPair } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase, postgresAvailable } from "@rye/db/testing";
import { RyeError } from "@rye/core";
import { AccessTokenRevocations } from "./access-token-revocations.ts";
import { ApiTokenAuthenticator, hashToken, TOKEN_PREFIX } from "./api-tokens.ts";
import { CompositeAuthenticator } from "./composite-authenticator.ts";
import { AccessTokens } from "./jwt.ts";

const ISSUER = "https://registry.example";

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`composite authenticator on ${kind}`, () => {
    let db: Database;
    let tokens: AccessTokens;
    let auth: CompositeAuthenticator;
    let alice: { id: string };

    before(async () => {
      db = await openTestDatabase(kind);
      tokens = await AccessTokens.fromPrivateKeyPem((await generateKeyPair()).privateKeyPem, ISSUER);
      auth = new CompositeAuthenticator({ db, apiTokens: new ApiTokenAuthenticator(db), accessTokens: tokens, revocations: new AccessTokenRevocations(db) });
      alice = await db.prisma.user.create({ data: { username: "alice", isAdmin: true } });
    });
    after(() => db.close());

    const issue = (sub: string, scope = ["items:read"]) => tokens.issueAccessToken({ sub, username: "alice", scope, clientId: "rye-cli" });

    test("a JWT gives the user's principal: scopes from the token, tokenId = jti, no namespace restriction", async () => {
      const issued = await issue(alice.id);
      assert.deepEqual(await auth.authenticate(issued.token), { userId: alice.id, username: "alice", isAdmin: true, scopes: ["items:read"], tokenId: issued.jti, via: "access_token", namespace: null, audience: ISSUER });
    });

    test("rye_pat_ tokens go to the API token authenticator", async () => {
      const pat = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
      await db.prisma.apiToken.create({ data: { userId: alice.id, name: "ci", tokenHash: hashToken(pat), scopes: ["items:write"], namespace: "alice" } });
      const principal = await auth.authenticate(pat);
      assert.equal(principal?.namespace, "alice");
      assert.deepEqual(principal?.scopes, ["items:write"]);
      const seen: string[] = [];
      const routed = new CompositeAuthenticator({ db, apiTokens: { authenticate: async (t) => (seen.push(t), null) }, accessTokens: tokens, revocations: new AccessTokenRevocations(db) });
      await routed.authenticate(pat);
      await routed.authenticate((await issue(alice.id)).token);
      assert.deepEqual(seen, [pat], "JWTs never reach the API token authenticator");
    });

    test("disabled or deleted users, unknown subjects and foreign keys get null", async () => {
      const bob = await db.prisma.user.create({ data: { username: "bob" } });
      const bobToken = (await issue(bob.id)).token;
      assert.ok(await auth.authenticate(bobToken));
      await db.prisma.user.update({ where: { id: bob.id }, data: { disabledAt: new Date() } });
      assert.equal(await auth.authenticate(bobToken), null);
      await db.prisma.user.delete({ where: { id: bob.id } });
      assert.equal(await auth.authenticate(bobToken), null);
      assert.equal(await auth.authenticate((await issue("00000000-0000-4000-8000-000000000000")).token), null);
      assert.equal(await auth.authenticate((await issue("not-a-uuid")).token), null, "a malformed sub never reaches the uuid column");
      const other = await AccessTokens.fromPrivateKeyPem((await generateKeyPair()).privateKeyPem, ISSUER);
      assert.equal(await auth.authenticate((await other.issueAccessToken({ sub: alice.id, username: "alice", scope: ["org:admin"], clientId: "rye-cli" })).token), null);
    });

    test("a revoked access token is refused with TOKEN_REVOKED until it expires; other tokens keep working; expired rows are purged", async () => {
      const revocations = new AccessTokenRevocations(db);
      const revoked = await issue(alice.id);
      const kept = await issue(alice.id);
      const claims = await tokens.verifyAccessToken(revoked.token);
      await revocations.revoke(claims);
      await revocations.revoke(claims); // twice is fine
      await assert.rejects(auth.authenticate(revoked.token), (err: unknown) => err instanceof RyeError && err.code === "TOKEN_REVOKED" && err.status === 401);
      assert.ok(await auth.authenticate(kept.token));
      // A row whose token has expired goes at the next revocation.
      await db.prisma.revokedAccessToken.create({ data: { jti: "old", userId: alice.id, expiresAt: new Date(Date.now() - 1000) } });
      await revocations.revoke(await tokens.verifyAccessToken(kept.token));
      assert.equal(await revocations.isRevoked("old"), false);
      assert.equal(await revocations.isRevoked(kept.jti), true);
    });

    test("anything else is null", async () => {
      for (const token of ["", "nonsense", "a.b", "a.b.c.d", "x".repeat(5000), `${"a".repeat(3000)}.${"b".repeat(3000)}.c`, "rye_pat_unknown"]) {
        assert.equal(await auth.authenticate(token), null, token.slice(0, 20));
      }
    });
  });
}
