/**
 * POST /oauth/register: RFC 7591 dynamic client registration for third-party MCP clients that do not use a Client ID
 * Metadata Document (dynamic-clients.ts). Anonymous, limited per client IP and hour; errors in the RFC 7591 §3.2.2
 * format. Served only while RYE_OAUTH_DCR is on (otherwise 404, and the metadata has no registration_endpoint).
 */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { Same } from "../contract/operation.ts";
import { access, errors, json } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { CLIENT_METADATA_LIMITS } from "./client-metadata.ts";
import { NO_STORE } from "./contract.ts";
import type { RegistrationResponse } from "./dynamic-clients.ts";
import { noStore, OAuthError, oauthErrorHandler } from "./errors.ts";
import { MAX_PARAMS_BYTES } from "./params.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";

const ClientRegistrationRequest = z
  .object({
    client_name: z.string().min(1).max(CLIENT_METADATA_LIMITS.maxClientNameLength).meta({ description: "Shown on the consent page as a self-declared, unverified name." }),
    redirect_uris: z
      .array(z.string().max(CLIENT_METADATA_LIMITS.maxRedirectUriLength))
      .min(1)
      .max(CLIENT_METADATA_LIMITS.maxRedirectUris)
      .meta({ description: "https URIs, http on 127.0.0.1, [::1] or localhost (RFC 8252), or private-use schemes; matched exactly at /oauth/authorize. No fragments or credentials." }),
    token_endpoint_auth_method: z.literal("none").optional(),
    grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
    response_types: z.array(z.literal("code")).optional(),
  })
  .meta({ id: "ClientRegistrationRequest", description: "RFC 7591 client metadata of a public client; other members are ignored, a client_secret is refused." });
const ClientRegistrationResponse = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.tuple([z.literal("code")]),
    token_endpoint_auth_method: z.literal("none"),
    scope: z.string().meta({ description: "What a third-party client may ask for: items:read." }),
  })
  .meta({ id: "ClientRegistrationResponse", description: "RFC 7591 §3.2.1: the registered client (public: no secret)." });
true satisfies Same<z.output<typeof ClientRegistrationResponse>, RegistrationResponse>;

export const registerClientRoute = createRoute({
  method: "post",
  path: "/oauth/register",
  operationId: "registerOAuthClient",
  summary: "RFC 7591 dynamic client registration of a public third-party client (items:read on /mcp only); not served when RYE_OAUTH_DCR=false",
  tags: ["oauth"],
  "x-rye-error-format": "oauth",
  ...access("none"),
  request: { body: { required: true, content: { "application/json": { schema: ClientRegistrationRequest } } } },
  responses: {
    201: json(ClientRegistrationResponse, "Registered", NO_STORE),
    ...errors(
      [400, "invalid_redirect_uri, invalid_client_metadata (missing or overlong client_name, a client_secret, another auth method or grant type), invalid_request (not a JSON object)"],
      413,
      [429, "temporarily_unavailable: too many registrations from this address this hour (Retry-After)"],
    ),
  },
});

export function registrationRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const dynamic = services.dynamicClients;
  if (!dynamic) return app;
  return app
    .post(registerClientRoute.path, bodyLimit({ maxSize: MAX_PARAMS_BYTES }), async (c) => {
      const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
      if (type !== "application/json") throw new OAuthError("invalid_request", "Send the client metadata as application/json (RFC 7591 §3.1)");
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new OAuthError("invalid_request", "The request body is not valid JSON");
      }
      const registered = await dynamic.register(body, { ip: c.get("clientIp"), requestId: c.get("requestId") });
      noStore(c);
      return c.json(registered, 201);
    })
    .onError(oauthErrorHandler(deps.logger));
}
