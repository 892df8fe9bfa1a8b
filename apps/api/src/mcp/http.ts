/**
 * POST /mcp: the registry as a remote MCP server over Streamable HTTP, stateless. Every POST gets a fresh server
 * and transport (server.ts) answering with one JSON body (no SSE stream: every tool answers at once), so no session,
 * stream or cursor is pinned to a process and `RYE_ROLE=api` replicas behind a balancer serve any request. Without a
 * session there is nothing to GET (a server-initiated stream) or DELETE: every other method is 405, as the transport
 * spec allows.
 *
 * The caller is the bearer token the request context authenticated (middleware/request-context.ts), or anonymous;
 * the website's session cookie is never used here (a cross-site POST must not act as the signed-in person). A refused
 * token is a 401 with the RFC 9728 challenge (oauth/protected-resource.ts mcpAuthChallenge, mounted in app.ts); a
 * token without items:read a 403 insufficient_scope.
 */
import { Hono } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AppEnv } from "../env.ts";
import { mcpScopeRefusal } from "../oauth/protected-resource.ts";
import type { AppDeps } from "../services/deps.ts";
import { createRegistryMcpServer } from "./server.ts";

export const MCP_PATH = "/mcp";
/** Largest JSON-RPC body accepted: the tools' arguments are a few short strings. */
export const MCP_MAX_BODY_BYTES = 256 * 1024;

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post(MCP_PATH, async (c) => {
      const refusal = mcpScopeRefusal(c.get("principal"), deps.config.publicUrl);
      if (refusal) return c.json(refusal.body, refusal.status, { "WWW-Authenticate": refusal.challenge });
      const server = createRegistryMcpServer({ deps, principal: c.get("principal"), requestId: c.get("requestId") });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MCP_MAX_BODY_BYTES });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(c.req.raw);
        // Answers depend on who asks (private items): never kept by a shared cache.
        response.headers.set("Cache-Control", "private, no-store");
        response.headers.set("Vary", "Authorization");
        return response;
      } finally {
        await server.close();
      }
    })
    .all(MCP_PATH, () => rpcError(405, -32000, "Method not allowed: this MCP server is stateless (no sessions, no server-initiated stream); send requests with POST", { Allow: "POST" }));
}
