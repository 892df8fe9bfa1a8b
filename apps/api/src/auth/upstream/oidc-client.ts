/** OpenID Connect providers (Google, Keycloak, Okta, Entra, …): discovery, code + PKCE + nonce, ID token, userinfo. */
import * as oauth from "openid-client";
import { RyeError } from "@rye/core";
import { isLoopbackHttp, type OidcProvider } from "./config.ts";
import { buildCodeFlowUrl, clientAuthentication, clientMetadata, redeemCode } from "./oauth-code-flow.ts";
import { emailClaim, textClaim } from "./claims.ts";
import type { UpstreamClient, UpstreamProfile } from "./upstream-client.ts";

const TIMEOUT_SECONDS = 10;

function discover(provider: OidcProvider): Promise<oauth.Configuration> {
  const issuer = new URL(provider.issuer);
  return oauth.discovery(issuer, provider.client_id, clientMetadata(provider), clientAuthentication(provider), {
    timeout: TIMEOUT_SECONDS,
    // Plain http only for a loopback issuer (local development and tests); config.ts refuses other http URLs.
    ...(isLoopbackHttp(issuer) ? { execute: [oauth.allowInsecureRequests] } : {}),
  });
}

export function profileFromClaims(provider: string, claims: Record<string, unknown>): UpstreamProfile {
  const email = emailClaim(claims.email);
  // Some IdPs (AWS Cognito) send the boolean as a string.
  const emailVerified = email !== null && (claims.email_verified === true || claims.email_verified === "true");
  const hints = [textClaim(claims.preferred_username), textClaim(claims.nickname), email?.split("@")[0], textClaim(claims.name)];
  return {
    provider,
    subject: String(claims.sub),
    email,
    emailVerified,
    usernameHints: hints.filter((h): h is string => h !== undefined),
    displayName: (textClaim(claims.name) ?? textClaim(claims.preferred_username) ?? "").slice(0, 200),
  };
}

export function oidcClient(provider: OidcProvider): UpstreamClient {
  let configuration: Promise<oauth.Configuration> | null = null;
  // Discovery once per process; a failure is not cached, so the next sign-in tries again.
  const config = () =>
    (configuration ??= discover(provider).catch((err: unknown) => {
      configuration = null;
      throw err;
    }));
  return {
    usesNonce: true,
    async authorizationUrl(request) {
      return buildCodeFlowUrl(await config(), provider.scopes, request);
    },
    async finish(callbackUrl, checks) {
      const cfg = await config();
      const tokens = await redeemCode(cfg, callbackUrl, checks);
      const idToken = tokens.claims();
      if (!idToken) throw new RyeError("UNAUTHORIZED", `${provider.name} returned no ID token`);
      let claims: Record<string, unknown> = idToken;
      // Providers may keep profile claims out of the ID token when an access token is issued (OIDC Core §5.4);
      // then email and email_verified both come from userinfo (fetchUserInfo checks that `sub` matches).
      if (idToken.email === undefined && cfg.serverMetadata().userinfo_endpoint) {
        const userinfo = await oauth.fetchUserInfo(cfg, tokens.access_token, idToken.sub);
        claims = { ...idToken, ...userinfo, email: userinfo.email, email_verified: userinfo.email_verified, sub: idToken.sub };
      }
      return profileFromClaims(provider.id, claims);
    },
  };
}
