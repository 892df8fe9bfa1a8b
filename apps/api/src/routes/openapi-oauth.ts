/**
 * The OAuth 2.0 authorization server (oauth/**) in the OpenAPI document (openapi.ts renders it):
 * RFC 8414 metadata and the access-token JWKS; the form-encoded endpoints of RFC 8628 (device
 * authorization), RFC 6749 (token) and RFC 7009 (revocation), whose errors are RFC 6749 §5.2
 * `{error, error_description}`; the browser side of the authorization code flow (an HTML consent
 * page, 302 redirects); and the person's side of the device flow under /v1/device (session cookie,
 * rye error envelope).
 */
import { z } from "zod";
import { ACCESS_TOKEN_TTL_SECONDS } from "../auth/jwt.ts";
import { SCOPES } from "../auth/principal.ts";
import { CLIENTS, DEVICE_CODE_GRANT, type GrantType } from "../oauth/clients.ts";
import { DEVICE_CODE_TTL_SECONDS } from "../oauth/device-authorizations.ts";
import type { OAuthErrorCode } from "../oauth/errors.ts";
import type { TokenResponse } from "../oauth/token-issuer.ts";
import { USER_CODE_ALPHABET } from "../oauth/user-code.ts";
import type { ProtectedResourceMetadata as ProtectedResourceMetadataShape } from "../oauth/protected-resource.ts";
import type { Operation, Reply, Same } from "../contract/operation.ts";

const timestamp = z.iso.datetime();

/** Every code oauth/errors.ts may answer with (checked below: none missing, none extra). */
const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "access_denied",
  "unsupported_response_type",
  "server_error",
  "temporarily_unavailable",
  "authorization_pending",
  "slow_down",
  "expired_token",
  "unsupported_token_type",
  "login_required",
  "consent_required",
] as const satisfies readonly OAuthErrorCode[];
true satisfies Same<(typeof OAUTH_ERROR_CODES)[number], OAuthErrorCode>;

const GRANT_TYPES = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT] as const satisfies readonly GrantType[];
true satisfies Same<(typeof GRANT_TYPES)[number], GrantType>;

const clientsFor = (grant: GrantType) => CLIENTS.filter((client) => client.grantTypes.includes(grant)).map((client) => client.id);
const clientId = (grant?: GrantType) =>
  z.string().meta({
    description: `A registry client (public: no secret, token_endpoint_auth_method none): ${(grant ? clientsFor(grant) : CLIENTS.map((client) => client.id)).join(", ")}. Unknown or missing: invalid_client.`,
    examples: grant ? clientsFor(grant) : CLIENTS.map((client) => client.id),
  });
const scope = z.string().meta({
  description: `Space-separated, of ${SCOPES.join(", ")}. Default: the client's default scopes (${CLIENTS.map((client) => `${client.id}: ${client.defaultScopes.join(" ")}`).join("; ")}).`,
});
const loopbacks = CLIENTS.filter((client) => client.loopbackRedirectPath).map((client) => `${client.id}: http://127.0.0.1:{port}${client.loopbackRedirectPath} or http://[::1]:{port}${client.loopbackRedirectPath}`);
const userCode = z.string().regex(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));

// ---------------------------------------------------------------- metadata
const AuthorizationServerMetadata = z
  .object({
    issuer: z.url().meta({ description: "The registry's public URL: iss and aud of every access token." }),
    authorization_endpoint: z.url(),
    token_endpoint: z.url(),
    device_authorization_endpoint: z.url(),
    revocation_endpoint: z.url(),
    jwks_uri: z.url(),
    scopes_supported: z.array(z.enum(SCOPES)),
    response_types_supported: z.array(z.literal("code")),
    response_modes_supported: z.array(z.literal("query")),
    grant_types_supported: z.array(z.enum(GRANT_TYPES)),
    code_challenge_methods_supported: z.array(z.literal("S256")),
    token_endpoint_auth_methods_supported: z.array(z.literal("none")),
    revocation_endpoint_auth_methods_supported: z.array(z.literal("none")),
    authorization_response_iss_parameter_supported: z.literal(true),
  })
  .meta({ description: "RFC 8414 authorization server metadata." });
const JsonWebKeySet = z
  .object({
    keys: z.array(
      z.object({
        kty: z.literal("OKP"),
        crv: z.literal("Ed25519"),
        x: z.string().meta({ description: "The public key, base64url." }),
        kid: z.string().meta({ description: "The key's rye fingerprint: the kid header of the access tokens." }),
        alg: z.literal("EdDSA"),
        use: z.literal("sig"),
      }),
    ),
  })
  .meta({ description: "RFC 7517 key set verifying the access tokens (RFC 9068 JWTs, typ at+jwt). A dedicated key, never the registry's item-signing key." });

