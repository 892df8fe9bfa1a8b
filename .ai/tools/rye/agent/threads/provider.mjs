// rye:signed:2026-11-29T13:41:57Z:df823653cd685e93761fd0c648ea720691abe877406bb53b8e34161e2ea54fb4:LcgpubLOjooyOXmA-R_OvWuatVu1yb5D_w0fyFCHXil9VIpUWleNoXysxFaufIWODr3qCzS6g7R3h9KVw4dICg==:334f126a02990a0c
// @ts-check
/**
 * The LLM provider adapter: one provider YAML (`.ai/tools/rye/agent/providers/*.yaml`, parsed) becomes an object
 * the thread loop calls. The YAML is data — URL, auth, body template, tool-definition template, tiers, pricing,
 * streaming — and names one of the two wire dialects implemented here:
 *
 * - `anthropic_messages`: the Anthropic Messages API (system as a top-level field, content blocks, tool results
 *   grouped into one user message, SSE events `message_start … message_stop`);
 * - `openai_chat`: OpenAI Chat Completions and every server that copies it (system as the first message,
 *   `tool_calls` with JSON-string arguments, `role: "tool"` results, SSE chunks ending in `data: [DONE]`).
 *
 * Templating (docs/agent-runtime.md §5): `env_config.env` declares the environment variables the provider reads, with
 * defaults (`NAME: "${NAME:-default}"`, resolved in order, as the executor does); `${VAR}` then expands from that
 * environment in the URL, the headers and the auth settings only. The body template and the tool-definition template take `{name}`
 * placeholders (a string that is exactly one placeholder takes the value with its type; an unknown one is left
 * out). Messages and tool results are values, never templates: nothing inside them is ever expanded.
 *
 * Runtime file: imports only node: builtins (the module loader imports the exact bytes it verified); the SSE
 * parser (sse.mjs) and `fetch` arrive as parameters.
 */
import { randomUUID } from "node:crypto";

export const __version__ = "1.0.0";
export const __tool_type__ = "library";
export const __executor_id__ = null;
export const __category__ = "rye/agent/threads";
export const __tool_description__ =
  "Agent runtime: LLM provider adapter (Anthropic Messages and OpenAI Chat Completions wire dialects, JSON and streamed) driven by a provider YAML";

/**
 * @typedef {{ id: string, name: string, input: Record<string, unknown> }} ToolCall
 * @typedef {{ role: "user", content: string }
 *   | { role: "assistant", content: string, tool_calls?: ToolCall[], reasoning?: Record<string, unknown>[] }
 *   | { role: "tool", tool_call_id: string, content: string, is_error?: boolean }} Message
 * @typedef {{ name: string, description?: string, schema?: Record<string, unknown> }} ToolSpec
 * @typedef {{ input: number, output: number, cache_read?: number, cache_write?: number }} Usage
 * @typedef {{ type: "text", text: string } | { type: "tool_call", id: string, name: string, partial_json: string }} Delta
 * @typedef {"end" | "tools" | "max_tokens" | "other"} StopReason
 * @typedef {{ model: string, system?: string, messages: Message[], tools?: ToolSpec[], maxTokens?: number,
 *   signal?: AbortSignal, onDelta?: (delta: Delta) => void }} CompleteRequest
 * @typedef {{ text: string, toolCalls: ToolCall[], stopReason: StopReason, rawStopReason: string | null, usage: Usage,
 *   spend: number, model: string, priced: boolean, reasoning?: Record<string, unknown>[] }} Completion
 * @typedef {typeof import("./sse.mjs")} SseModule
 * @typedef {{ env: Record<string, string | undefined>, fetch?: typeof globalThis.fetch, sse?: SseModule, now?: () => number }} Deps
 * @typedef {{ input: number, output: number, cache_read?: number, cache_write?: number }} Rates
 * @typedef {Rates & { long_context?: Rates & { above_input_tokens: number } }} Price
 */

export const DIALECTS = /** @type {const} */ (["anthropic_messages", "openai_chat"]);
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_TOOL_INPUT_BYTES = 1024 * 1024;
export const DEFAULT_TIMEOUT_SECONDS = 120;
export const DEFAULT_MAX_TOKENS = 4096;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_MESSAGE_CHARS = 1000;

/* ------------------------------------------------------------------ errors */

/**
 * A failed LLM call. `status` is the HTTP status when there was one; `type` the provider's error type, or for
 * failures without one: `network_error`, `TimeoutError`, `stream_interrupted`, `malformed_response`,
 * `response_too_large`, `cancelled`, `missing_api_key`, `provider_config`, `redirect_refused`. `category` is a hint
 * in the error classification's words (rate_limited | transient | permanent | cancelled). Never holds an API key.
 */
export class ProviderError extends Error {
  /**
   * @param {{ type: string, message: string, status?: number, code?: string, retryAfterMs?: number,
   *   headers?: Record<string, string>, category?: string, provider?: string }} fields
   */
  constructor(fields) {
    super(fields.message);
    this.name = "ProviderError";
    this.type = fields.type;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.code !== undefined) this.code = fields.code;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
    if (fields.headers !== undefined) this.headers = fields.headers;
    if (fields.category !== undefined) this.category = fields.category;
    if (fields.provider !== undefined) this.provider = fields.provider;
    this.cancelled = fields.type === "cancelled";
  }

  /** The shape the runtime's error classification reads (`status_code`, `error.type`, …). */
  toErrorContext() {
    return {
      status_code: this.status ?? null,
      headers: this.headers ?? {},
      error: { type: this.type, message: this.message, code: this.code ?? null },
      cancelled: this.cancelled,
      category: this.category ?? null,
    };
  }
}

/** @param {string} message */
const configError = (message) => new ProviderError({ type: "provider_config", message, category: "permanent" });
/** @param {string} provider @param {string} message */
const malformed = (provider, message) => new ProviderError({ type: "malformed_response", message: `${provider}: ${message}`, category: "permanent", provider });

