/**
 * A local HTTP server that speaks an LLM provider's real wire protocol, with scripted replies: the Anthropic
 * Messages API (`POST /v1/messages`, `x-api-key`, JSON or SSE with `message_start … message_stop`) or the
 * OpenAI Chat Completions API (`POST /v1/chat/completions`, `Authorization: Bearer`, JSON or SSE chunks ending
 * in `data: [DONE]`, usage in the last chunk with `stream_options.include_usage`).
 *
 * Each request takes the next scripted reply (or asks `reply(request)`): text and/or tool calls with a usage,
 * or a failure — an HTTP error with the provider's error body (429 with Retry-After, 500, 401 for a wrong key),
 * a malformed body, a stream dropped in the middle, an `error` event in an Anthropic stream, or no answer at all.
 * Every request is recorded (parsed body, raw text, headers).
 *
 * Like the real APIs, it refuses (400 invalid_request_error, in the provider's own words) requests that break
 * the protocol's rules: the required fields, the message roles, every tool call answered by a tool result in the
 * next message (and no result without its call), Anthropic's tool results first in their user message and
 * non-empty text blocks, OpenAI's `stream_options` only with `stream`, a non-empty `tools` list, and — when a
 * reply carried a thinking block — that block sent back unchanged at the start of the assistant turn that used
 * tools. `{ validate: false }` turns the checks off.
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

export interface UsageReply {
  input: number;
  output: number;
  /** Anthropic cache_read_input_tokens / OpenAI prompt_tokens_details.cached_tokens. */
  cache_read?: number;
  /** Anthropic cache_creation_input_tokens. */
  cache_write?: number;
}

export interface ContentReply {
  text?: string;
  toolCalls?: ToolCallReply[];
  usage: UsageReply;
  stop?: "end" | "tools" | "max_tokens";
  /** Anthropic only: a thinking block (with a signature) before the other content. */
  thinking?: string;
  /** Characters per streamed text delta (default 7) and per tool-input delta (default 11 / 9). */
  chunkSize?: number;
}

export type Reply =
  | ContentReply
  | { status: number; retryAfter?: number; message?: string; type?: string; headers?: Record<string, string> }
  | { malformed: true }
  /** Streams part of the reply, then drops the connection. */
  | { drop: true; text?: string }
  /** Anthropic: streams the start of a message, then an `error` event (e.g. overloaded_error), then ends. */
  | { streamError: { type: string; message: string } }
  /** Never answers (until the server closes). */
  | { hang: true };

export interface RecordedLlmRequest {
  path: string;
  /** Whether the API key header carried the expected key. */
  authorized: boolean;
  body: Record<string, any>;
  /** The body as it arrived. */
  raw: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  stream: boolean;
  at: number;
}

