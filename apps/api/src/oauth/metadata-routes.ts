/** RFC 8414 authorization server metadata, RFC 9728 protected resource metadata and the access token JWKS. */
import { Hono } from "hono";
import { SCOPES } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";
import { DEVICE_CODE_GRANT } from "./clients.ts";
import { protectedResourceRoutes } from "./protected-resource.ts";
import type { OAuthDeps } from "./services.ts";

export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    device_authorization_endpoint: `${issuer}/oauth/device/code`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", DEVICE_CODE_GRANT],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_response_iss_parameter_supported: true,
  };
}

export function metadataRoutes(deps: OAuthDeps): Hono<AppEnv> {
  const metadata = authorizationServerMetadata(deps.config.publicUrl);
  return new Hono<AppEnv>()
    .route("/", protectedResourceRoutes(deps.config.publicUrl))
    .get("/.well-known/oauth-authorization-server", (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.json(metadata);
    })
    .get("/.well-known/jwks.json", async (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.json(await deps.accessTokens.jwks());
    });
}
