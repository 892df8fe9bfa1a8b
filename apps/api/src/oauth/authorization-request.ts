/**
 * Validation of an RFC 6749 §4.1.1 authorization request, shared by GET /oauth/authorize and the
 * consent form's POST. Until client and redirect URI are known good, errors are shown to the person
 * and never redirected (§4.1.2.1); after that they go back to the client with `state` and `iss`.
 */
import { type OAuthClient, findClient, isAllowedRedirectUri } from "./clients.ts";
import { OAuthError, type OAuthErrorCode } from "./errors.ts";
import type { Params } from "./params.ts";
import { isValidCodeChallenge } from "./pkce.ts";
import { parseScope } from "./scopes.ts";

const MAX_STATE_LENGTH = 512;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string;
  scope: string[];
  codeChallenge: string;
  prompt: string | undefined;
}

export type ValidatedRequest =
  | { ok: true; request: AuthorizationRequest }
  /** Show an error page: the redirect URI cannot be trusted. */
  | { ok: false; page: string }
  /** Send the error to the (validated) redirect URI. */
  | { ok: false; redirectTo: string };

export function validateAuthorizationRequest(params: Params, issuer: string): ValidatedRequest {
  const client = findClient(params.client_id);
  if (!client) return { ok: false, page: params.client_id ? "The application asking for access is unknown to this registry." : "client_id is missing." };
  const redirectUri = params.redirect_uri;
  if (!redirectUri || !isAllowedRedirectUri(client, redirectUri)) {
    return { ok: false, page: `The redirect address is not registered for ${client.name}: loopback addresses (http://127.0.0.1:PORT or http://[::1]:PORT) with the registered path only.` };
  }
  const state = params.state;
  const fail = (error: OAuthErrorCode, description: string) => ({ ok: false as const, redirectTo: authorizationResponseUrl(redirectUri, issuer, { error, error_description: description, state }) });
  if (params.response_type !== "code") return fail("unsupported_response_type", "Only response_type=code is supported");
  if (!client.grantTypes.includes("authorization_code")) return fail("unauthorized_client", "The client may not use the authorization code grant");
  if (!state) return fail("invalid_request", "state is required");
  if (state.length > MAX_STATE_LENGTH) return fail("invalid_request", `state is limited to ${MAX_STATE_LENGTH} characters`);
  if (params.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256 (plain is not supported)");
  if (!params.code_challenge || !isValidCodeChallenge(params.code_challenge)) return fail("invalid_request", "code_challenge must be a base64url SHA-256 (43 characters)");
  let scope: string[];
  try {
    scope = parseScope(params.scope, client);
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.error, err.description);
    throw err;
  }
  return { ok: true, request: { client, redirectUri, state, scope, codeChallenge: params.code_challenge, prompt: params.prompt } };
}

/** `redirect_uri` with the response parameters and `iss` (RFC 9207); undefined values are left out. */
export function authorizationResponseUrl(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("iss", issuer);
  return url.toString();
}