export interface FakeLlm {
  url: string;
  protocol: Protocol;
  /** null: no key is required (and none is checked). */
  apiKey: string | null;
  requests: RecordedLlmRequest[];
  /** Replies for the next requests, in order. */
  script(...replies: Reply[]): void;
  /** Used when the script is empty. */
  /** Used when the script is empty; may answer later (a promise), e.g. once the test has done something. */
  reply: ((request: RecordedLlmRequest) => Reply | Promise<Reply>) | undefined;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  /** The expected key; null accepts requests without one (a local server). Default: a random key. */
  apiKey?: string | null;
  /** Refuse requests that break the protocol's rules (default true). */
  validate?: boolean;
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(6, "0")}`;

function chunks(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === "object" && !Array.isArray(v);

/* ------------------------------------------------------------------ Anthropic Messages */

function anthropicError(status: number, message?: string, type?: string) {
  const kind =
    type ??
    (status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : status === 403 ? "permission_error" : status === 400 ? "invalid_request_error" : status === 404 ? "not_found_error" : status === 529 ? "overloaded_error" : "api_error");
  const text = message ?? (status === 429 ? "Number of requests has exceeded your rate limit" : status === 401 ? "invalid x-api-key" : status === 529 ? "Overloaded" : "Internal server error");
  return { type: "error", error: { type: kind, message: text }, request_id: nextId("req") };
}

function anthropicUsage(usage: UsageReply) {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_creation_input_tokens: usage.cache_write ?? 0,
    cache_read_input_tokens: usage.cache_read ?? 0,
  };
}

/** Thinking blocks this server issued, by the id of a tool call in the same reply (the round-trip rule). */
type IssuedThinking = Map<string, { type: "thinking"; thinking: string; signature: string }>;

function anthropicMessage(model: string, reply: ContentReply, issued: IssuedThinking) {
  const content: Record<string, any>[] = [];
  const thinking = reply.thinking !== undefined ? { type: "thinking" as const, thinking: reply.thinking, signature: `sig_${nextId("th")}_${"A".repeat(40)}` } : undefined;
  if (thinking) content.push(thinking);
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    const id = call.id ?? nextId("toolu");
    content.push({ type: "tool_use", id, name: call.name, input: call.input });
    if (thinking) issued.set(id, thinking);
  }
  const stop = reply.stop === "max_tokens" ? "max_tokens" : (reply.toolCalls?.length ?? 0) > 0 ? "tool_use" : "end_turn";
  return { id: nextId("msg"), type: "message", role: "assistant", model, content, stop_reason: stop, stop_sequence: null, usage: anthropicUsage(reply.usage) };
}

function sse(res: ServerResponse, event: string | null, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function anthropicStream(res: ServerResponse, model: string, reply: ContentReply, issued: IssuedThinking): void {
  const message = anthropicMessage(model, reply, issued);
  const startUsage = { ...message.usage, output_tokens: 1 };
  sse(res, "message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: startUsage } });
  sse(res, "ping", { type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of chunks(String(block.text), reply.chunkSize)) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
    } else if (block.type === "thinking") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
      for (const piece of chunks(String(block.thinking), reply.chunkSize)) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
      sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } });
    } else {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const piece of chunks(JSON.stringify(block.input), reply.chunkSize ?? 11)) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  // message_delta carries cumulative usage.
  sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: reply.usage.output } });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

/** The rules the Messages API enforces that a client's conversion can get wrong; null when the request is fine. */
function anthropicInvalid(body: Record<string, any>, issued: IssuedThinking): string | null {
  const allowed = new Set(["model", "max_tokens", "messages", "system", "tools", "tool_choice", "stream", "metadata", "stop_sequences", "temperature", "top_p", "top_k", "thinking", "service_tier"]);
  for (const key of Object.keys(body)) if (!allowed.has(key)) return `${key}: Extra inputs are not permitted`;
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return "max_tokens: Field required (a positive integer)";
  if (body.stream !== undefined && typeof body.stream !== "boolean") return "stream: Input should be a valid boolean";
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) return "system: Input should be a valid string";
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "tools: Input should be a valid list";
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) return `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
      if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") return `tools.${i}.input_schema.type: Input should be 'object'`;
    }
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "messages: at least one message is required";
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || (m.role !== "user" && m.role !== "assistant")) return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (typeof m.content === "string") {
      if (m.content.trim() === "") return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
      continue;
    }
    if (!Array.isArray(m.content) || m.content.length === 0) return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    let seenOther = false;
    for (const [j, block] of m.content.entries()) {
      if (!isObject(block)) return `messages.${i}.content.${j}: Input should be a valid dictionary`;
      if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === "")) return `messages.${i}.content.${j}.text: text content blocks must contain non-whitespace text`;
      if (block.type === "tool_result") {
        if (m.role !== "user") return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
        if (seenOther) return `messages.${i}.content.${j}: tool_result blocks must come before any other content in a user message`;
        if (block.is_error !== undefined && typeof block.is_error !== "boolean") return `messages.${i}.content.${j}.is_error: Input should be a valid boolean`;
      } else seenOther = true;
      if (block.type === "tool_use" && (m.role !== "assistant" || typeof block.id !== "string" || !isObject(block.input))) return `messages.${i}.content.${j}: invalid tool_use block`;
    }
  }
  for (const [i, m] of messages.entries()) {
    const blocks: Record<string, any>[] = Array.isArray(m.content) ? m.content : [];
    const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id as string);
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id as string);
    if (uses.length > 0) {
      const next = messages[i + 1];
      const answered = new Set(Array.isArray(next?.content) ? next.content.filter((b: any) => b?.type === "tool_result").map((b: any) => b.tool_use_id) : []);
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      const thinking = uses.map((id) => issued.get(id)).find(Boolean);
      if (thinking && !(blocks[0]?.type === "thinking" && blocks[0].signature === thinking.signature && blocks[0].thinking === thinking.thinking)) {
        return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
      }
    }
    if (results.length > 0) {
      const prev = messages[i - 1];
      const asked = new Set(Array.isArray(prev?.content) ? prev.content.filter((b: any) => b?.type === "tool_use").map((b: any) => b.id) : []);
      const unknown = results.filter((id) => !asked.has(id));
      if (unknown.length > 0) return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unknown.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return null;
}

