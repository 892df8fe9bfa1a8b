/**
 * The registry as an OAuth protected resource (RFC 9728), as the MCP authorization specification asks of /mcp:
 *   /.well-known/oauth-protected-resource/mcp   the metadata of `<public URL>/mcp` (the MCP server)
 *   /.well-known/oauth-protected-resource       the metadata of `<public URL>` (the registry API as a whole)
 * both naming this registry as their authorization server. A request to /mcp whose bearer token is invalid,
 * expired or revoked is answered 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 §5.1), so a
 * client finds where to sign in again; a token without the scope /mcp needs is answered 403 `insufficient_scope`
 * naming it (RFC 6750 §3.1).
 */
import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { RyeError } from "@rye/core";
import { type Principal, type Scope, SCOPES } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";

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
  for (const resourcePath of ["", "/mcp"] as const) {
    const metadata = protectedResourceMetadata(publicUrl, resourcePath);
    app.get(`${PROTECTED_RESOURCE_PATH}${resourcePath}`, (c) => {
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
    if (c.res.status === 401) c.res.headers.set("WWW-Authenticate", challenge);
  };
}

/**
 * A bearer token sent to /mcp must hold MCP_SCOPE (a write-only CI token is refused, not silently read as anonymous):
 * the 403 answer with its challenge, or null when the caller may go on.
 */
export function mcpScopeRefusal(principal: Principal | null, publicUrl: string): { status: 403; body: unknown; challenge: string } | null {
  if (!principal || principal.scopes.includes(MCP_SCOPE)) return null;
  const metadata = resourceMetadataUrl(publicUrl, "/mcp");
  const error = new RyeError("FORBIDDEN", `The token lacks the ${MCP_SCOPE} scope`, { hint: `Sign in again asking for the ${MCP_SCOPE} scope, or use a token that has it.`, details: { scope: MCP_SCOPE, resource_metadata: metadata } });
  return { status: 403, body: error.toEnvelope(), challenge: bearerChallenge({ error: "insufficient_scope", scope: MCP_SCOPE, resource_metadata: metadata }) };
}
