/**
 * The registry as an OAuth protected resource (RFC 9728), as the MCP authorization specification asks of /mcp:
 *   /.well-known/oauth-protected-resource/mcp   the metadata of `<public URL>/mcp` (the MCP server)
 *   /.well-known/oauth-protected-resource       the metadata of `<public URL>` (the registry API as a whole)
 * both naming this registry as their authorization server. A request to /mcp whose bearer token is invalid,
 * expired or revoked is answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 §5.1), so a
 * client finds where to sign in again; a token without the scope /mcp needs is answered 403 `insufficient_scope`
 * naming it (RFC 6750 §3.1).
 */
import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { type Principal, type Scope, SCOPES } from "../auth/principal.ts";
import type { Same } from "../contract/operation.ts";
import { access, json } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { METADATA_CACHED } from "./contract.ts";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
/** What /mcp needs of a bearer token: the tools only read. */
export const MCP_SCOPE: Scope = "items:read";

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: Scope[];
  bearer_methods_supported: "header"[];
  resource_name: string;
}

const ProtectedResourceMetadataSchema = z
  .object({
    resource: z.url().meta({ description: "The protected resource: <public URL>/mcp (the MCP server) or <public URL> (the registry API)." }),
    authorization_servers: z.array(z.url()).meta({ description: "This registry (its RFC 8414 metadata is at /.well-known/oauth-authorization-server)." }),
    scopes_supported: z.array(z.enum(SCOPES)).meta({ description: "/mcp: items:read (its tools only read); the API: every scope." }),
    bearer_methods_supported: z.array(z.literal("header")),
    resource_name: z.string(),
  })
  .meta({ id: "ProtectedResourceMetadata", description: "RFC 9728 protected resource metadata, as the MCP authorization specification asks of a remote MCP server." });
true satisfies Same<z.output<typeof ProtectedResourceMetadataSchema>, ProtectedResourceMetadata>;

export const mcpProtectedResourceRoute = createRoute({
  method: "get",
  path: `${PROTECTED_RESOURCE_PATH}/mcp`,
  operationId: "getMcpProtectedResourceMetadata",
  summary: "RFC 9728 metadata of the MCP server at /mcp: where to sign in, which scope it needs",
  tags: ["oauth"],
  ...access("none"),
  responses: { 200: json(ProtectedResourceMetadataSchema, `Metadata (${METADATA_CACHED})`) },
});
export const protectedResourceRoute = createRoute({
  method: "get",
  path: PROTECTED_RESOURCE_PATH,
  operationId: "getProtectedResourceMetadata",
  summary: "RFC 9728 metadata of the registry API as a protected resource",
  tags: ["oauth"],
  ...access("none"),
  responses: { 200: json(ProtectedResourceMetadataSchema, `Metadata (${METADATA_CACHED})`) },
});

/** RFC 9728 §2 metadata of `<publicUrl><resourcePath>` ("" for the registry API, "/mcp" for the MCP server). */
export function protectedResourceMetadata(publicUrl: string, resourcePath: "" | "/mcp"): ProtectedResourceMetadata {
  const base = publicUrl.replace(/\/+$/, "");
  return {
    resource: `${base}${resourcePath}`,
    authorization_servers: [base],
    scopes_supported: resourcePath === "/mcp" ? [MCP_SCOPE] : [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: resourcePath === "/mcp" ? "rye registry (MCP)" : "rye registry API",
  };
}

/** The metadata URL a challenge for `resourcePath` points at (RFC 9728 §3.1: the well-known path, then the resource's path). */
export function resourceMetadataUrl(publicUrl: string, resourcePath: "" | "/mcp"): string {
  return `${publicUrl.replace(/\/+$/, "")}${PROTECTED_RESOURCE_PATH}${resourcePath}`;
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`;

export function bearerChallenge(fields: Record<string, string>): string {
  return `Bearer ${Object.entries(fields).map(([key, value]) => `${key}=${quoted(value)}`).join(", ")}`;
}

export function protectedResourceRoutes(publicUrl: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const [resourcePath, route] of [["", protectedResourceRoute], ["/mcp", mcpProtectedResourceRoute]] as const) {
    const metadata = protectedResourceMetadata(publicUrl, resourcePath);
    app.get(route.path, (c) => {
      c.header("Cache-Control", "public, max-age=300");
      return c.json(metadata);
    });
  }
  return app;
}

/**
 * Registered on /mcp before the request context authenticates the bearer token: a 401 answer (the token was refused)
 * leaves with the RFC 9728 challenge.
 */
export function mcpAuthChallenge(publicUrl: string): MiddlewareHandler<AppEnv> {
  const challenge = bearerChallenge({ error: "invalid_token", error_description: "The bearer token is invalid, expired or revoked", resource_metadata: resourceMetadataUrl(publicUrl, "/mcp") });
  return async (c, next) => {
    await next();
    if (c.res.status === 401 && !c.res.headers.has("WWW-Authenticate")) c.res.headers.set("WWW-Authenticate", challenge);
  };
}

/**
 * A registry that serves /mcp to signed-in callers only (RYE_MCP_ANONYMOUS=false: a private registry) answers a
 * request without a token 401 with the challenge that starts an MCP client's sign-in (RFC 9728 §5.1), or null.
 */
export function mcpSignInRequired(principal: Principal | null, anonymousAllowed: boolean, publicUrl: string): McpRefusal<401> | null {
  if (principal || anonymousAllowed) return null;
  return mcpRefusal(401, publicUrl, "UNAUTHORIZED", "This registry's MCP server answers signed-in callers only", `Sign in with the registry's OAuth (your MCP client starts it from this answer), or send a token with the ${MCP_SCOPE} scope.`);
}

/**
 * A bearer token sent to /mcp must hold MCP_SCOPE (a write-only CI token is refused, not silently read as anonymous):
 * the 403 answer with its challenge, or null when the caller may go on.
 */
export function mcpScopeRefusal(principal: Principal | null, publicUrl: string): McpRefusal<403> | null {
  if (!principal || principal.scopes.includes(MCP_SCOPE)) return null;
  return mcpRefusal(403, publicUrl, "FORBIDDEN", `The token lacks the ${MCP_SCOPE} scope`, `Sign in again asking for the ${MCP_SCOPE} scope, or use a token that has it.`, "insufficient_scope");
}

export interface McpRefusal<S extends 401 | 403> {
  status: S;
  body: unknown;
  challenge: string;
}

/** /mcp's refusal: the error envelope naming the scope and the resource metadata, and its RFC 6750 challenge. */
function mcpRefusal<S extends 401 | 403>(status: S, publicUrl: string, code: "UNAUTHORIZED" | "FORBIDDEN", message: string, hint: string, error?: string): McpRefusal<S> {
  const metadata = resourceMetadataUrl(publicUrl, "/mcp");
  const envelope = new RyeError(code, message, { hint, details: { scope: MCP_SCOPE, resource_metadata: metadata } }).toEnvelope();
  return { status, body: envelope, challenge: bearerChallenge({ ...(error ? { error } : {}), scope: MCP_SCOPE, resource_metadata: metadata }) };
}