/* ------------------------------------------------------------------ small helpers */

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** @param {unknown} v */
const count = (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/** @param {string} text @param {number} max */
const clip = (text, max = MAX_MESSAGE_CHARS) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** @param {number} usd */
const roundUsd = (usd) => Number(usd.toFixed(10));

/* ------------------------------------------------------------------ templating */

const ENV_REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` (an unset or empty VAR gives the default) and `$$` → `$`. Every value
 * taken from the environment is added to `taken`, so that it can be redacted from errors.
 * @param {string} text @param {Record<string, string | undefined>} env @param {string[]} [taken]
 */
export function expandEnv(text, env, taken) {
  return text.replace(ENV_REFERENCE, (match, name, fallback) => {
    if (match === "$$") return "$";
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value !== undefined && value !== "") {
      taken?.push(value);
      return value;
    }
    return fallback ?? "";
  });
}

const LONE_PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Renders a YAML template with `{name}` placeholders. A string that is exactly `{name}` takes the value with its
 * type, or is left out when there is none; inside text, a value is written as text (objects as JSON) and an
 * unknown placeholder stays as written. Substituted values are never scanned again.
 * @param {unknown} template @param {Record<string, unknown>} vars @returns {unknown}
 */
export function renderTemplate(template, vars) {
  if (typeof template === "string") {
    const lone = LONE_PLACEHOLDER.exec(template);
    if (lone) return Object.hasOwn(vars, lone[1] ?? "") ? vars[lone[1] ?? ""] : undefined;
    return template.replace(PLACEHOLDER, (match, name) => {
      const value = Object.hasOwn(vars, name) ? vars[name] : undefined;
      if (value === undefined) return match;
      return typeof value === "string" ? value : JSON.stringify(value);
    });
  }
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, vars)).filter((item) => item !== undefined);
  if (isObject(template)) {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [key, value] of Object.entries(template)) {
      const rendered = renderTemplate(value, vars);
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return template;
}

/** @param {string} text @param {string[]} secrets */
function redact(text, secrets) {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[REDACTED]");
  return out;
}

/**
 * Removes the call's secrets (the values taken from the environment into auth and headers) from every text field
 * of an error: a server may echo a key back in its error message, a header or a stream event.
 * @param {ProviderError} err @param {string[]} secrets
 */
function scrub(err, secrets) {
  err.message = redact(err.message, secrets);
  if (err.stack) err.stack = redact(err.stack, secrets);
  err.type = redact(err.type, secrets);
  if (typeof err.code === "string") err.code = redact(err.code, secrets);
  if (err.headers) err.headers = Object.fromEntries(Object.entries(err.headers).map(([k, v]) => [k, redact(v, secrets)]));
  return err;
}

/* ------------------------------------------------------------------ settings from the YAML */

/**
 * @typedef {{ id: string, dialect: (typeof DIALECTS)[number], tiers: Record<string, string>, pricing: Record<string, Price>,
 *   envConfig: Record<string, string>, method: string, url: string, auth: Record<string, any> | null, headers: Record<string, unknown>,
 *   body: Record<string, unknown>,
 *   timeoutMs: number, maxResponseBytes: number, maxToolInputBytes: number, maxTokens: number,
 *   stream: { enabled: boolean, body: Record<string, unknown> }, toolDefinition: unknown, errorPrefix: string }} Settings
 */

/** @param {unknown} value @param {string} where @returns {Rates} */
function readRates(value, where) {
  if (!isObject(value) || typeof value.input !== "number" || typeof value.output !== "number") {
    throw configError(`${where} needs numeric input and output prices (USD per million tokens)`);
  }
  /** @type {Rates} */
  const rates = { input: value.input, output: value.output };
  for (const key of /** @type {const} */ (["cache_read", "cache_write"])) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== "number") throw configError(`${where}.${key} must be a number`);
    rates[key] = value[key];
  }
  if (Object.values(rates).some((n) => n < 0 || !Number.isFinite(n))) throw configError(`${where}: prices cannot be negative`);
  return rates;
}

/** @param {unknown} value @param {string} id @returns {Record<string, Price>} */
function readPricing(value, id) {
  if (value === undefined) return {};
  if (!isObject(value)) throw configError(`${id}: pricing must map model ids to prices`);
  /** @type {Record<string, Price>} */
  const out = {};
  for (const [model, entry] of Object.entries(value)) {
    /** @type {Price} */
    const price = readRates(entry, `${id}: pricing.${model}`);
    const long = isObject(entry) ? entry.long_context : undefined;
    if (long !== undefined) {
      const rates = readRates(long, `${id}: pricing.${model}.long_context`);
      if (!isObject(long) || typeof long.above_input_tokens !== "number") throw configError(`${id}: pricing.${model}.long_context needs above_input_tokens`);
      price.long_context = { ...rates, above_input_tokens: long.above_input_tokens };
    }
    out[model] = price;
  }
  return out;
}

/** @param {unknown} value @param {string} id @returns {Record<string, string>} */
function readTiers(value, id) {
  if (value === undefined) return {};
  if (!isObject(value)) throw configError(`${id}: tier_mapping must map tiers to model ids`);
  /** @type {Record<string, string>} */
  const out = {};
  for (const [tier, model] of Object.entries(value)) {
    if (typeof model !== "string" || model === "") throw configError(`${id}: tier_mapping.${tier} must be a model id`);
    out[tier] = model;
  }
  return out;
}

/** @param {unknown} value @param {number} fallback @param {string} where */
function positive(value, fallback, where) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0)) throw configError(`${where} must be a positive number`);
  return value;
}

/**
 * The wire mapping the original's `tool_use.response` / `tool_use.tool_result` keys describe. The dialects here fix
 * it, so a YAML may state these keys (compatibility) but a value that differs is refused rather than ignored.
 */
const FIXED_MAPPING = {
  anthropic_messages: {
    response: {
      stop_reason_field: "stop_reason", stop_reason_tool_use: "tool_use", content_field: "content", text_block_type: "text", text_field: "text",
      tool_use_block_type: "tool_use", tool_use_id_field: "id", tool_use_name_field: "name", tool_use_input_field: "input",
    },
    tool_result: { role: "user", block_type: "tool_result", id_field: "tool_use_id", content_field: "content", error_field: "is_error" },
  },
  openai_chat: {
    response: { stop_reason_field: "finish_reason", stop_reason_tool_use: "tool_calls", content_field: "content", tool_calls_field: "tool_calls", arguments_format: "json_string" },
    tool_result: { role: "tool", id_field: "tool_call_id", content_field: "content" },
  },
};

/** @param {Record<string, any>} toolUse @param {(typeof DIALECTS)[number]} dialect @param {string} id */
function checkFixedMapping(toolUse, dialect, id) {
  for (const section of /** @type {const} */ (["response", "tool_result"])) {
    const declared = toolUse[section];
    if (declared === undefined) continue;
    if (!isObject(declared)) throw configError(`${id}: tool_use.${section} must be a mapping`);
    /** @type {Record<string, string>} */
    const fixed = FIXED_MAPPING[dialect][section];
    for (const [key, value] of Object.entries(declared)) {
      if (section === "tool_result" && key === "error_prefix" && dialect === "openai_chat") continue;
      if (fixed[key] === undefined) throw configError(`${id}: tool_use.${section}.${key} is not a setting of the ${dialect} dialect`);
      if (value !== fixed[key]) throw configError(`${id}: tool_use.${section}.${key} is ${JSON.stringify(fixed[key])} in the ${dialect} dialect, not ${JSON.stringify(value)}`);
    }
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** @param {unknown} value @param {string} id @returns {Record<string, string>} */
function readEnvConfig(value, id) {
  if (value === undefined) return {};
  const env = isObject(value) ? value.env ?? {} : undefined;
  if (!isObject(env)) throw configError(`${id}: env_config.env must map variable names to values`);
  /** @type {Record<string, string>} */
  const out = {};
  for (const [name, template] of Object.entries(env)) {
    if (!ENV_NAME.test(name) || !["string", "number", "boolean"].includes(typeof template)) {
      throw configError(`${id}: env_config.env.${name} must be a variable name with a text value`);
    }
    out[name] = String(template);
  }
  return out;
}

/**
 * The environment a call sees: the caller's, plus the `env_config.env` entries, each expanded against everything
 * before it. Read at call time, so a key set later is seen.
 * @param {Record<string, string>} envConfig @param {Record<string, string | undefined>} env
 */
function resolveEnv(envConfig, env) {
  /** @type {Record<string, string | undefined>} */
  const out = { ...env };
  for (const [name, template] of Object.entries(envConfig)) out[name] = expandEnv(template, out);
  return out;
}

/** @param {Record<string, any>} config @returns {Settings} */
function readSettings(config) {
  if (!isObject(config)) throw configError("A provider must be a YAML mapping");
  const id = config.tool_id;
  if (typeof id !== "string" || id === "") throw configError("A provider needs a tool_id");
  // The original's only provider file had no dialect key and spoke the Anthropic Messages API.
  const dialect = /** @type {(typeof DIALECTS)[number]} */ (config.dialect ?? "anthropic_messages");
  if (!DIALECTS.includes(dialect)) throw configError(`${id}: dialect must be one of ${DIALECTS.join(", ")}, not ${JSON.stringify(dialect)}`);
  const http = config.config;
  if (!isObject(http) || typeof http.url !== "string") throw configError(`${id}: config.url is required`);
  const method = String(http.method ?? "POST").toUpperCase();
  if (method !== "POST") throw configError(`${id}: config.method must be POST`);
  if (http.auth !== undefined && (!isObject(http.auth) || !["api_key", "bearer"].includes(http.auth.type))) {
    throw configError(`${id}: config.auth.type must be api_key or bearer`);
  }
  if (http.headers !== undefined && !isObject(http.headers)) throw configError(`${id}: config.headers must be a mapping`);
  if (!isObject(http.body)) throw configError(`${id}: config.body must be a mapping (the request body template)`);
  const stream = config.stream ?? {};
  if (!isObject(stream)) throw configError(`${id}: stream must be a mapping`);
  if (stream.format !== undefined && stream.format !== "sse") throw configError(`${id}: stream.format must be sse`);
  if (stream.body !== undefined && !isObject(stream.body)) throw configError(`${id}: stream.body must be a mapping`);
  const toolUse = isObject(config.tool_use) ? config.tool_use : {};
  checkFixedMapping(toolUse, dialect, id);
  const toolResult = isObject(toolUse.tool_result) ? toolUse.tool_result : {};
  return {
    id,
    dialect,
    tiers: readTiers(config.tier_mapping, id),
    pricing: readPricing(config.pricing, id),
    envConfig: readEnvConfig(config.env_config, id),
    method,
    url: http.url,
    auth: http.auth ?? null,
    headers: http.headers ?? {},
    body: http.body,
    timeoutMs: positive(http.timeout, DEFAULT_TIMEOUT_SECONDS, `${id}: config.timeout`) * 1000,
    maxResponseBytes: positive(http.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES, `${id}: config.max_response_bytes`),
    maxToolInputBytes: positive(toolUse.max_input_bytes, DEFAULT_MAX_TOOL_INPUT_BYTES, `${id}: tool_use.max_input_bytes`),
    maxTokens: positive(config.max_tokens, DEFAULT_MAX_TOKENS, `${id}: max_tokens`),
    stream: { enabled: stream.enabled === true, body: stream.body ?? { stream: true } },
    toolDefinition: toolUse.tool_definition ?? DEFAULT_TOOL_DEFINITION[dialect],
    errorPrefix: typeof toolResult.error_prefix === "string" ? toolResult.error_prefix : "Error: ",
  };
}

const DEFAULT_TOOL_DEFINITION = {
  anthropic_messages: { name: "{name}", description: "{description}", input_schema: "{schema}" },
  openai_chat: { type: "function", function: { name: "{name}", description: "{description}", parameters: "{schema}" } },
};

/* ------------------------------------------------------------------ spend */

/**
 * USD for a call: tokens × price per million. Cache tokens use their own prices (the input price when a model has
 * none); above `long_context.above_input_tokens` prompt tokens, the long-context prices apply to the whole call.
 * @param {Price} price @param {Usage} usage
 */
export function computeSpend(price, usage) {
  const cacheRead = count(usage.cache_read);
  const cacheWrite = count(usage.cache_write);
  const prompt = count(usage.input) + cacheRead + cacheWrite;
  const long = price.long_context;
  /** @type {Rates} */
  const rates = long && prompt > long.above_input_tokens ? { ...price, ...long } : price;
  const micro =
    count(usage.input) * rates.input +
    count(usage.output) * rates.output +
    cacheRead * (rates.cache_read ?? rates.input) +
    cacheWrite * (rates.cache_write ?? rates.input);
  return roundUsd(micro / 1e6);
}

/* ------------------------------------------------------------------ the two dialects: requests */

/**
 * Anthropic: assistant turns become `text` + `tool_use` blocks (after any thinking blocks the model returned, which
 * must go back verbatim); consecutive tool results, and user text after them, become ONE user message.
 * @param {Message[]} messages
 */
function anthropicMessages(messages) {
  /** @type {{ role: string, content: any[] }[]} */
  const out = [];
  /** @param {string} role @param {any[]} blocks */
  const push = (role, blocks) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  };
  /** @param {string} text */
  const textBlocks = (text) => (text.trim() === "" ? [] : [{ type: "text", text }]);
  for (const m of messages) {
    if (m.role === "user") push("user", textBlocks(m.content));
    else if (m.role === "assistant") {
      const reasoning = Array.isArray(m.reasoning) ? m.reasoning : [];
      const calls = (m.tool_calls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input ?? {} }));
      push("assistant", [...reasoning, ...textBlocks(m.content), ...calls]);
    } else if (m.role === "tool") {
      /** @type {Record<string, unknown>} */
      const block = { type: "tool_result", tool_use_id: m.tool_call_id };
      if (m.content !== "") block.content = m.content;
      if (m.is_error) block.is_error = true;
      push("user", [block]);
    } else throw configError(`Unknown message role ${JSON.stringify(/** @type {any} */ (m).role)}`);
  }
  // A message with one text block goes as a plain string, as people write them.
  return out.map((m) => (m.content.length === 1 && m.content[0].type === "text" ? { role: m.role, content: m.content[0].text } : m));
}

/**
 * OpenAI: the system prompt is the first message; tool calls carry their input as a JSON string; each result is a
 * `role: "tool"` message (an error is marked by a prefix: the wire format has no flag for it).
 * @param {Message[]} messages @param {string | undefined} system @param {string} errorPrefix
 */
function openaiMessages(messages, system, errorPrefix) {
  /** @type {Record<string, unknown>[]} */
  const out = system ? [{ role: "system", content: system }] : [];
  for (const m of messages) {
    if (m.role === "user") out.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      const calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } }));
      if (calls.length === 0 && m.content === "") continue;
      out.push({ role: "assistant", content: m.content === "" ? null : m.content, ...(calls.length ? { tool_calls: calls } : {}) });
    } else if (m.role === "tool") {
      out.push({ role: "tool", tool_call_id: m.tool_call_id, content: m.is_error ? `${errorPrefix}${m.content}` : m.content });
    } else throw configError(`Unknown message role ${JSON.stringify(/** @type {any} */ (m).role)}`);
  }
  return out;
}

/* ------------------------------------------------------------------ the two dialects: replies */

/**
 * What a reply is assembled into, from one JSON body or from stream events.
 * @typedef {{ text: string, calls: { id: string, name: string, json: string, input?: Record<string, unknown> }[],
 *   reasoning: Record<string, any>[], stop: string | null, usage: Record<string, unknown>, model: string | null, done: boolean }} Assembly
 */

/** @returns {Assembly} */
const newAssembly = () => ({ text: "", calls: [], reasoning: [], stop: null, usage: {}, model: null, done: false });

const ANTHROPIC_STOP = /** @type {Record<string, StopReason>} */ ({
  end_turn: "end", stop_sequence: "end", tool_use: "tools", max_tokens: "max_tokens", model_context_window_exceeded: "max_tokens",
});
const OPENAI_STOP = /** @type {Record<string, StopReason>} */ ({ stop: "end", tool_calls: "tools", function_call: "tools", length: "max_tokens" });

/** @param {Record<string, unknown>} u @returns {Usage} */
function anthropicUsage(u) {
  /** @type {Usage} */
  const usage = { input: count(u.input_tokens), output: count(u.output_tokens) };
  if (typeof u.cache_read_input_tokens === "number") usage.cache_read = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === "number") usage.cache_write = u.cache_creation_input_tokens;
  return usage;
}

/** OpenAI counts cached tokens inside prompt_tokens; here `input` is the uncached part. @param {Record<string, any>} u @returns {Usage} */
function openaiUsage(u) {
  const cached = isObject(u.prompt_tokens_details) ? count(u.prompt_tokens_details.cached_tokens) : 0;
  /** @type {Usage} */
  const usage = { input: Math.max(0, count(u.prompt_tokens) - cached), output: count(u.completion_tokens) };
  if (cached > 0) usage.cache_read = cached;
  return usage;
}

/** @param {string} provider @param {unknown} body @param {Assembly} a */
function anthropicFromJson(provider, body, a) {
  if (!isObject(body) || !Array.isArray(body.content)) throw malformed(provider, "the reply has no content array");
  for (const block of body.content) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") a.text += block.text;
    else if (block.type === "tool_use") {
      a.calls.push({ id: String(block.id ?? ""), name: String(block.name ?? ""), json: "", input: isObject(block.input) ? block.input : {} });
    } else if (block.type === "thinking" || block.type === "redacted_thinking") a.reasoning.push(block);
  }
  a.stop = typeof body.stop_reason === "string" ? body.stop_reason : null;
  a.usage = isObject(body.usage) ? body.usage : {};
  a.model = typeof body.model === "string" ? body.model : null;
  a.done = true;
}

/** @param {string} provider @param {unknown} body @param {Assembly} a */
function openaiFromJson(provider, body, a) {
  const choice = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(body) || !isObject(choice) || !isObject(choice.message)) throw malformed(provider, "the reply has no choices[0].message");
  const message = choice.message;
  if (typeof message.content === "string") a.text = message.content;
  // Some compatible servers answer with content parts.
  else if (Array.isArray(message.content)) a.text = message.content.map((part) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("");
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isObject(call) || !isObject(call.function)) continue;
    const args = call.function.arguments;
    a.calls.push({
      id: String(call.id ?? ""),
      name: String(call.function.name ?? ""),
      // Some compatible servers send the arguments as an object rather than a JSON string.
      json: typeof args === "string" ? args : "",
      ...(isObject(args) ? { input: args } : {}),
    });
  }
  a.stop = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  a.usage = isObject(body.usage) ? body.usage : {};
  a.model = typeof body.model === "string" ? body.model : null;
  a.done = true;
}

/**
 * @typedef {{ provider: string, onDelta: ((delta: Delta) => void) | undefined, maxToolInputBytes: number,
 *   blocks: Map<number, Record<string, any>> }} StreamContext
 */

/** @param {StreamContext} ctx @param {{ json: string }} call @param {string} piece */
function appendToolJson(ctx, call, piece) {
  if (call.json.length + piece.length > ctx.maxToolInputBytes) {
    throw new ProviderError({ type: "response_too_large", message: `${ctx.provider}: a tool call's input is larger than ${ctx.maxToolInputBytes} bytes`, category: "permanent", provider: ctx.provider });
  }
  call.json += piece;
}

