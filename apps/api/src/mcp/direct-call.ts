/**
 * A plain `tools/call` answered without building an SDK server for it. The stateless transport (http.ts) needs a
 * fresh McpServer per request, and building one (five tools, prompts, resources, completions), connecting it and
 * running the call through it cost more than a pinned pull or a search itself (apps/api/bench/mcp.bench.ts). A
 * request takes this path only when the SDK would accept it unchanged: a POST whose Accept, Content-Type, protocol
 * version and length the transport accepts, one JSON-RPC request (the SDK's own schemas) calling one of TOOLS
 * without task augmentation, with arguments its input schema accepts. Anything else (initialize, lists, batches,
 * notifications, bad arguments, a body without Content-Length) goes to the SDK, which answers it and every error
 * exactly as before. The answer is the SDK's: `{ result, jsonrpc, id }` with the tool's structured content and
 * the same JSON as text, or its `isError` refusal; the answer's JSON is written once and spliced, not re-serialized.
 */
import { CallToolRequestSchema, CallToolResultSchema, JSONRPCRequestSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { McpCaller } from "./answer.ts";
import { runTool, toolNamed } from "./tools.ts";

/** The direct answer, or the request for the SDK (its body unread, or read and parsed as `parsedBody`). */
export type DirectCall = { response: Response } | { request: Request; parsedBody?: unknown };

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** What the SDK transport would refuse or treat specially before it reads the body: left to it. */
function plainPost(req: Request, maxBodyBytes: number): boolean {
  const accept = req.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (!JSON_TYPE.test(req.headers.get("content-type") ?? "")) return false;
  const version = req.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  const length = Number(req.headers.get("content-length") ?? NaN);
  return Number.isSafeInteger(length) && length >= 0 && length <= maxBodyBytes;
}

export async function directToolCall(req: Request, caller: McpCaller, maxBodyBytes: number): Promise<DirectCall> {
  if (req.method !== "POST" || !plainPost(req, maxBodyBytes)) return { request: req };
  const text = await req.text();
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    // The SDK answers the parse error: hand it the bytes again.
    return { request: new Request(req.url, { method: "POST", headers: req.headers, body: text }) };
  }
  const call = JSONRPCRequestSchema.safeParse(message).success ? CallToolRequestSchema.safeParse(message) : undefined;
  const tool = call?.success && call.data.params.task === undefined ? toolNamed(call.data.params.name) : undefined;
  const args = tool?.inputSchema.safeParse(call!.data!.params.arguments ?? {});
  if (!call?.success || !tool || !args?.success) return { request: req, parsedBody: message };

  const id = JSON.stringify((message as { id: string | number }).id);
  const ran = await runTool(caller, call.data.params.name, args.data);
  const body =
    "answer" in ran
      ? `{"result":{"content":[{"type":"text","text":${JSON.stringify(ran.answer.json)}}],"structuredContent":${ran.answer.json}},"jsonrpc":"2.0","id":${id}}`
      : `{"result":${JSON.stringify(CallToolResultSchema.parse(ran.refused))},"jsonrpc":"2.0","id":${id}}`;
  return { response: new Response(body, { status: 200, headers: { "Content-Type": "application/json" } }) };
}
