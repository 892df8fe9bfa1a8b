/**
 * POST /mcp declared for the document. The transport (mcp/http.ts) parses JSON-RPC itself and answers malformed
 * messages as JSON-RPC errors, so no validator runs from this declaration. The JSON-RPC methods themselves (tools,
 * prompts, resources) are described by the MCP server's own lists (`tools/list` with input and output schemas).
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { access, errors, json, jsonRequest, noBody } from "../contract/route.ts";

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int()]).optional().meta({ description: "Absent for a notification (answered 202, no body)." }),
    method: z.string().meta({ description: "initialize, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/templates/list, resources/read, completion/complete, ping …" }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "McpMessage", description: "A JSON-RPC 2.0 request or notification of the Model Context Protocol (Streamable HTTP transport)." });
const JsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: "McpAnswer", description: "The JSON-RPC answer: result, or error (also for a malformed message, with id null)." });

export const mcpRoute = createRoute({
  method: "post",
  path: "/mcp",
  operationId: "mcp",
  summary: "The registry as a remote MCP server (Streamable HTTP, stateless, JSON answers): read-only tools, directives as prompts, knowledge and skills as resources. Other methods on /mcp answer 405 (Allow: POST): no session, no server-initiated stream",
  tags: ["mcp"],
  ...access("optional"),
  request: { body: jsonRequest(JsonRpcMessage) },
  responses: {
    200: json(JsonRpcAnswer, "The JSON-RPC answer (Cache-Control: private, no-store)"),
    202: noBody("A notification or response was accepted (no body)"),
    ...errors(
      [400, "Not a JSON-RPC message, or not JSON (a JSON-RPC error, id null)"],
      [401, "The bearer token is invalid, expired or revoked: WWW-Authenticate: Bearer error=\"invalid_token\", resource_metadata=\"<public URL>/.well-known/oauth-protected-resource/mcp\" (RFC 9728)"],
      [403, "The bearer token lacks items:read: WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"items:read\", resource_metadata=…"],
      [406, "Accept does not list both application/json and text/event-stream"],
      [413, "Body above 256 KiB"],
      [415, "Content-Type is not application/json"],
      [429, "Rate limited (the read budget, counted apart from /v1)"],
    ),
  },
});