/* ------------------------------------------------------------------ OpenAI Chat Completions */

function openaiError(status: number, message?: string, type?: string) {
  const code = status === 429 ? "rate_limit_exceeded" : status === 401 ? "invalid_api_key" : null;
  const kind = type ?? (status === 429 ? "requests" : status === 401 || status === 400 ? "invalid_request_error" : "server_error");
  const text = message ?? (status === 429 ? "Rate limit reached for requests" : status === 401 ? "Incorrect API key provided" : "The server had an error while processing your request.");
  return { error: { message: text, type: kind, param: null, code } };
}

function openaiUsage(usage: UsageReply) {
  const cached = usage.cache_read ?? 0;
  return {
    prompt_tokens: usage.input + cached,
    completion_tokens: usage.output,
    total_tokens: usage.input + cached + usage.output,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function openaiCompletion(model: string, reply: ContentReply) {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({ id: c.id ?? nextId("call"), type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } }));
  const finish = reply.stop === "max_tokens" ? "length" : toolCalls.length ? "tool_calls" : "stop";
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: "assistant", content: reply.text ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, logprobs: null, finish_reason: finish }],
    usage: openaiUsage(reply.usage),
  };
}

function openaiStream(res: ServerResponse, model: string, reply: ContentReply, includeUsage: boolean): void {
  const full = openaiCompletion(model, reply);
  // With include_usage every chunk carries `usage: null`; the last one has the figures and no choices.
  const base = { id: full.id, object: "chat.completion.chunk", created: full.created, model, ...(includeUsage ? { usage: null } : {}) };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => sse(res, null, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  chunk({ role: "assistant", content: "", refusal: null });
  for (const piece of chunks(reply.text ?? "", reply.chunkSize)) chunk({ content: piece });
  (full.choices[0]!.message.tool_calls ?? []).forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of chunks(call.function.arguments, reply.chunkSize ?? 9)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, full.choices[0]!.finish_reason);
  if (includeUsage) sse(res, null, { ...base, choices: [], usage: full.usage });
  sse(res, null, "[DONE]");
  res.end();
}

