/** The authorization code + PKCE S256 steps both adapters share (openid-client 6). */
import * as oauth from "openid-client";
import type { UpstreamProvider } from "./config.ts";
import type { AuthorizationRequest, CallbackChecks } from "./upstream-client.ts";

export function clientAuthentication(provider: UpstreamProvider): oauth.ClientAuth {
  switch (provider.token_endpoint_auth_method) {
    case "client_secret_basic":
      return oauth.ClientSecretBasic(provider.client_secret);
    case "client_secret_post":
      return oauth.ClientSecretPost(provider.client_secret);
    case "none":
      return oauth.None();
  }
}

export function clientMetadata(provider: UpstreamProvider): Partial<oauth.ClientMetadata> {
  return { token_endpoint_auth_method: provider.token_endpoint_auth_method, ...(provider.client_secret ? { client_secret: provider.client_secret } : {}) };
}

export function buildCodeFlowUrl(config: oauth.Configuration, scope: string, request: AuthorizationRequest): URL {
  return oauth.buildAuthorizationUrl(config, {
    response_type: "code",
    redirect_uri: request.redirectUri,
    scope,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
}

/** Checks the authorization response (state, `iss` when advertised, IdP errors) and redeems the code with the PKCE verifier. */
export function redeemCode(config: oauth.Configuration, callbackUrl: URL, checks: CallbackChecks) {
  return oauth.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    ...(checks.nonce ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
  });
}
