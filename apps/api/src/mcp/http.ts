/**
 * POST /mcp: the registry as a remote MCP server over Streamable HTTP, stateless. Every POST gets a fresh server
 * and transport (server.ts) answering with one JSON body (no SSE stream: every tool answers at once), or, for a
 * plain tools/call, the same answer without a server (direct-call.ts), so no session,
 * stream or cursor is pinned to a process and `RYE_ROLE=api` replicas behind a balancer serve any request. Without a
 * session there is nothing to GET (a server-initiated stream) or DELETE: every other method is 405, as the transport
 * spec allows.
 *
 * The caller is the bearer token the request context authenticated (middleware/request-context.ts), or anonymous;
 * the website's session cookie is never used here (a cross-site POST must not act as the signed-in person). A refused
 * token is a 401 with the RFC 9728 challenge (oauth/protected-resource.ts mcpAuthChallenge, mounted in app.ts); a
 * token without items:read a 403 insufficient_scope. Every caller here is a remote MCP client (auth/principal.ts
 * asRemoteMcp): organizations that forbid those are read as by an outsider, registry admins included.
 */
import { Hono } from "hono";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { asRemoteMcp } from "../auth/principal.ts";
import type { AppEnv } from "../env.ts";
import { mcpScopeRefusal, mcpSignInRequired } from "../oauth/protected-resource.ts";
import type { AppDeps } from "../services/deps.ts";
import type { McpCaller } from "./answer.ts";
import { directToolCall } from "./direct-call.ts";
import { createRegistryMcpServer } from "./server.ts";

export const MCP_PATH = "/mcp";
/** Largest JSON-RPC body accepted: the tools' arguments are a few short strings. */
export const MCP_MAX_BODY_BYTES = 256 * 1024;

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** The request answered by a fresh SDK server and transport (server.ts); `parsedBody` when its body was already read. */
async function answerWithServer(caller: McpCaller, request: Request, parsedBody?: unknown): Promise<Response> {
  const server = createRegistryMcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MCP_MAX_BODY_BYTES });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  } finally {
    await server.close();
  }
}

export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post(MCP_PATH, async (c) => {
      const refusal = mcpSignInRequired(c.get("principal"), deps.config.oauth.mcpAnonymous, deps.config.publicUrl) ?? mcpScopeRefusal(c.get("principal"), deps.config.publicUrl);
      if (refusal) return c.json(refusal.body, refusal.status, { "WWW-Authenticate": refusal.challenge });
      const principal = c.get("principal");
      const caller: McpCaller = { deps, principal: principal && asRemoteMcp(principal), requestId: c.get("requestId") };
      // A plain tools/call is answered without a server (direct-call.ts); everything else by the SDK.
      const direct = await directToolCall(c.req.raw, caller, MCP_MAX_BODY_BYTES);
      const response = "response" in direct ? direct.response : await answerWithServer(caller, direct.request, direct.parsedBody);
      // Answers depend on who asks (private items): never kept by a shared cache.
      response.headers.set("Cache-Control", "private, no-store");
      response.headers.set("Vary", "Authorization");
      return response;
    })
    .all(MCP_PATH, () => rpcError(405, -32000, "Method not allowed: this MCP server is stateless (no sessions, no server-initiated stream); send requests with POST", { Allow: "POST" }));
}
