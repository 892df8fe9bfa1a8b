/**
 * The revocation list of JWT access tokens: a token is a signed, self-contained claim valid for
 * ACCESS_TOKEN_TTL_SECONDS, so revoking one before it expires (`rye logout`, RFC 7009 /oauth/revoke) means
 * remembering its `jti` until then. The authenticator looks the jti up on every request that carries an
 * access token (a primary-key probe, run alongside the user look-up it already makes). Rows whose token has
 * expired are useless and are purged whenever a token is revoked.
 */
import type { Database } from "@rye/db";
import type { AccessTokenClaims } from "./jwt.ts";

export class AccessTokenRevocations {
  constructor(private readonly db: Database) {}

  async revoke(claims: Pick<AccessTokenClaims, "jti" | "sub" | "exp">, now = new Date()): Promise<void> {
    const expiresAt = new Date(claims.exp * 1000);
    await this.db.prisma.$transaction([
      this.db.prisma.revokedAccessToken.upsert({ where: { jti: claims.jti }, create: { jti: claims.jti, userId: claims.sub, expiresAt }, update: {} }),
      this.db.prisma.revokedAccessToken.deleteMany({ where: { expiresAt: { lt: now } } }),
    ]);
  }

  /** The token's user (null when gone) and whether the token is on the list, in one query. */
  async subjectOf(userId: string, jti: string): Promise<{ username: string; isAdmin: boolean; disabled: boolean; revoked: boolean } | null> {
    const rows = await this.db.prisma.$queryRaw<{ username: string; is_admin: boolean; disabled: boolean; revoked: boolean }[]>`
      SELECT u.username, u.is_admin, u.disabled_at IS NOT NULL AS disabled,
             EXISTS (SELECT 1 FROM revoked_access_tokens r WHERE r.jti = ${jti}) AS revoked
      FROM users u WHERE u.id = ${userId}::uuid`;
    const row = rows[0];
    return row ? { username: row.username, isAdmin: row.is_admin, disabled: row.disabled, revoked: row.revoked } : null;
  }

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.db.prisma.revokedAccessToken.findUnique({ where: { jti }, select: { jti: true } })) !== null;
  }
}
