/**
 * /mcp in the OpenAPI document (contract/document.ts renders it). The JSON-RPC methods themselves (tools, prompts,
 * resources) are described by the MCP server's own lists (`tools/list` with input and output schemas), not here.
 */
import { z } from "zod";
import type { Operation } from "../contract/operation.ts";

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int()]).optional().meta({ description: "Absent for a notification (answered 202, no body)." }),
    method: z.string().meta({ description: "initialize, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/templates/list, resources/read, completion/complete, ping …" }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ description: "A JSON-RPC 2.0 request or notification of the Model Context Protocol (Streamable HTTP transport)." });
const JsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ description: "The JSON-RPC answer: result, or error (also for a malformed message, with id null)." });

export const MCP_SCHEMAS: Record<string, z.ZodType> = { McpMessage: JsonRpcMessage, McpAnswer: JsonRpcAnswer };

export const MCP_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    summary: "The registry as a remote MCP server (Streamable HTTP, stateless, JSON answers): read-only tools, directives as prompts, knowledge and skills as resources. Other methods on /mcp answer 405 (Allow: POST): no session, no server-initiated stream",
    tag: "mcp",
    auth: "optional",
    body: "McpMessage",
    ok: { status: 200, description: "The JSON-RPC answer (Cache-Control: private, no-store)", schema: "McpAnswer" },
    also: [{ status: 202, description: "A notification or response was accepted (no body)" }],
    errors: [
      [400, "Not a JSON-RPC message, or not JSON (a JSON-RPC error, id null)"],
      [401, "The bearer token is invalid, expired or revoked: WWW-Authenticate: Bearer error=\"invalid_token\", resource_metadata=\"<public URL>/.well-known/oauth-protected-resource/mcp\" (RFC 9728)"],
      [403, "The bearer token lacks items:read: WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"items:read\", resource_metadata=…"],
      [406, "Accept does not list both application/json and text/event-stream"],
      [413, "Body above 256 KiB"],
      [415, "Content-Type is not application/json"],
      [429, "Rate limited (the read budget, counted apart from /v1)"],
    ],
  },
];