const ProtectedResourceMetadata = z
  .object({
    resource: z.url().meta({ description: "The protected resource: <public URL>/mcp (the MCP server) or <public URL> (the registry API)." }),
    authorization_servers: z.array(z.url()).meta({ description: "This registry (its RFC 8414 metadata is at /.well-known/oauth-authorization-server)." }),
    scopes_supported: z.array(z.enum(SCOPES)).meta({ description: "/mcp: items:read (its tools only read); the API: every scope." }),
    bearer_methods_supported: z.array(z.literal("header")),
    resource_name: z.string(),
  })
  .meta({ description: "RFC 9728 protected resource metadata, as the MCP authorization specification asks of a remote MCP server." });
true satisfies Same<z.output<typeof ProtectedResourceMetadata>, ProtectedResourceMetadataShape>;

// ---------------------------------------------------------------- form-encoded endpoints
const OAuthError = z
  .object({
    error: z.enum(OAUTH_ERROR_CODES),
    error_description: z.string(),
    interval: z.number().int().optional().meta({ description: "slow_down only: the polling interval to keep from now on, in seconds (RFC 8628 §3.5)." }),
  })
  .meta({ description: "RFC 6749 §5.2 error of the form-encoded /oauth/* endpoints (Cache-Control: no-store)." });
const DeviceAuthorizationRequest = z.object({ client_id: clientId(DEVICE_CODE_GRANT), scope: scope.optional() });
const DeviceAuthorizationResponse = z.object({
  device_code: z.string().meta({ description: "Secret: poll POST /oauth/token with it." }),
  user_code: userCode.meta({ description: "For the person to confirm on the verification page (typed case-insensitively, the dash optional)." }),
  verification_uri: z.url().meta({ description: "<issuer>/device: the website's page, which uses GET /v1/device and POST /v1/device/approve|deny." }),
  verification_uri_complete: z.url().meta({ description: "verification_uri?user_code=<user_code>." }),
  expires_in: z.number().int().meta({ description: `Seconds until the codes expire (${DEVICE_CODE_TTL_SECONDS}).` }),
  interval: z.number().int().meta({ description: "Minimum seconds between polls; polling faster answers slow_down." }),
});
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
      })
      .meta({ title: "Authorization code grant (RFC 6749 §4.1.3, PKCE)", description: "A code works once; presenting it again revokes the tokens issued from it." }),
    z
      .object({
        grant_type: z.literal("refresh_token"),
        client_id: clientId("refresh_token"),
        refresh_token: z.string(),
        scope: z.string().optional().meta({ description: "May narrow the new access token's scope, never widen it; the new refresh token keeps the grant's scope." }),
      })
      .meta({ title: "Refresh token grant (RFC 6749 §6)", description: "The refresh token is rotated: presenting a used one revokes every token of the sign-in." }),
  ])
  .meta({ description: "Token request; the parameters of the chosen grant_type (others are ignored)." });
const OAuthTokenResponse = z
  .object({
    access_token: z.string().meta({ description: "A JWT (RFC 9068, typ at+jwt, EdDSA; verify with jwks_uri): send it as Authorization: Bearer." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ description: `Seconds the access token is valid (${ACCESS_TOKEN_TTL_SECONDS}).` }),
    refresh_token: z.string().meta({ description: "Single use: each refresh answers a new one." }),
    scope: z.string().meta({ description: "The access token's scopes, space-separated." }),
  })
  .meta({ description: "RFC 6749 §5.1 token response (Cache-Control: no-store)." });
true satisfies Same<z.output<typeof OAuthTokenResponse>, TokenResponse>;
const RevocationRequest = z.object({
  token: z.string().meta({ description: "A refresh token: its whole sign-in (token family) is revoked. Access tokens (short-lived JWTs) cannot be revoked." }),
  client_id: clientId(),
  token_type_hint: z.enum(["refresh_token", "access_token"]).optional().meta({ description: "Accepted and ignored (RFC 7009 §2.1)." }),
});

// ---------------------------------------------------------------- browser endpoints (authorization code flow)
const AuthorizationRequest = z.object({
  response_type: z.literal("code"),
  client_id: clientId("authorization_code"),
  redirect_uri: z.string().meta({ description: `A loopback redirect (RFC 8252 §7.3), any port, exact path: ${loopbacks.join("; ")}. localhost is refused.` }),
  state: z.string().min(1).max(512),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({ description: "BASE64URL(SHA256(code_verifier)) (RFC 7636)." }),
  code_challenge_method: z.literal("S256"),
  scope: scope.optional(),
  prompt: z.string().optional().meta({ description: "none: no interaction; since consent is never remembered, the answer is a login_required or consent_required error redirect." }),
});
const AuthorizationDecision = AuthorizationRequest.omit({ prompt: true })
  .extend({
    csrf_token: z.string().meta({ description: "The session's CSRF token (a hidden field of the consent page)." }),
    decision: z.enum(["approve", "deny"]),
  })
  .meta({ description: "The consent page's form: the authorization request in hidden fields (validated again), the session's CSRF token and the button pressed." });