/**
 * One Anthropic stream event. Content blocks are kept by index; thinking blocks are rebuilt whole (their
 * signature must go back unchanged); unknown events and block types are ignored, as Anthropic asks.
 * @param {StreamContext} ctx @param {Record<string, any>} event @param {Assembly} a
 */
function anthropicEvent(ctx, event, a) {
  switch (event.type) {
    case "message_start": {
      const message = isObject(event.message) ? event.message : {};
      a.model = typeof message.model === "string" ? message.model : null;
      a.usage = isObject(message.usage) ? { ...message.usage } : {};
      return;
    }
    case "content_block_start": {
      const block = isObject(event.content_block) ? { ...event.content_block } : {};
      ctx.blocks.set(Number(event.index), block);
      if (block.type === "tool_use") {
        const call = { id: String(block.id ?? ""), name: String(block.name ?? ""), json: "" };
        block.call = call;
        a.calls.push(call);
        ctx.onDelta?.({ type: "tool_call", id: call.id, name: call.name, partial_json: "" });
      } else if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
        a.text += block.text;
        ctx.onDelta?.({ type: "text", text: block.text });
      } else if (block.type === "thinking" || block.type === "redacted_thinking") a.reasoning.push(block);
      return;
    }
    case "content_block_delta": {
      const block = ctx.blocks.get(Number(event.index));
      const delta = isObject(event.delta) ? event.delta : {};
      if (!block) throw malformed(ctx.provider, `content_block_delta for unknown block ${event.index}`);
      if (delta.type === "text_delta" && typeof delta.text === "string") {
        a.text += delta.text;
        ctx.onDelta?.({ type: "text", text: delta.text });
      } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && block.call) {
        appendToolJson(ctx, block.call, delta.partial_json);
        ctx.onDelta?.({ type: "tool_call", id: block.call.id, name: block.call.name, partial_json: delta.partial_json });
      } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
        block.thinking = String(block.thinking ?? "") + delta.thinking;
      } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
        block.signature = String(block.signature ?? "") + delta.signature;
      }
      return;
    }
    case "message_delta": {
      if (isObject(event.delta) && typeof event.delta.stop_reason === "string") a.stop = event.delta.stop_reason;
      // Usage here is cumulative: the latest figures replace the earlier ones.
      if (isObject(event.usage)) Object.assign(a.usage, event.usage);
      return;
    }
    case "message_stop":
      a.done = true;
      return;
    case "error": {
      const error = isObject(event.error) ? event.error : {};
      throw streamedError(ctx.provider, String(error.type ?? "api_error"), String(error.message ?? "error event in the stream"));
    }
    default:
      return; // ping, content_block_stop, and event types added later
  }
}

