/**
 * The JSON endpoints of the authorization server: device authorization (RFC 8628 §3.1), token
 * (authorization_code, refresh_token, device_code grants) and revocation (RFC 7009). Errors leave in
 * the RFC 6749 §5.2 format. Their form-encoded requests are declared for the document only (contract.ts).
 */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { ACCESS_TOKEN_TTL_SECONDS } from "../auth/jwt.ts";
import type { Same } from "../contract/operation.ts";
import { access, errors, json, noBody } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { DEVICE_CODE_GRANT, requireGrant, type GrantType } from "./clients.ts";
import { clientId, formRequest, GRANT_TYPES, NO_STORE, resource, scope, userCode } from "./contract.ts";
import { DEVICE_CODE_TTL_SECONDS } from "./device-authorizations.ts";
import { noStore, OAuthError, oauthErrorHandler } from "./errors.ts";
import { MAX_PARAMS_BYTES, readParams, required, type Params } from "./params.ts";
import { resourcesOf } from "./resources.ts";
import { parseScope } from "./scopes.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";
import type { TokenResponse } from "./token-issuer.ts";
import { formatUserCode } from "./user-code.ts";

// ---------------------------------------------------------------- declarations
const DeviceAuthorizationRequest = z.object({ client_id: clientId(DEVICE_CODE_GRANT), scope: scope.optional() }).meta({ id: "DeviceAuthorizationRequest" });
const DeviceAuthorizationResponse = z
  .object({
    device_code: z.string().meta({ description: "Secret: poll POST /oauth/token with it." }),
    user_code: userCode.meta({ description: "For the person to confirm on the verification page (typed case-insensitively, the dash optional)." }),
    verification_uri: z.url().meta({ description: "<issuer>/device: the website's page, which uses GET /v1/device and POST /v1/device/approve|deny." }),
    verification_uri_complete: z.url().meta({ description: "verification_uri?user_code=<user_code>." }),
    expires_in: z.number().int().meta({ description: `Seconds until the codes expire (${DEVICE_CODE_TTL_SECONDS}).` }),
    interval: z.number().int().meta({ description: "Minimum seconds between polls; polling faster answers slow_down." }),
  })
  .meta({ id: "DeviceAuthorizationResponse" });
const OAuthTokenRequest = z
  .discriminatedUnion("grant_type", [
    z
      .object({ grant_type: z.literal(DEVICE_CODE_GRANT), client_id: clientId(DEVICE_CODE_GRANT), device_code: z.string() })
      .meta({ title: "Device code grant (RFC 8628 §3.4)", description: "Until the person decides: authorization_pending (or slow_down); then tokens once, or access_denied; expired_token after expires_in." }),
    z
      .object({
        grant_type: z.literal("authorization_code"),
        client_id: clientId("authorization_code"),
        code: z.string(),
        redirect_uri: z.string().meta({ description: "Exactly the redirect_uri of the authorization request." }),
        code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/).meta({ description: "RFC 7636 §4.1; its S256 must equal the request's code_challenge." }),
        resource: resource.optional(),
      })
      .meta({ title: "Authorization code grant (RFC 6749 §4.1.3, PKCE)", description: "A code works once; presenting it again revokes the tokens issued from it." }),
    z
      .object({
        grant_type: z.literal("refresh_token"),
        client_id: clientId("refresh_token"),
        refresh_token: z.string(),
        scope: z.string().optional().meta({ description: "May narrow the new access token's scope, never widen it; the new refresh token keeps the grant's scope." }),
        resource: resource.optional(),
      })
      .meta({ title: "Refresh token grant (RFC 6749 §6)", description: "The refresh token is rotated: presenting a used one revokes every token of the sign-in." }),
  ])
  .meta({ id: "OAuthTokenRequest", description: "Token request; the parameters of the chosen grant_type (others are ignored)." });
const OAuthTokenResponse = z
  .object({
    access_token: z.string().meta({ description: "A JWT (RFC 9068, typ at+jwt, EdDSA; verify with jwks_uri): send it as Authorization: Bearer." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ description: `Seconds the access token is valid (${ACCESS_TOKEN_TTL_SECONDS}).` }),
    refresh_token: z.string().meta({ description: "Single use: each refresh answers a new one." }),
    scope: z.string().meta({ description: "The access token's scopes, space-separated." }),
  })
  .meta({ id: "OAuthTokenResponse", description: "RFC 6749 §5.1 token response (Cache-Control: no-store)." });
