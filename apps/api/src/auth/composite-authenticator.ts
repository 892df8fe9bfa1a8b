/**
 * Bearer tokens of both kinds: `rye_pat_…` personal/CI tokens go to their authenticator, JWT access
 * tokens are verified locally, their user is looked up once (it must still exist and be enabled) and, in the
 * same query, their jti on the revocation list (a revoked one is refused with TOKEN_REVOKED, not as unknown).
 * Anything else is unknown (null).
 */
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { AccessTokenRevocations } from "./access-token-revocations.ts";
import { TOKEN_PREFIX } from "./api-tokens.ts";
import type { AccessTokenVerifier } from "./jwt.ts";
import { findClient } from "../oauth/clients.ts";
import { asRemoteMcp, type Authenticator, type Principal } from "./principal.ts";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_JWT_LENGTH = 4096;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CompositeAuthenticatorOptions {
  db: Database;
  apiTokens: Authenticator;
  accessTokens: AccessTokenVerifier;
  revocations: AccessTokenRevocations;
}

export class CompositeAuthenticator implements Authenticator {
  constructor(private readonly options: CompositeAuthenticatorOptions) {}

  authenticate(token: string): Promise<Principal | null> {
    if (token.startsWith(TOKEN_PREFIX)) return this.options.apiTokens.authenticate(token);
    if (token.length <= MAX_JWT_LENGTH && JWT_SHAPE.test(token)) return this.fromAccessToken(token);
    return Promise.resolve(null);
  }

  private async fromAccessToken(token: string): Promise<Principal | null> {
    const claims = await this.options.accessTokens.verifyAccessToken(token).catch(() => null);
    if (!claims || !UUID.test(claims.sub)) return null;
    const user = await this.options.revocations.subjectOf(claims.sub, claims.jti);
    if (!user || user.disabled) return null;
    if (user.revoked) throw new RyeError("TOKEN_REVOKED", "This access token was revoked");
    const principal: Principal = { userId: claims.sub, username: user.username, isAdmin: user.isAdmin, scopes: claims.scope, tokenId: claims.jti, via: "access_token", namespace: null, audience: claims.audience };
    // A token issued to a third-party client (a client ID metadata document or a dynamic registration) is a remote
    // MCP client wherever it is presented, and never carries registry-admin powers: the person consented to reading
    // their own and their organizations' items (oauth/pages.ts consentPage), nothing more.
    return findClient(claims.clientId)?.kind === "first-party" ? principal : asRemoteMcp({ ...principal, isAdmin: false });
  }
}