/** @param {StreamContext} ctx @param {Record<string, any>} chunk @param {Assembly} a */
function openaiChunk(ctx, chunk, a) {
  if (isObject(chunk.error)) {
    throw streamedError(ctx.provider, String(chunk.error.type ?? chunk.error.code ?? "api_error"), String(chunk.error.message ?? "error in the stream"));
  }
  if (typeof chunk.model === "string" && a.model === null) a.model = chunk.model;
  if (isObject(chunk.usage)) a.usage = chunk.usage;
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!isObject(choice)) return; // the usage chunk has no choices (some servers send null)
  const delta = isObject(choice.delta) ? choice.delta : {};
  if (typeof delta.content === "string" && delta.content !== "") {
    a.text += delta.content;
    ctx.onDelta?.({ type: "text", text: delta.content });
  }
  for (const piece of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
    if (!isObject(piece)) continue;
    const index = typeof piece.index === "number" ? piece.index : a.calls.length;
    const fn = isObject(piece.function) ? piece.function : {};
    let call = a.calls[index];
    if (!call) {
      call = { id: "", name: "", json: "" };
      a.calls[index] = call;
    }
    if (typeof piece.id === "string" && piece.id !== "") call.id = piece.id;
    if (typeof fn.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name;
    const args = typeof fn.arguments === "string" ? fn.arguments : isObject(fn.arguments) ? JSON.stringify(fn.arguments) : "";
    if (args !== "") appendToolJson(ctx, call, args);
    ctx.onDelta?.({ type: "tool_call", id: call.id, name: call.name, partial_json: args });
  }
  if (typeof choice.finish_reason === "string") a.stop = choice.finish_reason;
}