// ---------------------------------------------------------------- the person's side of the device flow
const DeviceQuery = z.object({ user_code: z.string().meta({ description: "The code the device shows (case-insensitive, dash and spaces optional)." }) });
const DeviceRequest = z
  .object({
    user_code: userCode,
    client_id: z.string(),
    client_name: z.string(),
    scope: z.string().meta({ description: "Requested scopes, space-separated." }),
    requested_at: timestamp,
    request_ip: z.string().nullable().meta({ description: "Where the request came from, so consent phishing can be spotted." }),
    request_user_agent: z.string().nullable(),
    expires_at: timestamp,
  })
  .meta({ description: "A pending device sign-in request (Cache-Control: no-store)." });
const DeviceDecisionRequest = z.object({
  user_code: z.string().meta({ description: "Case-insensitive, dash and spaces optional." }),
  csrf_token: z.string().optional().meta({ description: "The session's CSRF token, when not sent as the X-CSRF-Token header." }),
});
const DeviceDecision = z.object({ user_code: userCode, status: z.enum(["approved", "denied"]), client_id: z.string(), scope: z.string() });

export const OAUTH_SCHEMAS: Record<string, z.ZodType> = {
  OAuthError,
  AuthorizationServerMetadata,
  ProtectedResourceMetadata,
  JsonWebKeySet,
  DeviceAuthorizationRequest,
  DeviceAuthorizationResponse,
  OAuthTokenRequest,
  OAuthTokenResponse,
  RevocationRequest,
  AuthorizationDecision,
  DeviceRequest,
  DeviceDecisionRequest,
  DeviceDecision,
};

// ---------------------------------------------------------------- operations
const FORM = ["application/x-www-form-urlencoded", "application/json"];
const NO_STORE = { "Cache-Control": { $ref: "#/components/headers/NoStore" } };
const HTML = { "text/html": { schema: { type: "string" } } };
const redirect = (description: string): Reply => ({ status: 302, description, headers: { Location: { required: true, schema: { type: "string", format: "uri" } } } });
const CLIENT_ERROR: [number, string] = [401, "invalid_client: client_id missing or unknown"];
const deviceDecision = (verb: "approve" | "deny", operationId: string, summary: string): Operation => ({
  method: "post",
  path: `/v1/device/${verb}`,
  operationId,
  summary,
  tag: "oauth",
  auth: "session+csrf",
  body: "DeviceDecisionRequest",
  bodyTypes: FORM,
  ok: { status: 200, description: verb === "approve" ? "Approved: the device's next poll gets tokens" : "Denied: the device's next poll gets access_denied", schema: "DeviceDecision" },
  errors: [
    [400, "Body neither a form nor a JSON object of strings"],
    [403, "Missing or wrong CSRF token (X-CSRF-Token header or csrf_token parameter)"],
    [404, "No pending request has this code (wrong, expired, used or already decided); wrong codes count toward the limits"],
    413,
    [429, "Too many wrong codes for this session or client IP (Retry-After), or the /v1 rate limit"],
  ],
});

