/**
 * The JSON endpoints of the authorization server: device authorization (RFC 8628 §3.1), token
 * (authorization_code, refresh_token, device_code grants) and revocation (RFC 7009). Errors leave in
 * the RFC 6749 §5.2 format.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../env.ts";
import { DEVICE_CODE_GRANT, requireClient, requireGrant, type GrantType } from "./clients.ts";
import { noStore, OAuthError, oauthErrorHandler } from "./errors.ts";
import { MAX_PARAMS_BYTES, readParams, required, type Params } from "./params.ts";
import { parseScope } from "./scopes.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";
import type { TokenResponse } from "./token-issuer.ts";
import { formatUserCode } from "./user-code.ts";

const invalidRequest = (message: string) => new OAuthError("invalid_request", message);
const limitBody = bodyLimit({ maxSize: MAX_PARAMS_BYTES });
const GRANT_TYPES: readonly GrantType[] = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT];
const isGrantType = (value: string): value is GrantType => (GRANT_TYPES as readonly string[]).includes(value);

export function tokenRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const { devices, codes, refreshTokens, tokens, issuer, revocations } = services;

  async function grant(grantType: string, params: Params): Promise<TokenResponse> {
    if (!isGrantType(grantType)) throw new OAuthError("unsupported_grant_type", `Unsupported grant_type: ${grantType.slice(0, 100)}`);
    const client = requireClient(params.client_id);
    requireGrant(client, grantType);
    const param = (name: string) => required(params, name, invalidRequest);
    switch (grantType) {
      case DEVICE_CODE_GRANT:
        return tokens.issue(await devices.poll(param("device_code"), client.id));
      case "authorization_code":
        return tokens.issue(await codes.redeem({ code: param("code"), clientId: client.id, redirectUri: param("redirect_uri"), codeVerifier: param("code_verifier") }));
      case "refresh_token": {
        const { grant, accessScope } = await refreshTokens.rotate(param("refresh_token"), client.id, params.scope);
        return tokens.issue(grant, accessScope);
      }
    }
  }

  return new Hono<AppEnv>()
    .post("/oauth/device/code", limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const client = requireClient(params.client_id);
      requireGrant(client, DEVICE_CODE_GRANT);
      const started = await devices.start({
        clientId: client.id,
        scope: parseScope(params.scope, client),
        requestIp: c.get("clientIp"),
        requestUserAgent: c.req.header("user-agent")?.slice(0, 300) ?? null,
      });
      const userCode = formatUserCode(started.userCode);
      noStore(c);
      return c.json({
        device_code: started.deviceCode,
        user_code: userCode,
        verification_uri: `${issuer}/device`,
        verification_uri_complete: `${issuer}/device?user_code=${userCode}`,
        expires_in: started.expiresIn,
        interval: started.interval,
      });
    })
    .post("/oauth/token", limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const body = await grant(required(params, "grant_type", invalidRequest), params);
      noStore(c);
      return c.json(body);
    })
    .post("/oauth/revoke", limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const client = requireClient(params.client_id);
      const token = required(params, "token", invalidRequest);
      // A valid access token issued to this client goes on the revocation list until it expires; anything else is
      // tried as a refresh token. Unknown, expired or other clients' tokens get a 200 like revoked ones (RFC 7009 §2.2).
      const access = await deps.accessTokens.verifyAccessToken(token).catch(() => null);
      if (access) {
        if (access.clientId === client.id) await revocations.revoke(access);
      } else {
        await refreshTokens.revoke(token, client.id);
      }
      noStore(c);
      return c.body(null, 200);
    })
    .onError(oauthErrorHandler(deps.logger));
}
