/**
 * Opaque refresh tokens, stored hashed, grouped in families (one family per grant: the id of the
 * authorization code or device authorization that started it). Every use rotates the token; using a
 * used or revoked one revokes the whole family (RFC 9700 §4.14.2). Lifetime: 30 days from issue, so a
 * CLI used at least monthly stays signed in while an abandoned one expires.
 */
import type { Database } from "@rye/db";
import { OAuthError } from "./errors.ts";
import { narrowScope } from "./scopes.ts";
import { hashSecret, newSecret, plausibleSecret } from "./secrets.ts";

export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export interface Grant {
  userId: string;
  clientId: string;
  scope: string[];
  familyId: string;
  /** RFC 8707: the resource (audience) of the grant's access tokens. */
  resource: string;
}

/** Called when a used/revoked refresh token or authorization code comes back: a sign of theft. */
export type ReuseReporter = (what: "refresh_token" | "authorization_code", familyId: string, userId: string) => void;

export class RefreshTokens {
  constructor(
    private readonly db: Database,
    /** The registry API's resource: the audience of tokens from before resource indicators. */
    private readonly issuer: string,
    private readonly reportReuse: ReuseReporter = () => {},
  ) {}

  /** A new token in `grant.familyId`; invalid_grant when the family was revoked meanwhile. */
  async issue(grant: Grant): Promise<string> {
    const token = newSecret();
    const prisma = this.db.prisma;
    await prisma.refreshToken.create({
      data: { tokenHash: hashSecret(token), familyId: grant.familyId, userId: grant.userId, clientId: grant.clientId, scope: grant.scope.join(" "), resource: grant.resource, expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_MS) },
    });
    // A concurrent reuse detection may have revoked the family before this row existed.
    if ((await prisma.refreshToken.count({ where: { familyId: grant.familyId, revokedAt: { not: null } } })) > 0) {
      await this.revokeFamily(grant.familyId);
      throw new OAuthError("invalid_grant", "The grant was revoked");
    }
    return token;
  }

  /**
   * Marks `token` used and returns its grant plus the scope for the new access token (`scope` may
   * narrow, never widen). The new refresh token keeps the grant's full scope (RFC 6749 §6).
   */
  async rotate(token: string, clientId: string, requestedScope: string | undefined, requestedResource?: string): Promise<{ grant: Grant; accessScope: string[] }> {
    const row = plausibleSecret(token) ? await this.db.prisma.refreshToken.findUnique({ where: { tokenHash: hashSecret(token) } }) : null;
    if (!row || row.clientId !== clientId) throw new OAuthError("invalid_grant", "Unknown refresh token");
    if (row.usedAt || row.revokedAt) return this.reused(row.familyId, row.userId);
    if (row.expiresAt.getTime() <= Date.now()) throw new OAuthError("invalid_grant", "The refresh token expired: sign in again");
    const grant: Grant = { userId: row.userId, clientId: row.clientId, scope: row.scope.split(" ").filter(Boolean), familyId: row.familyId, resource: row.resource ?? this.issuer };
    const accessScope = narrowScope(requestedScope, grant.scope);
    if (requestedResource && requestedResource !== grant.resource) throw new OAuthError("invalid_target", `This sign-in is for the resource ${grant.resource}`);
    const claimed = await this.db.prisma.refreshToken.updateMany({ where: { id: row.id, usedAt: null, revokedAt: null }, data: { usedAt: new Date() } });
    if (claimed.count !== 1) return this.reused(row.familyId, row.userId);
    return { grant, accessScope };
  }

  /** RFC 7009: revokes the token's family; unknown tokens are ignored. */
  async revoke(token: string, clientId: string): Promise<void> {
    const row = plausibleSecret(token) ? await this.db.prisma.refreshToken.findUnique({ where: { tokenHash: hashSecret(token) } }) : null;
    if (!row) return;
    if (row.clientId !== clientId) throw new OAuthError("unauthorized_client", "The token was not issued to this client");
    await this.revokeFamily(row.familyId);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.db.prisma.refreshToken.updateMany({ where: { familyId, revokedAt: null }, data: { revokedAt: new Date() } });
  }

  private async reused(familyId: string, userId: string): Promise<never> {
    this.reportReuse("refresh_token", familyId, userId);
    await this.revokeFamily(familyId);
    throw new OAuthError("invalid_grant", "The refresh token was already used: every token of this sign-in is now revoked, sign in again");
  }
}