export const OAUTH_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    operationId: "getAuthorizationServerMetadata",
    summary: "RFC 8414 metadata of the registry's OAuth authorization server",
    tag: "oauth",
    auth: "none",
    ok: { status: 200, description: "Metadata (Cache-Control: public, max-age=300)", schema: "AuthorizationServerMetadata" },
    errors: [],
  },
  {
    method: "get",
    path: "/.well-known/oauth-protected-resource/mcp",
    operationId: "getMcpProtectedResourceMetadata",
    summary: "RFC 9728 metadata of the MCP server at /mcp: where to sign in, which scope it needs",
    tag: "oauth",
    auth: "none",
    ok: { status: 200, description: "Metadata (Cache-Control: public, max-age=300)", schema: "ProtectedResourceMetadata" },
    errors: [],
  },
  {
    method: "get",
    path: "/.well-known/oauth-protected-resource",
    operationId: "getProtectedResourceMetadata",
    summary: "RFC 9728 metadata of the registry API as a protected resource",
    tag: "oauth",
    auth: "none",
    ok: { status: 200, description: "Metadata (Cache-Control: public, max-age=300)", schema: "ProtectedResourceMetadata" },
    errors: [],
  },
  { method: "get", path: "/.well-known/jwks.json", operationId: "getJwks", summary: "The public key of the access tokens", tag: "oauth", auth: "none", ok: { status: 200, description: "JWKS (Cache-Control: public, max-age=300)", schema: "JsonWebKeySet" }, errors: [] },
  {
    method: "post",
    path: "/oauth/device/code",
    operationId: "startDeviceAuthorization",
    summary: "RFC 8628 device authorization: a device code to poll with and a user code for the person",
    tag: "oauth",
    auth: "none",
    errorFormat: "oauth",
    body: "DeviceAuthorizationRequest",
    bodyTypes: FORM,
    ok: { status: 200, description: "Started", schema: "DeviceAuthorizationResponse", headers: NO_STORE },
    errors: [[400, "invalid_request (other content type, repeated or non-string parameter), invalid_scope, unauthorized_client (the client may not use the device grant)"], CLIENT_ERROR, 413],
  },
  {
    method: "post",
    path: "/oauth/token",
    operationId: "token",
    summary: "RFC 6749 token endpoint: the device_code, authorization_code and refresh_token grants",
    tag: "oauth",
    auth: "none",
    errorFormat: "oauth",
    body: "OAuthTokenRequest",
    bodyTypes: FORM,
    ok: { status: 200, description: "An access token and a new refresh token", schema: "OAuthTokenResponse", headers: NO_STORE },
    errors: [
      [400, "invalid_request, unsupported_grant_type, unauthorized_client, invalid_grant (unknown, used, expired or revoked code or token; disabled account), invalid_scope; device grant: authorization_pending, slow_down (with interval), access_denied, expired_token"],
      CLIENT_ERROR,
      413,
    ],
  },
  {
    method: "post",
    path: "/oauth/revoke",
    operationId: "revokeOAuthToken",
    summary: "RFC 7009 revocation of a refresh token and its whole sign-in",
    tag: "oauth",
    auth: "none",
    errorFormat: "oauth",
    body: "RevocationRequest",
    bodyTypes: FORM,
    ok: { status: 200, description: "Revoked, or nothing to revoke: unknown tokens and access tokens also answer 200 (empty body)", headers: NO_STORE },
    errors: [[400, "invalid_request; unauthorized_client (the token was issued to another client)"], CLIENT_ERROR, 413],
  },
  {
    method: "get",
    path: "/oauth/authorize",
    operationId: "authorize",
    summary: "RFC 6749 authorization endpoint (PKCE S256, RFC 9207 iss): the consent page for a signed-in person",
    tag: "oauth",
    auth: "optional-session",
    errorFormat: "html",
    query: AuthorizationRequest,
    ok: { status: 200, description: "The consent page: an HTML form posting to /oauth/authorize/decision (no scripts, no framing, Cache-Control: no-store)", content: HTML },
    also: [
      redirect(
        "Without a session: to <issuer>/login?next=<this request>. Once client_id and redirect_uri are valid, every other problem and prompt=none (login_required, consent_required) go to redirect_uri with error, error_description, state and iss.",
      ),
    ],
    errors: [[400, "HTML page, never a redirect (RFC 6749 §4.1.2.1): unknown or missing client_id, unregistered redirect_uri, repeated parameter"]],
  },
  {
    method: "post",
    path: "/oauth/authorize/decision",
    operationId: "decideAuthorization",
    summary: "The consent page's decision",
    tag: "oauth",
    auth: "session",
    errorFormat: "html",
    body: "AuthorizationDecision",
    bodyTypes: FORM,
    ok: redirect("To redirect_uri with code, state and iss (approve), with error=access_denied, error_description, state and iss (deny), or with the error of an invalid request"),
    errors: [
      [400, "HTML page: decision neither approve nor deny, unknown client or redirect_uri, malformed or oversized body"],
      [401, "HTML page: no session (it ended)"],
      [403, "HTML page: missing or wrong csrf_token"],
    ],
  },
  {
    method: "get",
    path: "/v1/device",
    operationId: "getDeviceRequest",
    summary: "The pending device sign-in request of a user code, for the verification page",
    tag: "oauth",
    auth: "session",
    query: DeviceQuery,
    ok: { status: 200, description: "What asks for access, from where", schema: "DeviceRequest", headers: NO_STORE },
    errors: [
      [404, "No pending request has this code (wrong, expired, used or already decided); wrong codes count toward the limits"],
      [429, "Too many wrong codes for this session or client IP (Retry-After), or the /v1 rate limit"],
    ],
  },
  deviceDecision("approve", "approveDevice", "Approve a device sign-in request"),
  deviceDecision("deny", "denyDevice", "Deny a device sign-in request"),
];
