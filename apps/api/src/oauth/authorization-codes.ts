/**
 * RFC 6749 §4.1 authorization codes: single-use, 60 s, bound to the client, the exact redirect URI
 * and a PKCE S256 challenge; stored hashed. The code's id is the refresh token family of its tokens,
 * so a second redemption revokes what the first one obtained (RFC 6749 §4.1.2, RFC 9700 §4.5).
 */
import type { Database } from "@rye/db";
import { OAuthError } from "./errors.ts";
import { verifyS256 } from "./pkce.ts";
import type { Grant, ReuseReporter } from "./refresh-tokens.ts";
import { hashSecret, newSecret, plausibleSecret } from "./secrets.ts";

export const AUTHORIZATION_CODE_TTL_MS = 60_000;
/** Redeemed and expired codes are kept this long to detect reuse, then purged. */
const PURGE_AFTER_MS = 24 * 3600 * 1000;

export interface NewAuthorizationCode {
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string[];
  codeChallenge: string;
  resource: string;
}

export interface Redemption {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
  /** The token request's `resource`, if any: it must be the one the code was issued for (RFC 8707 §2.2). */
  resource: string | undefined;
}

export class AuthorizationCodes {
  constructor(
    private readonly db: Database,
    /** The registry API's resource: the audience of codes issued before resource indicators. */
    private readonly issuer: string,
    private readonly revokeFamily: (familyId: string) => Promise<void>,
    private readonly reportReuse: ReuseReporter = () => {},
  ) {}

  async create(input: NewAuthorizationCode): Promise<string> {
    const code = newSecret();
    const now = Date.now();
    await this.db.prisma.authorizationCode.deleteMany({ where: { expiresAt: { lt: new Date(now - PURGE_AFTER_MS) } } });
    await this.db.prisma.authorizationCode.create({
      data: {
        codeHash: hashSecret(code),
        clientId: input.clientId,
        userId: input.userId,
        redirectUri: input.redirectUri,
        scope: input.scope.join(" "),
        codeChallenge: input.codeChallenge,
        codeChallengeMethod: "S256",
        resource: input.resource,
        expiresAt: new Date(now + AUTHORIZATION_CODE_TTL_MS),
      },
    });
    return code;
  }

  /** The grant of a valid code, which is consumed by any attempt (even a failing one). */
  async redeem(input: Redemption): Promise<Grant> {
    const row = plausibleSecret(input.code) ? await this.db.prisma.authorizationCode.findUnique({ where: { codeHash: hashSecret(input.code) } }) : null;
    if (!row) throw new OAuthError("invalid_grant", "Unknown authorization code");
    const claimed = await this.db.prisma.authorizationCode.updateMany({ where: { id: row.id, usedAt: null }, data: { usedAt: new Date() } });
    if (claimed.count !== 1) {
      this.reportReuse("authorization_code", row.id, row.userId);
      await this.revokeFamily(row.id);
      throw new OAuthError("invalid_grant", "The authorization code was already used: tokens issued from it are revoked");
    }
    if (row.expiresAt.getTime() <= Date.now()) throw new OAuthError("invalid_grant", "The authorization code expired");
    if (row.clientId !== input.clientId) throw new OAuthError("invalid_grant", "The authorization code was issued to another client");
    if (row.redirectUri !== input.redirectUri) throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request");
    if (!verifyS256(input.codeVerifier, row.codeChallenge)) throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
    const resource = row.resource ?? this.issuer;
    if (input.resource !== undefined && input.resource !== "" && input.resource !== resource) throw new OAuthError("invalid_target", `The authorization was for the resource ${resource}`);
    return { userId: row.userId, clientId: row.clientId, scope: row.scope.split(" ").filter(Boolean), familyId: row.id, resource };
  }
}
