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

  async isRevoked(jti: string): Promise<boolean> {
    return (await this.db.prisma.revokedAccessToken.findUnique({ where: { jti }, select: { jti: true } })) !== null;
  }
}
