/** RFC 8414 authorization server metadata, RFC 9728 protected resource metadata and the access token JWKS. */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { z } from "zod";
import { SCOPES } from "../auth/principal.ts";
import { access, json } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { DEVICE_CODE_GRANT } from "./clients.ts";
import { GRANT_TYPES, METADATA_CACHED } from "./contract.ts";
import { protectedResourceRoutes } from "./protected-resource.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";

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
    registration_endpoint: z.url().optional().meta({ description: "RFC 7591 dynamic client registration; absent when the operator turned it off." }),
    client_id_metadata_document_supported: z.literal(true).meta({ description: "A third-party client's client_id may be the https URL of its Client ID Metadata Document." }),
  })
  .meta({ id: "AuthorizationServerMetadata", description: "RFC 8414 authorization server metadata." });
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
  .meta({ id: "JsonWebKeySet", description: "RFC 7517 key set verifying the access tokens (RFC 9068 JWTs, typ at+jwt). A dedicated key, never the registry's item-signing key." });

export const authorizationServerMetadataRoute = createRoute({
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  operationId: "getAuthorizationServerMetadata",
  summary: "RFC 8414 metadata of the registry's OAuth authorization server",
  tags: ["oauth"],
  ...access("none"),
  responses: { 200: json(AuthorizationServerMetadata, `Metadata (${METADATA_CACHED})`) },
});
export const jwksRoute = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getJwks",
  summary: "The public key of the access tokens",
  tags: ["oauth"],
  ...access("none"),
  responses: { 200: json(JsonWebKeySet, `JWKS (${METADATA_CACHED})`) },
});

export function authorizationServerMetadata(issuer: string, options: { registration: boolean } = { registration: true }): z.output<typeof AuthorizationServerMetadata> {
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
    ...(options.registration ? { registration_endpoint: `${issuer}/oauth/register` } : {}),
    client_id_metadata_document_supported: true,
  };
}

export function metadataRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const metadata = authorizationServerMetadata(deps.config.publicUrl, { registration: services.dynamicClients !== null });
  return new Hono<AppEnv>()
    .route("/", protectedResourceRoutes(deps.config.publicUrl))
    .get(authorizationServerMetadataRoute.path, (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.json(metadata);
    })
    .get(jwksRoute.path, async (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.json(await deps.accessTokens.jwks());
    });
}