true satisfies Same<z.output<typeof OAuthTokenResponse>, TokenResponse>;
const RevocationRequest = z
  .object({
    token: z.string().meta({ description: "A refresh token: its whole sign-in (token family) is revoked. Access tokens (short-lived JWTs) cannot be revoked." }),
    client_id: clientId(),
    token_type_hint: z.enum(["refresh_token", "access_token"]).optional().meta({ description: "Accepted and ignored (RFC 7009 §2.1)." }),
  })
  .meta({ id: "RevocationRequest" });

const CLIENT_ERROR: [number, string] = [401, "invalid_client: client_id missing or unknown, or its client metadata document refused"];

export const deviceAuthorizationRoute = createRoute({
  method: "post",
  path: "/oauth/device/code",
  operationId: "startDeviceAuthorization",
  summary: "RFC 8628 device authorization: a device code to poll with and a user code for the person",
  tags: ["oauth"],
  "x-rye-error-format": "oauth",
  ...access("none"),
  request: { body: formRequest(DeviceAuthorizationRequest) },
  responses: {
    200: json(DeviceAuthorizationResponse, "Started", NO_STORE),
    ...errors([400, "invalid_request (other content type, repeated or non-string parameter), invalid_scope, unauthorized_client (the client may not use the device grant)"], CLIENT_ERROR, 413),
  },
});
export const tokenRoute = createRoute({
  method: "post",
  path: "/oauth/token",
  operationId: "token",
  summary: "RFC 6749 token endpoint: the device_code, authorization_code and refresh_token grants",
  tags: ["oauth"],
  "x-rye-error-format": "oauth",
  ...access("none"),
  request: { body: formRequest(OAuthTokenRequest) },
  responses: {
    200: json(OAuthTokenResponse, "An access token and a new refresh token", NO_STORE),
    ...errors(
      [400, "invalid_request, unsupported_grant_type, unauthorized_client, invalid_grant (unknown, used, expired or revoked code or token; disabled account), invalid_scope, invalid_target (a resource other than the grant's); device grant: authorization_pending, slow_down (with interval), access_denied, expired_token"],
      CLIENT_ERROR,
      413,
    ),
  },
});
export const revokeRoute = createRoute({
  method: "post",
  path: "/oauth/revoke",
  operationId: "revokeOAuthToken",
  summary: "RFC 7009 revocation of a refresh token and its whole sign-in",
  tags: ["oauth"],
  "x-rye-error-format": "oauth",
  ...access("none"),
  request: { body: formRequest(RevocationRequest) },
  responses: {
    200: noBody("Revoked, or nothing to revoke: unknown tokens and access tokens also answer 200 (empty body)", NO_STORE),
    ...errors([400, "invalid_request; unauthorized_client (the token was issued to another client)"], CLIENT_ERROR, 413),
  },
});

// ---------------------------------------------------------------- handlers
const invalidRequest = (message: string) => new OAuthError("invalid_request", message);
const limitBody = bodyLimit({ maxSize: MAX_PARAMS_BYTES });
const isGrantType = (value: string): value is GrantType => (GRANT_TYPES as readonly string[]).includes(value);

export function tokenRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const { devices, codes, refreshTokens, tokens, issuer, revocations, clients } = services;
  const api = resourcesOf(issuer).api;

  async function grant(grantType: string, params: Params): Promise<TokenResponse> {
    if (!isGrantType(grantType)) throw new OAuthError("unsupported_grant_type", `Unsupported grant_type: ${grantType.slice(0, 100)}`);
    const client = await clients.require(params.client_id);
    requireGrant(client, grantType);
    const param = (name: string) => required(params, name, invalidRequest);
    switch (grantType) {
      case DEVICE_CODE_GRANT: {
        if (params.resource && params.resource !== api) throw new OAuthError("invalid_target", `The device grant is for the resource ${api} only`);
        return tokens.issue({ ...(await devices.poll(param("device_code"), client.id)), resource: api });
      }
      case "authorization_code":
        return tokens.issue(await codes.redeem({ code: param("code"), clientId: client.id, redirectUri: param("redirect_uri"), codeVerifier: param("code_verifier"), resource: params.resource }));
      case "refresh_token": {
        const { grant, accessScope } = await refreshTokens.rotate(param("refresh_token"), client.id, params.scope, params.resource);
        return tokens.issue(grant, accessScope);
      }
    }
  }

  return new Hono<AppEnv>()
    .post(deviceAuthorizationRoute.path, limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const client = await clients.require(params.client_id);
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
    .post(tokenRoute.path, limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const body = await grant(required(params, "grant_type", invalidRequest), params);
      noStore(c);
      return c.json(body);
    })
    .post(revokeRoute.path, limitBody, async (c) => {
      const params = await readParams(c, invalidRequest);
      const client = await clients.require(params.client_id);
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