/** @param {string} provider @param {string} type @param {string} message */
function streamedError(provider, type, message) {
  const category = type === "rate_limit_error" ? "rate_limited" : /overloaded|api_error|server_error/.test(type) ? "transient" : "permanent";
  return new ProviderError({ type, message: `${provider}: ${clip(message)}`, category, provider });
}

/**
 * The loop-facing result of an assembled reply: tool input parsed (a call cut off by max_tokens is dropped, any
 * other unparsable input is a malformed reply), stop reason mapped, usage normalised.
 * @param {Settings} settings @param {Assembly} a
 */
function finishAssembly(settings, a) {
  const openai = settings.dialect === "openai_chat";
  const raw = a.stop;
  let stopReason = (raw && (openai ? OPENAI_STOP : ANTHROPIC_STOP)[raw]) || (raw === null ? "end" : "other");
  /** @type {ToolCall[]} */
  const toolCalls = [];
  for (const call of a.calls.filter(Boolean)) {
    const input = call.input ?? parseToolInput(settings, call, stopReason);
    if (input === undefined) continue;
    if (JSON.stringify(input).length > settings.maxToolInputBytes) {
      throw new ProviderError({ type: "response_too_large", message: `${settings.id}: a tool call's input is larger than ${settings.maxToolInputBytes} bytes`, category: "permanent", provider: settings.id });
    }
    toolCalls.push({ id: call.id || `call_${randomUUID()}`, name: call.name, input });
  }
  // Some OpenAI-compatible servers finish a tool-calling reply with "stop".
  if (openai && stopReason === "end" && toolCalls.length > 0) stopReason = "tools";
  return {
    text: a.text,
    toolCalls,
    stopReason,
    rawStopReason: raw,
    usage: openai ? openaiUsage(a.usage) : anthropicUsage(a.usage),
    model: a.model,
    reasoning: a.reasoning.map(({ call, ...block }) => block),
  };
}

