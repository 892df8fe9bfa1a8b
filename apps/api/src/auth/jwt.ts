/**
 * OAuth access tokens: short-lived JWTs (RFC 9068 profile, `typ: at+jwt`) signed with a dedicated
 * Ed25519 key — never the registry's item-signing key. The key comes from `$RYE_TOKEN_PRIVATE_KEY`
 * (PKCS#8 PEM), else `<key dir>/token-signing.pem`, generated with mode 0600 on first use. `kid` is
 * the key's rye fingerprint; the public half is served as a JWKS.
 */
import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, jwtVerify, SignJWT, type JWK } from "jose";
import { generateKeyPair, keyPairFromPrivatePem, RyeError } from "@rye/core";

export const TOKEN_KEY_FILE = "token-signing.pem";
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const CLOCK_TOLERANCE_SECONDS = 60;
const ALG = "EdDSA";
const TYP = "at+jwt";

export interface AccessTokenInput {
  /** User id. */
  sub: string;
  username: string;
  scope: string[];
  clientId: string;
  /** RFC 8707 / RFC 9068 `aud`: the resource the token is for; default the issuer (the registry API). */
  audience?: string;
}

export interface AccessTokenClaims extends AccessTokenInput {
  audience: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface IssuedAccessToken {
  token: string;
  expiresIn: number;
  jti: string;
}

/** What the composite authenticator needs: verification only. */
export interface AccessTokenVerifier {
  verifyAccessToken(token: string): Promise<AccessTokenClaims>;
}

export interface AccessTokenKeyOptions {
  /** `iss` of every token and the `aud` of those for the registry API: the registry's public URL. */
  issuer: string;
  /** Directory of `token-signing.pem` (the registry key directory). */
  keyDir: string;
  /** PKCS#8 PEM from the environment; when set no key file is read or written. */
  envPrivateKey?: string | undefined;
  /** The item-signing key's fingerprint: the token key must be a different key. */
  registryKeyFingerprint?: string;
}

export class AccessTokens implements AccessTokenVerifier {
  private constructor(
    private readonly privateKey: KeyObject,
    private readonly publicKey: KeyObject,
    /** The key's fingerprint (first 16 hex of SHA-256 over its SPKI PEM), used as `kid`. */
    readonly kid: string,
    readonly issuer: string,
  ) {}

  static async load(options: AccessTokenKeyOptions): Promise<AccessTokens> {
    const pem = options.envPrivateKey || (await readOrCreateKeyFile(options.keyDir));
    const tokens = await AccessTokens.fromPrivateKeyPem(pem, options.issuer);
    if (tokens.kid === options.registryKeyFingerprint) {
      throw new RyeError("INVALID_KEY", "The token signing key is the registry's item-signing key", { hint: "Give RYE_TOKEN_PRIVATE_KEY its own Ed25519 key (or unset it to use <key dir>/token-signing.pem)." });
    }
    return tokens;
  }

  /** Throws INVALID_KEY unless `pem` is an unencrypted Ed25519 PKCS#8 key. */
  static async fromPrivateKeyPem(pem: string, issuer: string): Promise<AccessTokens> {
    const { publicKey } = await keyPairFromPrivatePem(pem);
    const privateKey = createPrivateKey(pem);
    return new AccessTokens(privateKey, createPublicKey(privateKey), publicKey.fingerprint, issuer);
  }

  async issueAccessToken(input: AccessTokenInput): Promise<IssuedAccessToken> {
    const jti = randomUUID();
    const token = await new SignJWT({ scope: input.scope.join(" "), client_id: input.clientId, username: input.username })
      .setProtectedHeader({ alg: ALG, typ: TYP, kid: this.kid })
      .setIssuer(this.issuer)
      .setAudience(input.audience ?? this.issuer)
      .setSubject(input.sub)
      .setJti(jti)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .sign(this.privateKey);
    return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS, jti };
  }

  /** The resources a token may be for: the registry API (the issuer) and its MCP server. */
  get audiences(): string[] {
    return [this.issuer, `${this.issuer}/mcp`];
  }

  /** The claims of a valid token for one of `audiences`; throws (jose errors or TypeError) for anything else. */
  async verifyAccessToken(token: string): Promise<AccessTokenClaims> {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        if (header.kid !== this.kid) throw new TypeError("unknown token signing key");
        return this.publicKey;
      },
      {
        algorithms: [ALG],
        typ: TYP,
        issuer: this.issuer,
        audience: this.audiences,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ["sub", "jti", "iat", "exp"],
      },
    );
    const { sub, jti, iat, exp, scope, client_id: clientId, username, aud } = payload;
    if (typeof scope !== "string" || typeof clientId !== "string" || typeof username !== "string" || typeof aud !== "string") {
      throw new TypeError("access token claims are incomplete");
    }
    return { sub: sub!, jti: jti!, iat: iat!, exp: exp!, username, clientId, audience: aud, scope: scope.split(" ").filter(Boolean) };
  }

  /** RFC 7517 key set for `/.well-known/jwks.json`. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const jwk = await exportJWK(this.publicKey);
    return { keys: [{ ...jwk, kid: this.kid, alg: ALG, use: "sig" }] };
  }
}

async function readOrCreateKeyFile(keyDir: string): Promise<string> {
  const path = join(keyDir, TOKEN_KEY_FILE);
  const existing = await readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });
  if (existing === null) {
    await mkdir(keyDir, { recursive: true, mode: 0o700 });
    const { privateKeyPem } = await generateKeyPair();
    await writeFile(path, privateKeyPem, { mode: 0o600, flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err; // another process created it first: use theirs
    });
  }
  await chmod(path, 0o600);
  return existing ?? readFile(path, "utf8");
}
