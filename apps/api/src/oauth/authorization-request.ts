/**
 * Validation of an RFC 6749 §4.1.1 authorization request, shared by GET /oauth/authorize and the
 * consent form's POST. Until client and redirect URI are known good, errors are shown to the person
 * and never redirected (§4.1.2.1); after that they go back to the client with `state` and `iss`.
 */
import type { ClientDirectory } from "./client-directory.ts";
import { type OAuthClient, isAllowedRedirectUri } from "./clients.ts";
import { OAuthError, type OAuthErrorCode } from "./errors.ts";
import type { Params } from "./params.ts";
import { isValidCodeChallenge } from "./pkce.ts";
import { parseResource } from "./resources.ts";
import { parseScope } from "./scopes.ts";

const MAX_STATE_LENGTH = 512;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string;
  scope: string[];
  codeChallenge: string;
  /** RFC 8707: the resource the tokens will be for (the API or /mcp). */
  resource: string;
  prompt: string | undefined;
}

export type ValidatedRequest =
  | { ok: true; request: AuthorizationRequest }
  /** Show an error page: the redirect URI cannot be trusted. */
  | { ok: false; page: string }
  /** Send the error to the (validated) redirect URI. */
  | { ok: false; redirectTo: string };

export async function validateAuthorizationRequest(params: Params, issuer: string, clients: ClientDirectory): Promise<ValidatedRequest> {
  let client: OAuthClient | undefined;
  try {
    client = await clients.find(params.client_id);
  } catch (err) {
    if (err instanceof OAuthError) return { ok: false, page: `The application asking for access cannot be used: ${err.description}.` };
    throw err;
  }
  if (!client) return { ok: false, page: params.client_id ? "The application asking for access is unknown to this registry." : "client_id is missing." };
  const redirectUri = params.redirect_uri;
  if (!redirectUri || !isAllowedRedirectUri(client, redirectUri)) {
    const rule = client.kind === "first-party" ? "loopback addresses (http://127.0.0.1:PORT or http://[::1]:PORT) with the registered path only" : "it must be exactly one of the redirect_uris its metadata lists";
    return { ok: false, page: `The redirect address is not registered for ${client.name}: ${rule}.` };
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
  let resource: string;
  try {
    scope = parseScope(params.scope, client);
    resource = parseResource(params.resource, client, issuer);
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.error, err.description);
    throw err;
  }
  return { ok: true, request: { client, redirectUri, state, scope, resource, codeChallenge: params.code_challenge, prompt: params.prompt } };
}

/** `redirect_uri` with the response parameters and `iss` (RFC 9207); undefined values are left out. */
export function authorizationResponseUrl(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("iss", issuer);
  return url.toString();
}
