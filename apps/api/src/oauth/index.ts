/**
 * The registry's OAuth 2.0 authorization server for its own clients: `app.route("/", oauthRoutes(deps))`.
 * RFC 8628 device grant, RFC 6749 authorization code + RFC 7636 PKCE (S256) with RFC 8252 loopback
 * redirects, rotated refresh tokens (RFC 9700), RFC 7009 revocation, RFC 8414 metadata, RFC 9207 `iss`.
 */
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { authorizeRoutes } from "./authorize-routes.ts";
import { deviceApprovalRoutes } from "./device-approval-routes.ts";
import { metadataRoutes } from "./metadata-routes.ts";
import { createOAuthServices, type OAuthDeps, type OAuthOptions } from "./services.ts";
import { registrationRoutes } from "./registration-routes.ts";
import { tokenRoutes } from "./token-routes.ts";

export type { OAuthDeps, OAuthOptions } from "./services.ts";

export function oauthRoutes(deps: OAuthDeps, options: OAuthOptions = {}, services = createOAuthServices(deps, options)): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .route("/", metadataRoutes(deps, services))
    .route("/", registrationRoutes(deps, services))
    .route("/", tokenRoutes(deps, services))
    .route("/", authorizeRoutes(deps, services))
    .route("/", deviceApprovalRoutes(deps, services));
}