/**
 * @param {Settings} settings @param {{ name: string, json: string }} call @param {StopReason} stopReason
 * @returns {Record<string, unknown> | undefined}
 */
function parseToolInput(settings, call, stopReason) {
  if (call.json.trim() === "") return {};
  try {
    const value = JSON.parse(call.json);
    if (isObject(value)) return value;
  } catch {
    if (stopReason === "max_tokens") return undefined;
  }
  throw malformed(settings.id, `the input of tool call ${JSON.stringify(call.name)} is not a JSON object`);
}

/* ------------------------------------------------------------------ HTTP */

/**
 * URL, headers and the secrets to keep out of errors, from the YAML and the environment (read now, at call time).
 * @param {Settings} settings @param {Record<string, string | undefined>} env
 */
function buildHttp(settings, env) {
  /** @type {string[]} */
  const secrets = [];
  const rawUrl = expandEnv(settings.url, env).replace(/([^:/])\/{2,}/g, "$1/");
  let url;
  try {
    url = new URL(rawUrl);
  } catch {
    throw configError(`${settings.id}: config.url does not expand to an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw configError(`${settings.id}: config.url must be http or https`);
  if (url.username || url.password) throw configError(`${settings.id}: config.url must not carry credentials; use config.auth`);
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/json" };
  for (const [name, template] of Object.entries(settings.headers)) {
    const value = expandEnv(String(template), env, secrets);
    if (value !== "") setHeader(settings.id, headers, name, value);
  }
  const auth = settings.auth;
  if (auth) {
    const key = expandEnv(String((auth.type === "bearer" ? auth.token : auth.key) ?? ""), env, secrets);
    if (key !== "") {
      if (auth.type === "bearer") setHeader(settings.id, headers, "authorization", `Bearer ${key}`);
      else setHeader(settings.id, headers, String(auth.header ?? "x-api-key"), key);
    }
  }
  return { url, headers, secrets };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Checked here so that fetch's own error, which quotes the value (perhaps a key), never surfaces. */
function setHeader(/** @type {string} */ provider, /** @type {Record<string, string>} */ headers, /** @type {string} */ name, /** @type {string} */ value) {
  if (!HEADER_NAME.test(name)) throw configError(`${provider}: ${JSON.stringify(name)} is not a valid header name`);
  if (!HEADER_VALUE.test(value)) throw configError(`${provider}: the value of header ${name} has characters a header cannot carry`);
  headers[name.toLowerCase()] = value;
}

/** @param {URL} url */
const describeUrl = (url) => `${url.origin}${url.pathname}`;

/** @param {Headers} headers */
function headerObject(headers) {
  /** @type {Record<string, string>} */
  const out = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  return out;
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. @param {Record<string, string>} headers @param {() => number} now */
function retryAfterMs(headers, now) {
  const ms = Number(headers["retry-after-ms"]);
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = headers["retry-after"];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (raw.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

/** @param {number} status */
function statusCategory(status) {
  if (status === 429) return "rate_limited";
  if (status === 408 || status === 409 || status >= 500) return "transient";
  return "permanent";
}

/**
 * One exchange with the provider: the request, its deadline (the whole exchange for a JSON reply; for a stream,
 * the wait for each piece) and the caller's signal, and every way it can fail mapped to a ProviderError.
 */
class Exchange {
  /**
   * @param {Settings} settings @param {Required<Pick<Deps, "fetch" | "now">>} deps
   * @param {{ url: URL, headers: Record<string, string>, secrets: string[] }} http @param {AbortSignal | undefined} callerSignal
   */
  constructor(settings, deps, http, callerSignal) {
    this.settings = settings;
    this.deps = deps;
    this.http = http;
    this.callerSignal = callerSignal;
    this.timeout = new AbortController();
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.timeout.signal]) : this.timeout.signal;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
  }

  armDeadline() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.timeout.abort(), this.settings.timeoutMs);
  }

  close() {
    clearTimeout(this.timer);
  }

  /** @param {string} type @param {string} message @param {Record<string, any>} [extra] */
  error(type, message, extra = {}) {
    return new ProviderError({ ...extra, type, message, provider: this.settings.id });
  }

  /** Maps a thrown fetch or read failure. @param {unknown} err @param {"connect" | "read" | "stream"} phase */
  failure(err, phase) {
    if (err instanceof ProviderError) return err;
    const id = this.settings.id;
    if (this.callerSignal?.aborted) return this.error("cancelled", `${id}: the request was cancelled`, { category: "cancelled" });
    if (this.timeout.signal.aborted) {
      const what = phase === "stream" ? "waiting for the next part of the stream" : "waiting for the reply";
      return this.error("TimeoutError", `${id}: timed out after ${this.settings.timeoutMs / 1000} s ${what}`, { category: "transient" });
    }
    const cause = describeCause(err);
    if (phase === "stream") return this.error("stream_interrupted", `${id}: the stream broke off before its end (${cause})`, { category: "transient" });
    const where = phase === "connect" ? `calling ${describeUrl(this.http.url)}` : "while reading the reply";
    return this.error("network_error", `${id}: network error ${where}: ${cause}`, { category: "transient" });
  }

  /** @param {unknown} body */
  async send(body) {
    this.armDeadline();
    try {
      return await this.deps.fetch(this.http.url, {
        method: this.settings.method,
        headers: this.http.headers,
        body: JSON.stringify(body),
        signal: this.signal,
        // A redirect would carry the key header to wherever it points.
        redirect: "manual",
      });
    } catch (err) {
      throw this.failure(err, "connect");
    }
  }

  /**
   * Reads a body piece by piece, at most `cap` bytes in all, until it ends or `onPiece` returns true.
   * @param {Response} response @param {number} cap @param {"read" | "stream"} phase @param {(piece: Uint8Array) => boolean | void} onPiece
   */
  async read(response, cap, phase, onPiece) {
    const reader = response.body?.getReader();
    if (!reader) return;
    let total = 0;
    let finished = false;
    try {
      for (;;) {
        /** @type {ReadableStreamReadResult<Uint8Array>} */
        let next;
        try {
          next = await reader.read();
        } catch (err) {
          throw this.failure(err, phase);
        }
        if (next.done) {
          finished = true;
          return;
        }
        total += next.value.byteLength;
        if (total > cap) {
          throw this.error("response_too_large", `${this.settings.id}: the reply is larger than ${cap} bytes`, { category: "permanent" });
        }
        if (phase === "stream") this.armDeadline();
        if (onPiece(next.value) === true) return;
      }
    } finally {
      if (!finished) reader.cancel().catch(() => undefined);
    }
  }

  /** @param {Response} response @param {number} cap */
  async readText(response, cap) {
    const decoder = new TextDecoder();
    let text = "";
    await this.read(response, cap, "read", (piece) => {
      text += decoder.decode(piece, { stream: true });
    });
    return text + decoder.decode();
  }

  /** The provider's error reply as a ProviderError. @param {Response} response */
  async httpError(response) {
    const status = response.status;
    const headers = headerObject(response.headers);
    let text = "";
    try {
      text = await this.readText(response, MAX_ERROR_BODY_BYTES);
    } catch {
      // The status says enough.
    }
    /** @type {any} */
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    // Anthropic {type: "error", error: {type, message}}; OpenAI {error: {message, type, code}}; Ollama {error: "…"}.
    const detail = isObject(body) && isObject(body.error) ? body.error : {};
    const type = typeof detail.type === "string" && detail.type !== "" ? detail.type : `http_${status}`;
    const said =
      typeof detail.message === "string" ? detail.message : isObject(body) && typeof body.error === "string" ? body.error : text.trim() || response.statusText;
    const retryAfter = retryAfterMs(headers, this.deps.now);
    return this.error(type, `${this.settings.id}: HTTP ${status} ${type}: ${clip(said)}`, {
      status,
      headers,
      category: statusCategory(status),
      ...(typeof detail.code === "string" ? { code: detail.code } : {}),
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    });
  }
}

/** @param {unknown} err */
function describeCause(err) {
  const e = /** @type {any} */ (err);
  const cause = e?.cause ?? e;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const text = clip(String(cause?.message ?? e?.message ?? err), 300);
  const plain = { ECONNREFUSED: "connection refused", ECONNRESET: "connection reset", ENOTFOUND: "host not found", ETIMEDOUT: "connection timed out" };
  const note = code && code in plain ? ` (${plain[/** @type {keyof typeof plain} */ (code)]})` : "";
  return `${text}${note}`;
}

/* ------------------------------------------------------------------ the provider */

/**
 * @typedef {{ id: string, dialect: string, tiers: Record<string, string>, keyVariable: string | null,
 *   models(): string[], resolveModel(tierOrId: string): string | undefined, apiKeyPresent(): boolean,
 *   isPriced(model: string): boolean, spendFor(model: string, usage: Usage): number,
 *   complete(request: CompleteRequest): Promise<Completion> }} Provider
 */

/**
 * @param {Record<string, any>} config the parsed provider YAML
 * @param {Deps} deps
 * @returns {Provider}
 */
export function createProvider(config, deps) {
  const settings = readSettings(config);
  const env = deps.env;
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const now = deps.now ?? Date.now;
  const sse = deps.sse;
  if (settings.stream.enabled && !sse) throw configError(`${settings.id}: streaming is enabled but no SSE parser was given (deps.sse)`);
  const authTemplate = settings.auth ? String((settings.auth.type === "bearer" ? settings.auth.token : settings.auth.key) ?? "") : "";
  const keyVariable = /\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(authTemplate)?.[1] ?? null;

  const apiKeyPresent = () =>
    !settings.auth || settings.auth.optional === true || expandEnv(authTemplate, resolveEnv(settings.envConfig, env)) !== "";
  const models = () => [...new Set([...Object.values(settings.tiers), ...Object.keys(settings.pricing)])];
  /** @param {string} model */
  const priceOf = (model) => (Object.hasOwn(settings.pricing, model) ? settings.pricing[model] : undefined);

  /** @param {CompleteRequest} request */
  function requestBody(request) {
    const tools = (request.tools ?? []).map((t) =>
      renderTemplate(settings.toolDefinition, { name: t.name, description: t.description ?? "", schema: t.schema ?? { type: "object", properties: {} } }),
    );
    const openai = settings.dialect === "openai_chat";
    const vars = {
      model: request.model,
      max_tokens: request.maxTokens ?? settings.maxTokens,
      messages: openai ? openaiMessages(request.messages, request.system, settings.errorPrefix) : anthropicMessages(request.messages),
      system_prompt: !openai && request.system ? request.system : undefined,
      tools: tools.length > 0 ? tools : undefined,
    };
    const body = /** @type {Record<string, unknown>} */ (renderTemplate(settings.body, vars));
    return settings.stream.enabled ? { ...body, ...settings.stream.body } : body;
  }

  /** @param {Exchange} exchange @param {Response} response @param {CompleteRequest} request @param {Assembly} a */
  async function readStream(exchange, response, request, a) {
    const parser = /** @type {SseModule} */ (sse).createSseParser({ maxEventBytes: settings.maxToolInputBytes + 64 * 1024 });
    /** @type {StreamContext} */
    const ctx = { provider: settings.id, onDelta: request.onDelta, maxToolInputBytes: settings.maxToolInputBytes, blocks: new Map() };
    const decoder = new TextDecoder();
    /** @param {import("./sse.mjs").SseEvent} event */
    const handle = (event) => {
      if (a.done) return;
      if (settings.dialect === "openai_chat" && event.data.trim() === "[DONE]") {
        a.done = true;
        return;
      }
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        throw malformed(settings.id, `a stream event is not JSON: ${clip(event.data, 200)}`);
      }
      if (!isObject(data)) throw malformed(settings.id, "a stream event is not a JSON object");
      if (settings.dialect === "openai_chat") openaiChunk(ctx, data, a);
      else anthropicEvent(ctx, data.type === undefined ? { ...data, type: event.event } : data, a);
    };
    /** @param {string} text */
    const feed = (text) => {
      try {
        for (const event of parser.feed(text)) handle(event);
      } catch (err) {
        if (/** @type {any} */ (err)?.name === "SseError") throw exchange.error("response_too_large", `${settings.id}: ${/** @type {Error} */ (err).message}`, { category: "permanent" });
        throw err;
      }
    };
    // Reading stops at the terminal event, even if the server keeps the connection open.
    await exchange.read(response, settings.maxResponseBytes, "stream", (piece) => {
      feed(decoder.decode(piece, { stream: true }));
      return a.done;
    });
    feed(decoder.decode());
    for (const event of parser.end().events) handle(event);
    if (!a.done) {
      const end = settings.dialect === "openai_chat" ? "data: [DONE]" : "message_stop";
      throw exchange.error("stream_interrupted", `${settings.id}: the stream ended before ${end}`, { category: "transient" });
    }
  }

  /** @param {Exchange} exchange @param {Response} response @param {Assembly} a */
  async function readJson(exchange, response, a) {
    const text = await exchange.readText(response, settings.maxResponseBytes);
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      throw exchange.error("malformed_response", `${settings.id}: the reply is not valid JSON (${clip(text, 200)})`, { category: "permanent" });
    }
    if (settings.dialect === "openai_chat") openaiFromJson(settings.id, body, a);
    else anthropicFromJson(settings.id, body, a);
  }

  /** @param {string} model @param {Usage} usage */
  function spendFor(model, usage) {
    const price = priceOf(model);
    return price ? computeSpend(price, usage) : 0;
  }

  /** @param {CompleteRequest} request @returns {Promise<Completion>} */
  async function complete(request) {
    if (typeof request.model !== "string" || request.model === "") throw configError(`${settings.id}: complete() needs a model id`);
    if (!apiKeyPresent()) {
      throw new ProviderError({ type: "missing_api_key", message: `${settings.id}: the API key variable ${keyVariable ?? "(see the provider's config.auth)"} is not set`, category: "permanent", provider: settings.id });
    }
    const http = buildHttp(settings, resolveEnv(settings.envConfig, env));
    const exchange = new Exchange(settings, { fetch: fetchImpl, now }, http, request.signal);
    const a = newAssembly();
    /** @type {ReturnType<typeof finishAssembly>} */
    let reply;
    try {
      if (request.signal?.aborted) throw exchange.failure(request.signal.reason, "connect");
      const response = await exchange.send(requestBody(request));
      if (response.status >= 300 && response.status < 400) {
        response.body?.cancel().catch(() => undefined);
        throw exchange.error("redirect_refused", `${settings.id}: HTTP ${response.status} redirect refused (the request carries an API key)`, { status: response.status, category: "permanent" });
      }
      if (!response.ok) throw await exchange.httpError(response);
      const eventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
      if (settings.stream.enabled && eventStream) await readStream(exchange, response, request, a);
      else await readJson(exchange, response, a);
      reply = finishAssembly(settings, a);
    } catch (err) {
      // Errors of the caller's own (an onDelta that throws) pass through unchanged.
      throw err instanceof ProviderError ? scrub(err, http.secrets) : err;
    } finally {
      exchange.close();
    }
    let pricedModel = request.model;
    if (!priceOf(pricedModel) && reply.model && priceOf(reply.model)) pricedModel = reply.model;
    const priced = priceOf(pricedModel) !== undefined;
    /** @type {Completion} */
    const result = {
      text: reply.text,
      toolCalls: reply.toolCalls,
      stopReason: reply.stopReason,
      rawStopReason: reply.rawStopReason,
      usage: reply.usage,
      spend: spendFor(pricedModel, reply.usage),
      model: reply.model ?? request.model,
      priced,
    };
    if (reply.reasoning.length > 0) result.reasoning = reply.reasoning;
    return result;
  }

  return {
    id: settings.id,
    dialect: settings.dialect,
    tiers: { ...settings.tiers },
    keyVariable,
    models,
    resolveModel: (tierOrId) => (Object.hasOwn(settings.tiers, tierOrId) ? settings.tiers[tierOrId] : models().includes(tierOrId) ? tierOrId : undefined),
    apiKeyPresent,
    isPriced: (model) => priceOf(model) !== undefined,
    spendFor,
    complete,
  };
}