function openaiInvalid(body: Record<string, any>): string | null {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  for (const key of ["max_tokens", "max_completion_tokens"]) {
    if (body[key] !== undefined && (!Number.isInteger(body[key]) || body[key] < 1)) return `Invalid type for '${key}': expected an integer`;
  }
  if (body.stream_options !== undefined && body.stream !== true) return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) return "[] is too short - 'tools'";
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function) || typeof tool.function.name !== "string") return `Missing required parameter: 'tools[${i}].function'.`;
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function.name)) return `Invalid 'tools[${i}].function.name': string does not match pattern.`;
    }
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "[] is too short - 'messages'";
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || !["system", "developer", "user", "assistant", "tool"].includes(m.role)) return `Invalid value: '${m?.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'.`;
    if (m.role === "assistant") {
      if (m.content == null && !Array.isArray(m.tool_calls)) return `Invalid value for 'content': expected a string, got null.`;
      for (const [j, call] of (m.tool_calls ?? []).entries()) {
        if (typeof call?.id !== "string" || call.type !== "function" || typeof call.function?.name !== "string") return `Missing required parameter: 'messages[${i}].tool_calls[${j}]'.`;
        if (typeof call.function.arguments !== "string") return `Invalid type for 'messages[${i}].tool_calls[${j}].function.arguments': expected a string, but got an object instead.`;
      }
      if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
        const answered = new Set<string>();
        for (let k = i + 1; k < messages.length && messages[k]?.role === "tool"; k++) answered.add(messages[k].tool_call_id);
        const missing = m.tool_calls.map((c: any) => c.id).filter((id: string) => !answered.has(id));
        if (missing.length > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`;
      }
    } else if (typeof m.content !== "string") return `Invalid type for 'messages[${i}].content': expected a string.`;
    if (m.role === "tool") {
      let k = i - 1;
      while (k >= 0 && messages[k]?.role === "tool") k--;
      const calls = messages[k]?.role === "assistant" && Array.isArray(messages[k].tool_calls) ? messages[k].tool_calls.map((c: any) => c.id) : [];
      if (!calls.includes(m.tool_call_id)) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
  }
  return null;
}

/* ------------------------------------------------------------------ server */

export async function startFakeLlm(protocol: Protocol, options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const apiKey = options.apiKey === undefined ? `test-key-${Math.random().toString(36).slice(2)}` : options.apiKey;
  const validate = options.validate ?? true;
  const queue: Reply[] = [];
  const issued: IssuedThinking = new Map();
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
  const requestIdHeader = protocol === "anthropic" ? "request-id" : "x-request-id";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = "";
    for await (const c of req) raw += (c as Buffer).toString();
    const error = (status: number, message?: string, headers: Record<string, string> = {}, type?: string) => {
      res.writeHead(status, { "content-type": "application/json", [requestIdHeader]: nextId("req"), ...headers });
      res.end(JSON.stringify(protocol === "anthropic" ? anthropicError(status, message, type) : openaiError(status, message, type)));
    };
    if (req.method !== "POST" || req.url !== path) return error(404, "Not found");
    const expectedAuth = apiKey === null ? undefined : protocol === "anthropic" ? apiKey : `Bearer ${apiKey}`;
    const givenAuth = protocol === "anthropic" ? req.headers["x-api-key"] : req.headers.authorization;
    const authorized = apiKey === null || givenAuth === expectedAuth;
    let body: Record<string, any> = {};
    let parsed = true;
    try {
      body = JSON.parse(raw) as Record<string, any>;
    } catch {
      parsed = false;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : String(v)]));
    const recorded: RecordedLlmRequest = { path: req.url, authorized, body, raw, headers, stream: body.stream === true, at: Date.now() };
    state.requests.push(recorded);
    if (!authorized) return error(401);
    if (protocol === "anthropic" && req.headers["anthropic-version"] !== "2023-06-01") return error(400, "anthropic-version header is required");
    if (!parsed || !isObject(body)) return error(400, "The request body is not valid JSON.");
    const invalid = validate ? (protocol === "anthropic" ? anthropicInvalid(body, issued) : openaiInvalid(body)) : null;
    if (invalid) return error(400, invalid);
    const reply = queue.shift() ?? (await state.reply?.(recorded));
    if (!reply) return error(500, "the fake provider has no scripted reply left");
    if ("hang" in reply) return;
    if ("status" in reply) {
      const extra = { ...(reply.retryAfter !== undefined ? { "retry-after": String(reply.retryAfter) } : {}), ...reply.headers };
      return error(reply.status, reply.message, extra, reply.type);
    }
    if ("malformed" in reply) {
      res.writeHead(200, { "content-type": recorded.stream ? "text/event-stream" : "application/json" });
      return void res.end(recorded.stream ? "data: {not json\n\n" : '{"id": "msg_1", "content": [');
    }
    const model = String(body.model ?? "unknown");
    if ("streamError" in reply) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const start = anthropicMessage(model, { usage: { input: 10, output: 1 } }, issued);
      sse(res, "message_start", { type: "message_start", message: { ...start, stop_reason: null } });
      sse(res, "error", { type: "error", error: reply.streamError });
      return void res.end();
    }
    if ("drop" in reply) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const partial = { usage: { input: 10, output: 5 }, text: reply.text ?? "partial answer that never" };
      if (protocol === "anthropic") {
        sse(res, "message_start", { type: "message_start", message: { ...anthropicMessage(model, partial, issued), content: [], stop_reason: null } });
        sse(res, "content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
        sse(res, "content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: partial.text } });
      } else {
        sse(res, null, { id: "x", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta: { content: partial.text }, finish_reason: null }] });
      }
      // Let the bytes leave before the socket goes.
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.socket?.destroy();
      return;
    }
    const requestId = { [requestIdHeader]: nextId("req") };
    if (recorded.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...requestId });
      if (protocol === "anthropic") anthropicStream(res, model, reply, issued);
      else openaiStream(res, model, reply, body.stream_options?.include_usage === true);
      return;
    }
    res.writeHead(200, { "content-type": "application/json", ...requestId });
    res.end(JSON.stringify(protocol === "anthropic" ? anthropicMessage(model, reply, issued) : openaiCompletion(model, reply)));
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
