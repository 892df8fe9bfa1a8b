/** The RFC 6749 §5.1 token response every grant ends in: a JWT access token plus a rotated refresh token. */
import type { Database } from "@rye/db";
import type { AccessTokens } from "../auth/jwt.ts";
import { OAuthError } from "./errors.ts";
import type { Grant, RefreshTokens } from "./refresh-tokens.ts";
import { formatScope } from "./scopes.ts";

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export class TokenIssuer {
  constructor(
    private readonly db: Database,
    private readonly accessTokens: AccessTokens,
    private readonly refreshTokens: RefreshTokens,
  ) {}

  /** Tokens for `grant`; the access token may carry a narrower `accessScope`. The user must still be enabled. */
  async issue(grant: Grant, accessScope: string[] = grant.scope): Promise<TokenResponse> {
    const user = await this.db.prisma.user.findUnique({ where: { id: grant.userId }, select: { username: true, disabledAt: true } });
    if (!user || user.disabledAt) {
      await this.refreshTokens.revokeFamily(grant.familyId);
      throw new OAuthError("invalid_grant", "The account is disabled");
    }
    const refreshToken = await this.refreshTokens.issue(grant);
    const access = await this.accessTokens.issueAccessToken({ sub: grant.userId, username: user.username, scope: accessScope, clientId: grant.clientId, audience: grant.resource });
    return { access_token: access.token, token_type: "Bearer", expires_in: access.expiresIn, refresh_token: refreshToken, scope: formatScope(accessScope) };
  }
}
