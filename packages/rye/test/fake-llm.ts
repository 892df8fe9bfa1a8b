/**
 * A local HTTP server that speaks an LLM provider's real wire protocol, with scripted replies: the Anthropic
 * Messages API (`POST /v1/messages`, `x-api-key`, JSON or SSE with `message_start … message_stop`) or the
 * OpenAI Chat Completions API (`POST /v1/chat/completions`, `Authorization: Bearer`, JSON or SSE chunks ending
 * in `data: [DONE]`, usage in the last chunk with `stream_options.include_usage`).
 *
 * Each request takes the next scripted reply (or asks `reply(request)`): text and/or tool calls with a usage,
 * or a failure — an HTTP error with the provider's error body (429 with Retry-After, 500, 401 for a wrong key),
 * a malformed body, or a stream dropped in the middle. Every request is recorded.
 */
import { once } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type Protocol = "anthropic" | "openai";

export interface ToolCallReply {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

export type Reply =
  | { text?: string; toolCalls?: ToolCallReply[]; usage: { input: number; output: number }; stop?: "end" | "tools" | "max_tokens" }
  | { status: number; retryAfter?: number; message?: string }
  | { malformed: true }
  /** Streams part of the reply, then drops the connection. */
  | { drop: true; text?: string };

export interface RecordedLlmRequest {
  path: string;
  /** Whether the API key header carried the expected key. */
  authorized: boolean;
  body: Record<string, any>;
  stream: boolean;
  at: number;
}

export interface FakeLlm {
  url: string;
  protocol: Protocol;
  apiKey: string;
  requests: RecordedLlmRequest[];
  /** Replies for the next requests, in order. */
  script(...replies: Reply[]): void;
  /** Used when the script is empty. */
  reply: ((request: RecordedLlmRequest) => Reply) | undefined;
  close(): Promise<void>;
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(6, "0")}`;

function chunks(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/* ------------------------------------------------------------------ Anthropic Messages */

function anthropicError(status: number, message?: string): { type: string; error: { type: string; message: string } } {
  const type = status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : status === 400 ? "invalid_request_error" : status === 529 ? "overloaded_error" : "api_error";
  return { type: "error", error: { type, message: message ?? (status === 429 ? "Number of requests has exceeded your rate limit" : status === 401 ? "invalid x-api-key" : "Internal server error") } };
}

function anthropicMessage(model: string, reply: Extract<Reply, { usage: unknown }>) {
  const content: Record<string, unknown>[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls ?? []) content.push({ type: "tool_use", id: call.id ?? nextId("toolu"), name: call.name, input: call.input });
  const stop = reply.stop === "max_tokens" ? "max_tokens" : (reply.toolCalls?.length ?? 0) > 0 ? "tool_use" : "end_turn";
  return { id: nextId("msg"), type: "message", role: "assistant", model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output } };
}

function sse(res: ServerResponse, event: string | null, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function anthropicStream(res: ServerResponse, model: string, reply: Extract<Reply, { usage: unknown }>): void {
  const message = anthropicMessage(model, reply);
  sse(res, "message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { input_tokens: reply.usage.input, output_tokens: 1 } } });
  sse(res, "ping", { type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of chunks(String(block.text))) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
    } else {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const piece of chunks(JSON.stringify(block.input), 11)) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: reply.usage.output } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

/* ------------------------------------------------------------------ OpenAI Chat Completions */

function openaiError(status: number, message?: string) {
  const code = status === 429 ? "rate_limit_exceeded" : status === 401 ? "invalid_api_key" : null;
  const type = status === 429 ? "requests" : status === 401 ? "invalid_request_error" : "server_error";
  return { error: { message: message ?? (status === 429 ? "Rate limit reached for requests" : status === 401 ? "Incorrect API key provided" : "The server had an error while processing your request."), type, param: null, code } };
}

function openaiCompletion(model: string, reply: Extract<Reply, { usage: unknown }>) {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({ id: c.id ?? nextId("call"), type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } }));
  const finish = reply.stop === "max_tokens" ? "length" : toolCalls.length ? "tool_calls" : "stop";
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: reply.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
    usage: { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output, total_tokens: reply.usage.input + reply.usage.output },
  };
}

function openaiStream(res: ServerResponse, model: string, reply: Extract<Reply, { usage: unknown }>, includeUsage: boolean): void {
  const full = openaiCompletion(model, reply);
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => sse(res, null, { ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  chunk({ role: "assistant", content: "" });
  for (const piece of chunks(reply.text ?? "")) chunk({ content: piece });
  (full.choices[0]!.message.tool_calls ?? []).forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of chunks(call.function.arguments, 9)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, full.choices[0]!.finish_reason);
  if (includeUsage) sse(res, null, { ...base, choices: [], usage: full.usage });
  sse(res, null, "[DONE]");
  res.end();
}

/* ------------------------------------------------------------------ server */

export async function startFakeLlm(protocol: Protocol, options: { apiKey?: string } = {}): Promise<FakeLlm> {
  const apiKey = options.apiKey ?? `test-key-${Math.random().toString(36).slice(2)}`;
  const queue: Reply[] = [];
  const state: FakeLlm = {
    url: "",
    protocol,
    apiKey,
    requests: [],
    script: (...replies) => queue.push(...replies),
    reply: undefined,
    close: async () => undefined,
  };
  const path = protocol === "anthropic" ? "/v1/messages" : "/v1/chat/completions";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = "";
    for await (const c of req) raw += (c as Buffer).toString();
    if (req.method !== "POST" || req.url !== path) {
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify(protocol === "anthropic" ? anthropicError(404, "Not found") : openaiError(404, "Not found")));
    }
    const authorized = protocol === "anthropic" ? req.headers["x-api-key"] === apiKey : req.headers.authorization === `Bearer ${apiKey}`;
    let body: Record<string, any> = {};
    try {
      body = JSON.parse(raw) as Record<string, any>;
    } catch {
      body = {};
    }
    const recorded: RecordedLlmRequest = { path: req.url, authorized, body, stream: body.stream === true, at: Date.now() };
    state.requests.push(recorded);
    const error = (status: number, message?: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(protocol === "anthropic" ? anthropicError(status, message) : openaiError(status, message)));
    };
    if (!authorized) return error(401);
    if (protocol === "anthropic" && req.headers["anthropic-version"] !== "2023-06-01") return error(400, "anthropic-version header is required");
    const reply = queue.shift() ?? state.reply?.(recorded);
    if (!reply) return error(500, "the fake provider has no scripted reply left");
    if ("status" in reply) return error(reply.status, reply.message, reply.retryAfter !== undefined ? { "retry-after": String(reply.retryAfter) } : {});
    if ("malformed" in reply) {
      res.writeHead(200, { "content-type": recorded.stream ? "text/event-stream" : "application/json" });
      return void res.end(recorded.stream ? "data: {not json\n\n" : '{"id": "msg_1", "content": [');
    }
    const model = String(body.model ?? "unknown");
    if ("drop" in reply) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const partial = { usage: { input: 10, output: 5 }, text: reply.text ?? "partial answer that never" };
      if (protocol === "anthropic") {
        sse(res, "message_start", { type: "message_start", message: { ...anthropicMessage(model, partial), content: [], stop_reason: null } });
        sse(res, "content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
        sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: partial.text } });
      } else {
        sse(res, null, { id: "x", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta: { content: partial.text }, finish_reason: null }] });
      }
      res.socket?.destroy();
      return;
    }
    if (recorded.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (protocol === "anthropic") anthropicStream(res, model, reply);
      else openaiStream(res, model, reply, body.stream_options?.include_usage === true);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(protocol === "anthropic" ? anthropicMessage(model, reply) : openaiCompletion(model, reply)));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return state;
}
