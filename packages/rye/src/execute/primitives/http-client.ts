/**
 * The http_client primitive: one HTTP request with per-attempt timeouts, retries with backoff, and a response size
 * cap enforced while streaming. Redirects are not followed (3xx is returned, and counts as success like in the
 * original), so credentials are never forwarded to another host. Errors never contain headers, tokens or the query
 * string of the URL.
 */
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { backoffDelay, isRetryableStatus, parseRetryAfter } from "./http-retry.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD";

export interface HttpClientConfig {
  method?: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Seconds per attempt, default 30. */
  timeout?: number;
  retry?: { max_attempts?: number; backoff?: "exponential" | "linear"; base_delay_ms?: number };
  auth?: { type: "bearer" | "api_key"; token?: string; key?: string; header?: string };
  max_response_bytes?: number;
}

export interface HttpClientResult {
  /** Status 200–399. */
  success: boolean;
  status: number;
  headers: Record<string, string>;
  /** JSON when the content type is JSON, else text. */
  body: unknown;
  durationMs: number;
  attempts: number;
}

export interface HttpClientOptions {
  signal?: AbortSignal;
  /** Waits between attempts; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_HTTP_TIMEOUT_SECONDS = 30;
export const MAX_HTTP_TIMEOUT_SECONDS = 3600;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const configSchema = z.object({
  method: z.enum(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]).default("GET"),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.unknown().optional(),
  timeout: z.number().positive().finite().default(DEFAULT_HTTP_TIMEOUT_SECONDS),
  retry: z
    .object({
      max_attempts: z.number().int().min(1).max(10).default(1),
      backoff: z.enum(["exponential", "linear"]).default("exponential"),
      base_delay_ms: z.number().int().min(0).max(60_000).default(200),
    })
    .default({ max_attempts: 1, backoff: "exponential", base_delay_ms: 200 }),
  auth: z
    .object({
      type: z.enum(["bearer", "api_key"]),
      token: z.string().optional(),
      key: z.string().optional(),
      header: z.string().default("X-API-Key"),
    })
    .optional(),
  max_response_bytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
});
type ParsedConfig = z.infer<typeof configSchema>;

function parseConfig(config: unknown): ParsedConfig {
  const parsed = configSchema.safeParse(config);
  if (!parsed.success) {
    throw new RyeError("BAD_REQUEST", `Invalid http_client config: ${z.prettifyError(parsed.error)}`, { details: parsed.error.issues });
  }
  if (parsed.data.timeout > MAX_HTTP_TIMEOUT_SECONDS) {
    throw new RyeError("INPUT_INVALID", `HTTP timeout ${parsed.data.timeout}s is above the limit of ${MAX_HTTP_TIMEOUT_SECONDS}s`);
  }
  return parsed.data;
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RyeError("INPUT_INVALID", "The http_client url is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RyeError("INPUT_INVALID", `The http_client url must use http: or https:, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new RyeError("INPUT_INVALID", "The http_client url must not contain credentials", { hint: "Use the auth setting (bearer or api_key) instead." });
  }
  return url;
}

/** The URL as it may appear in messages: no query string (it often carries keys), no fragment. */
function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function buildHeaders(config: ParsedConfig): Headers {
  const headers = new Headers();
  const set = (name: string, value: string) => {
    // Checked here so that fetch's own error, which quotes the value, can never surface.
    if (!HEADER_NAME.test(name)) throw new RyeError("INPUT_INVALID", `Invalid HTTP header name ${JSON.stringify(name)}`);
    if (/[\r\n\0]/.test(value)) throw new RyeError("INPUT_INVALID", `The value of header ${name} contains a line break or NUL`);
    headers.set(name, value);
  };
  for (const [name, value] of Object.entries(config.headers ?? {})) set(name, value);
  const auth = config.auth;
  if (auth?.type === "bearer") {
    if (!auth.token) throw new RyeError("BAD_REQUEST", "auth.type bearer needs auth.token");
    set("Authorization", `Bearer ${auth.token}`);
  } else if (auth?.type === "api_key") {
    if (!auth.key) throw new RyeError("BAD_REQUEST", "auth.type api_key needs auth.key");
    set(auth.header, auth.key);
  }
  return headers;
}

/** Strings are sent as they are; anything else as JSON. */
function encodeBody(config: ParsedConfig, headers: Headers): string | undefined {
  const body = config.body;
  if (body === undefined || body === null) return undefined;
  if (config.method === "GET" || config.method === "HEAD") {
    throw new RyeError("BAD_REQUEST", `A ${config.method} request cannot have a body`);
  }
  if (typeof body === "string") return body;
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  try {
    return JSON.stringify(body);
  } catch {
    throw new RyeError("INPUT_INVALID", "The http_client body cannot be encoded as JSON");
  }
}

function responseHeaders(response: Response): Record<string, string> {
  const result: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") result[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) result["set-cookie"] = cookies.join(", ");
  return result;
}

function tooLarge(url: URL, cap: number): RyeError {
  return new RyeError("OUTPUT_TOO_LARGE", `The response from ${describeUrl(url)} is larger than ${cap} bytes`, {
    hint: "Raise max_response_bytes or request less data.",
    details: { limitBytes: cap },
  });
}

async function readCappedBody(response: Response, url: URL, cap: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > cap) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(url, cap);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      throw tooLarge(url, cap);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function decodeBody(bytes: Uint8Array, contentType: string | null): unknown {
  const text = new TextDecoder().decode(bytes);
  if (!contentType || !/[/+]json\b/i.test(contentType)) return text;
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

type Attempt =
  | { kind: "response"; status: number; headers: Record<string, string>; body: unknown; retryAfterMs: number | undefined }
  | { kind: "timeout" }
  | { kind: "network"; code: string };

function networkCode(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === "string" ? cause.code : "network error";
}

async function attemptOnce(config: ParsedConfig, url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<Attempt> {
  const timeoutSignal = AbortSignal.timeout(config.timeout * 1000);
  const combined = signal ? AbortSignal.any([signal, timeoutSignal]) : timeoutSignal;
  try {
    const response = await fetch(url, { ...init, signal: combined, redirect: "manual" });
    const retryable = isRetryableStatus(response.status);
    const bytes = config.method === "HEAD" ? new Uint8Array() : await readCappedBody(response, url, config.max_response_bytes);
    return {
      kind: "response",
      status: response.status,
      headers: responseHeaders(response),
      body: decodeBody(bytes, response.headers.get("content-type")),
      retryAfterMs: retryable ? parseRetryAfter(response.headers.get("retry-after")) : undefined,
    };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof RyeError) throw err;
    if (timeoutSignal.aborted) return { kind: "timeout" };
    return { kind: "network", code: networkCode(err) };
  }
}

function isRetryable(attempt: Attempt): boolean {
  return attempt.kind !== "response" || isRetryableStatus(attempt.status);
}

export async function runHttpClient(config: HttpClientConfig, options: HttpClientOptions = {}): Promise<HttpClientResult> {
  const parsed = parseConfig(config);
  const url = parseUrl(parsed.url);
  const headers = buildHeaders(parsed);
  const body = encodeBody(parsed, headers);
  const init: RequestInit = { method: parsed.method, headers, ...(body === undefined ? {} : { body }) };
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, options.signal ? { signal: options.signal } : {}));
  const started = performance.now();

