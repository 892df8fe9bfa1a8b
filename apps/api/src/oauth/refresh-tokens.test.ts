/** Metadata, refresh token rotation with reuse detection, and revocation, with openid-client as the client. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as client from "openid-client";
import { postgresAvailable } from "@rye/db/testing";
import { hashSecret } from "./secrets.ts";
import { startOAuthServer, type OAuthTestServer } from "./test-server.ts";

type Json = Record<string, any>;
const invalidGrant = (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_grant";

for (const kind of postgresAvailable() ? (["postgres", "pglite"] as const) : (["pglite"] as const)) {
  describe(`tokens on ${kind}`, () => {
    let srv: OAuthTestServer;
    let config: client.Configuration;
    let alice: { id: string; username: string };

    before(async () => {
      srv = await startOAuthServer({ kind });
      config = await srv.discover();
      alice = await srv.createUser("alice");
    });
    after(() => srv.close());

    const family = async (refreshToken: string) => {
      const row = await srv.db.prisma.refreshToken.findUniqueOrThrow({ where: { tokenHash: hashSecret(refreshToken) } });
      return srv.db.prisma.refreshToken.findMany({ where: { familyId: row.familyId }, orderBy: { createdAt: "asc" } });
    };

    describe("metadata", () => {
      test("RFC 8414 metadata is pinned", async () => {
        const res = await srv.fetch("/.well-known/oauth-authorization-server");
        assert.equal(res.status, 200);
        const i = srv.issuer;
        assert.deepEqual(await res.json(), {
          issuer: i,
          authorization_endpoint: `${i}/oauth/authorize`,
          token_endpoint: `${i}/oauth/token`,
          device_authorization_endpoint: `${i}/oauth/device/code`,
          revocation_endpoint: `${i}/oauth/revoke`,
          jwks_uri: `${i}/.well-known/jwks.json`,
          scopes_supported: ["items:read", "items:write", "org:admin"],
          response_types_supported: ["code"],
          response_modes_supported: ["query"],
          grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          revocation_endpoint_auth_methods_supported: ["none"],
          authorization_response_iss_parameter_supported: true,
          registration_endpoint: `${i}/oauth/register`,
          client_id_metadata_document_supported: true,
        });
        assert.equal(config.serverMetadata().issuer, i);
      });

      test("access tokens verify against the published JWKS, as a resource server would", async () => {
        const tokens = await srv.deviceLogin(alice.id);
        const jwks = createRemoteJWKSet(new URL(`${srv.issuer}/.well-known/jwks.json`));
        const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: srv.issuer, audience: srv.issuer, typ: "at+jwt", algorithms: ["EdDSA"] });
        assert.equal(payload.sub, alice.id);
        assert.equal(protectedHeader.kid, srv.accessTokens.kid);
      });
    });

    describe("refresh", () => {
      test("every use rotates the refresh token within its family", async () => {
        const initial = await srv.deviceLogin(alice.id);
        const second = await client.refreshTokenGrant(config, initial.refresh_token);
        assert.notEqual(second.refresh_token, initial.refresh_token);
        assert.equal(second.scope, "items:read items:write");
        assert.equal((await srv.accessTokens.verifyAccessToken(second.access_token)).sub, alice.id);
        const third = await client.refreshTokenGrant(config, second.refresh_token!);
        const rows = await family(third.refresh_token!);
        assert.equal(rows.length, 3);
        assert.deepEqual(rows.map((r) => r.usedAt !== null), [true, true, false]);
        assert.ok(rows.every((r) => r.revokedAt === null && r.tokenHash.length === 64));
        const days = (rows[2]!.expiresAt.getTime() - rows[2]!.createdAt.getTime()) / 86_400_000;
        assert.ok(Math.abs(days - 30) < 0.01);
      });

      test("reusing a rotated refresh token is invalid_grant and revokes the whole family", async () => {
        const initial = await srv.deviceLogin(alice.id);
        const next = await client.refreshTokenGrant(config, initial.refresh_token);
        await assert.rejects(client.refreshTokenGrant(config, initial.refresh_token), invalidGrant);
        await assert.rejects(client.refreshTokenGrant(config, next.refresh_token!), invalidGrant, "the legitimate holder is signed out too");
        assert.ok((await family(initial.refresh_token)).every((r) => r.revokedAt !== null));
      });

      test("concurrent uses of one refresh token: at most one succeeds, and the family ends revoked", async () => {
        const initial = await srv.deviceLogin(alice.id);
        const results = await Promise.allSettled([1, 2, 3].map(() => client.refreshTokenGrant(config, initial.refresh_token)));
        assert.ok(results.filter((r) => r.status === "fulfilled").length <= 1);
        assert.ok((await family(initial.refresh_token)).every((r) => r.revokedAt !== null));
      });

      test("scope may be narrowed for the access token, never widened; the grant keeps its scope", async () => {
        const initial = await srv.deviceLogin(alice.id, "items:read items:write");
        await assert.rejects(client.refreshTokenGrant(config, initial.refresh_token, { scope: "items:read org:admin" }), (err: unknown) => err instanceof client.ResponseBodyError && err.error === "invalid_scope");
        const narrow = await client.refreshTokenGrant(config, initial.refresh_token, { scope: "items:read" });
        assert.equal(narrow.scope, "items:read");
        assert.deepEqual((await srv.accessTokens.verifyAccessToken(narrow.access_token)).scope, ["items:read"]);
        const full = await client.refreshTokenGrant(config, narrow.refresh_token!);
        assert.equal(full.scope, "items:read items:write");
      });

      test("expired, unknown, and disabled-user refresh tokens are invalid_grant", async () => {
        const expiring = await srv.deviceLogin(alice.id);
        await srv.db.prisma.refreshToken.update({ where: { tokenHash: hashSecret(expiring.refresh_token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
        await assert.rejects(client.refreshTokenGrant(config, expiring.refresh_token), invalidGrant);
        await assert.rejects(client.refreshTokenGrant(config, "x".repeat(43)), invalidGrant);
        await assert.rejects(client.refreshTokenGrant(config, "x".repeat(5000)), invalidGrant);

        const bob = await srv.createUser("bob");
        const bobs = await srv.deviceLogin(bob.id);
        await srv.db.prisma.user.update({ where: { id: bob.id }, data: { disabledAt: new Date() } });
        await assert.rejects(client.refreshTokenGrant(config, bobs.refresh_token), invalidGrant);
        assert.ok((await family(bobs.refresh_token)).every((r) => r.revokedAt !== null));
        assert.equal((await srv.fetch("/v1/keys", { headers: { authorization: `Bearer ${bobs.access_token}` } })).status, 401, "a disabled user's access token stops working at once");
      });

      test("another client (rye-web, which has no refresh grant) cannot use it, and it is not consumed", async () => {
        const initial = await srv.deviceLogin(alice.id);
        const res = await srv.fetch("/oauth/token", { form: { grant_type: "refresh_token", refresh_token: initial.refresh_token, client_id: "rye-web" } });
        assert.equal(((await res.json()) as Json).error, "unauthorized_client");
        assert.ok(await client.refreshTokenGrant(config, initial.refresh_token), "and was not consumed");
      });
    });

    describe("revocation (RFC 7009)", () => {
      test("revoking a refresh token revokes its family", async () => {
        const initial = await srv.deviceLogin(alice.id);
        const next = await client.refreshTokenGrant(config, initial.refresh_token);
        await client.tokenRevocation(config, initial.refresh_token, { token_type_hint: "refresh_token" });
        await assert.rejects(client.refreshTokenGrant(config, next.refresh_token!), invalidGrant);
      });

      test("revoking an access token: the API refuses it at once with 401 TOKEN_REVOKED, before it expires", async () => {
        const tokens = await srv.deviceLogin(alice.id);
        const other = await srv.deviceLogin(alice.id);
        const read = (token: string) => srv.fetch("/v1/items/knowledge/alice/notes/none", { headers: { authorization: `Bearer ${token}` } });
        assert.equal((await read(tokens.access_token)).status, 404, "valid before: the item is just missing");
        await client.tokenRevocation(config, tokens.access_token, { token_type_hint: "access_token" });
        const refused = await read(tokens.access_token);
        assert.equal(refused.status, 401);
        const body = (await refused.json()) as Json;
        assert.equal(body.error.code, "TOKEN_REVOKED");
        assert.match(body.error.hint, /rye login/);
        assert.equal((await read(other.access_token)).status, 404, "other access tokens of the user keep working");
        const row = await srv.db.prisma.revokedAccessToken.findFirstOrThrow();
        const claims = await srv.accessTokens.verifyAccessToken(tokens.access_token);
        assert.equal(row.jti, claims.jti);
        assert.equal(row.expiresAt.getTime(), claims.exp * 1000, "kept only until the token would expire anyway");
      });

      test("another client cannot revoke an access token it was not issued (200 like RFC 7009 says, nothing revoked)", async () => {
        const tokens = await srv.deviceLogin(alice.id);
        const res = await srv.fetch("/oauth/revoke", { form: { client_id: "rye-web", token: tokens.access_token } });
        assert.equal(res.status, 200);
        const read = await srv.fetch("/v1/items/knowledge/alice/notes/none", { headers: { authorization: `Bearer ${tokens.access_token}` } });
        assert.equal(read.status, 404);
      });

      test("unknown tokens and access tokens get 200; bad requests get OAuth errors", async () => {
        const tokens = await srv.deviceLogin(alice.id);
        await client.tokenRevocation(config, "never-issued");
        await client.tokenRevocation(config, tokens.access_token, { token_type_hint: "access_token" });
        assert.ok(await client.refreshTokenGrant(config, tokens.refresh_token), "revoking the access token left the refresh token alone");
        const revoke = (form: Record<string, string>) => srv.fetch("/oauth/revoke", { form });
        const noClient = await revoke({ token: "x" });
        assert.equal(noClient.status, 401);
        assert.equal(((await noClient.json()) as Json).error, "invalid_client");
        const noToken = await revoke({ client_id: "rye-cli" });
        assert.equal(((await noToken.json()) as Json).error, "invalid_request");
        const ok = await revoke({ client_id: "rye-cli", token: "x" });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get("cache-control"), "no-store");
      });

      test("a client cannot revoke another client's token", async () => {
        const tokens = await srv.deviceLogin(alice.id);
        const res = await srv.fetch("/oauth/revoke", { form: { client_id: "rye-web", token: tokens.refresh_token } });
        assert.equal(res.status, 400);
        assert.equal(((await res.json()) as Json).error, "unauthorized_client");
        assert.ok(await client.refreshTokenGrant(config, tokens.refresh_token));
      });
    });
  });
}
