/** Access token keys and JWTs: key sources, claims, and every way a token must be refused. */
import "@rye/core/node";
import assert from "node:assert/strict";
import { createPrivateKey, createSecretKey } from "node:crypto";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { decodeProtectedHeader, SignJWT } from "jose";
import { generateKeyPair, keyPairFromPrivatePem, RyeError } from "@rye/core";
import { ACCESS_TOKEN_TTL_SECONDS, AccessTokens, TOKEN_KEY_FILE } from "./jwt.ts";

const ISSUER = "https://registry.example";
const input = { sub: "6f1c0c51-8a57-4f0e-9d43-3f8f5b1c2a10", username: "alice", scope: ["items:read", "items:write"], clientId: "rye-cli" };

async function tokensWithPem(): Promise<{ tokens: AccessTokens; pem: string }> {
  const { privateKeyPem } = await generateKeyPair();
  return { tokens: await AccessTokens.fromPrivateKeyPem(privateKeyPem, ISSUER), pem: privateKeyPem };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("token signing key", () => {
  test("generated in the key directory with mode 0600 on first use, then reused", async () => {
    const keyDir = join(await mkdtemp(join(tmpdir(), "rye-jwt-")), "keys");
    const first = await AccessTokens.load({ issuer: ISSUER, keyDir });
    const path = join(keyDir, TOKEN_KEY_FILE);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const again = await AccessTokens.load({ issuer: ISSUER, keyDir });
    assert.equal(again.kid, first.kid);
    assert.equal(first.kid, (await keyPairFromPrivatePem(await readFile(path, "utf8"))).publicKey.fingerprint);
    assert.match(first.kid, /^[0-9a-f]{16}$/);
  });

  test("$RYE_TOKEN_PRIVATE_KEY wins and no file is written; a bad key is INVALID_KEY", async () => {
    const keyDir = join(await mkdtemp(join(tmpdir(), "rye-jwt-")), "keys");
    const { privateKeyPem, publicKey } = await generateKeyPair();
    const tokens = await AccessTokens.load({ issuer: ISSUER, keyDir, envPrivateKey: privateKeyPem });
    assert.equal(tokens.kid, publicKey.fingerprint);
    await assert.rejects(stat(join(keyDir, TOKEN_KEY_FILE)), { code: "ENOENT" });
    await assert.rejects(AccessTokens.load({ issuer: ISSUER, keyDir, envPrivateKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }), (err: unknown) => err instanceof RyeError && err.code === "INVALID_KEY");
  });

  test("the item-signing key is refused as the token key", async () => {
    const keyDir = join(await mkdtemp(join(tmpdir(), "rye-jwt-")), "keys");
    const registryKey = await generateKeyPair();
    await assert.rejects(
      AccessTokens.load({ issuer: ISSUER, keyDir, envPrivateKey: registryKey.privateKeyPem, registryKeyFingerprint: registryKey.publicKey.fingerprint }),
      (err: unknown) => err instanceof RyeError && err.code === "INVALID_KEY" && /item-signing/.test(err.message),
    );
    assert.ok(await AccessTokens.load({ issuer: ISSUER, keyDir, registryKeyFingerprint: registryKey.publicKey.fingerprint }));
  });

  test("the JWKS publishes the public key only, under its kid", async () => {
    const { tokens } = await tokensWithPem();
    const { keys } = await tokens.jwks();
    assert.equal(keys.length, 1);
    assert.deepEqual({ ...keys[0], x: undefined }, { kty: "OKP", crv: "Ed25519", x: undefined, kid: tokens.kid, alg: "EdDSA", use: "sig" });
    assert.equal("d" in keys[0]!, false);
  });
});

describe("issue and verify", () => {
  test("an issued token verifies to its claims", async () => {
    const { tokens } = await tokensWithPem();
    const issued = await tokens.issueAccessToken(input);
    assert.equal(issued.expiresIn, ACCESS_TOKEN_TTL_SECONDS);
    assert.deepEqual(decodeProtectedHeader(issued.token), { alg: "EdDSA", typ: "at+jwt", kid: tokens.kid });
    const claims = await tokens.verifyAccessToken(issued.token);
    assert.equal(claims.sub, input.sub);
    assert.equal(claims.username, "alice");
    assert.deepEqual(claims.scope, input.scope);
    assert.equal(claims.clientId, "rye-cli");
    assert.equal(claims.jti, issued.jti);
    assert.equal(claims.exp - claims.iat, 15 * 60);
    const payload = JSON.parse(Buffer.from(issued.token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    assert.equal(payload.iss, ISSUER);
    assert.equal(payload.aud, ISSUER);
    assert.equal(payload.scope, "items:read items:write");
  });

  describe("refused", () => {
    const now = () => Math.floor(Date.now() / 1000);

    async function craft(pem: string, kid: string, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
      return new SignJWT({ scope: "items:read", client_id: "rye-cli", username: "alice", ...claims })
        .setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid, ...header })
        .sign(createPrivateKey(pem));
    }
    const base = () => ({ iss: ISSUER, aud: ISSUER, sub: input.sub, jti: "j1", iat: now(), exp: now() + 600 });

    test("a well-formed crafted token is accepted (the baseline of the cases below)", async () => {
      const { tokens, pem } = await tokensWithPem();
      assert.equal((await tokens.verifyAccessToken(await craft(pem, tokens.kid, base()))).jti, "j1");
    });

    test("wrong audience, wrong issuer, missing claims", async () => {
      const { tokens, pem } = await tokensWithPem();
      for (const claims of [
        { ...base(), aud: "https://other.example" },
        { ...base(), aud: [] },
        { ...base(), iss: "https://other.example" },
        { ...base(), jti: undefined },
        { ...base(), sub: undefined },
        { ...base(), exp: undefined },
        { ...base(), scope: 7 },
        { ...base(), client_id: undefined },
      ]) {
        await assert.rejects(tokens.verifyAccessToken(await craft(pem, tokens.kid, claims)), JSON.stringify(claims));
      }
    });

    test("expired beyond the 60 s clock tolerance (within it still accepted)", async () => {
      const { tokens, pem } = await tokensWithPem();
      await assert.rejects(tokens.verifyAccessToken(await craft(pem, tokens.kid, { ...base(), iat: now() - 1000, exp: now() - 61 })), { code: "ERR_JWT_EXPIRED" });
      assert.ok(await tokens.verifyAccessToken(await craft(pem, tokens.kid, { ...base(), iat: now() - 1000, exp: now() - 30 })));
    });

    test("alg none, HS256 keyed with the public key, and another typ", async () => {
      const { tokens, pem } = await tokensWithPem();
      const none = `${b64({ alg: "none", typ: "at+jwt", kid: tokens.kid })}.${b64(base())}.`;
      await assert.rejects(tokens.verifyAccessToken(none));
      const jwk = (await tokens.jwks()).keys[0]!;
      const confused = await new SignJWT({ ...base(), scope: "items:read", client_id: "rye-cli", username: "alice" })
        .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: tokens.kid })
        .sign(createSecretKey(Buffer.from(jwk.x!, "base64url")));
      await assert.rejects(tokens.verifyAccessToken(confused));
      await assert.rejects(tokens.verifyAccessToken(await craft(pem, tokens.kid, base(), { typ: "JWT" })));
    });

    test("signed by another key, with its own kid or ours; tampered payload", async () => {
      const { tokens, pem } = await tokensWithPem();
      const other = await tokensWithPem();
      await assert.rejects(tokens.verifyAccessToken((await other.tokens.issueAccessToken(input)).token));
      await assert.rejects(tokens.verifyAccessToken(await craft(other.pem, tokens.kid, base())), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
      const [h, , s] = (await craft(pem, tokens.kid, base())).split(".");
      await assert.rejects(tokens.verifyAccessToken(`${h}.${b64({ ...base(), scope: "org:admin", client_id: "rye-cli", username: "alice" })}.${s}`));
    });
  });
});