  const { max_attempts: maxAttempts, backoff, base_delay_ms: baseDelayMs } = parsed.retry;
  for (let attemptNumber = 1; ; attemptNumber++) {
    options.signal?.throwIfAborted();
    const attempt = await attemptOnce(parsed, url, init, options.signal);
    if (attemptNumber < maxAttempts && isRetryable(attempt)) {
      const retryAfter = attempt.kind === "response" ? attempt.retryAfterMs : undefined;
      await sleep(retryAfter ?? backoffDelay(backoff, baseDelayMs, attemptNumber));
      continue;
    }
    const durationMs = Math.round(performance.now() - started);
    const where = describeUrl(url);
    if (attempt.kind === "timeout") {
      throw new RyeError("TIMEOUT", `${parsed.method} ${where} did not answer within ${parsed.timeout}s (attempt ${attemptNumber} of ${maxAttempts})`, {
        details: { timeoutSeconds: parsed.timeout, attempts: attemptNumber, durationMs },
      });
    }
    if (attempt.kind === "network") {
      throw new RyeError("UNAVAILABLE", `${parsed.method} ${where} failed: ${attempt.code} (attempt ${attemptNumber} of ${maxAttempts})`, {
        hint: "Check the URL and that the server is reachable.",
        details: { code: attempt.code, attempts: attemptNumber, durationMs },
      });
    }
    return {
      success: attempt.status >= 200 && attempt.status < 400,
      status: attempt.status,
      headers: attempt.headers,
      body: attempt.body,
      durationMs,
      attempts: attemptNumber,
    };
  }
}
