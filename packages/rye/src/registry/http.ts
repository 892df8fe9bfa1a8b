/**
 * Every HTTP request the client makes to a registry goes through `registryFetch`, which treats the
 * registry as untrusted:
 * - bodies are read as streams and cut off at a per-kind size cap (`TOO_LARGE`), counted after
 *   decompression;
 * - three clocks: until the response headers (`connectTimeoutMs`), between body chunks (`idleTimeoutMs`)
 *   and for the whole request including retries and redirects (`deadlineMs`); each ends in `TIMEOUT`;
 * - redirects are followed by hand (at most MAX_REDIRECTS): the bearer token is only ever sent to the
 *   registry's own origin, https never downgrades to http, a non-GET is never turned into a GET or sent
 *   to another origin, and a loop ends with `UNAVAILABLE`;
 * - only idempotent requests (GET/HEAD) are retried, on network errors and 429/502/503/504, within the
 *   deadline;
 * - inside an engine call (search, load, execute), the call's registry budget (budget.ts) bounds every request
 *   too, body included (`TIMEOUT`, phase "budget"), and a registry that just timed out or could not be reached
 *   in such a call is not asked again by such calls for a while (health.ts): their requests fail at once;
 * - answers that are not JSON, or whose JSON does not have the expected shape, are `MALFORMED_RESPONSE`.
 * Limits come from the environment (see `httpLimits`), so they can be raised by a user and made short in tests.
 */
import type { z } from "zod";
import { isErrorCode, RyeError, utf8Decode } from "@rye/core";
import { MAX_BUNDLE_BYTES } from "../bundles/limits.ts";
import { MAX_ITEM_BYTES } from "../engine/read.ts";
import { progressListener, reportProgress } from "../engine/progress.ts";
import type { RegistryBudget } from "./budget.ts";
import { currentRegistryBudget, REGISTRY_DEADLINE_VARIABLE, waitingOn } from "./budget.ts";
import { markHealthy, markUnhealthy, unhealthyError } from "./health.ts";

/* ------------------------------------------------------------------ limits */

/** What an answer is expected to hold; it picks the size cap and the default deadline. */
export type AnswerKind = "document" | "item" | "bundle";

export interface HttpLimits {
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  deadlineMs: number;
  maxBytes: number;
}

/** The registry's default item size limit (its RYE_MAX_ITEM_BYTES, the engine's too); items are served inside JSON. */
export const DEFAULT_MAX_ITEM_BYTES = MAX_ITEM_BYTES;
/** The registry's default bundle size limit (its RYE_MAX_BUNDLE_BYTES). */
export const DEFAULT_MAX_BUNDLE_BYTES = MAX_BUNDLE_BYTES;
/** Key lists, search results, metadata, tokens: small JSON documents. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 20_000;
const DEFAULT_DEADLINE_MS: Record<AnswerKind, number> = { document: 30_000, item: 60_000, bundle: 300_000 };
export const MAX_REDIRECTS = 5;

/** A JSON string can take up to 6 bytes per byte of content (`\u0000`); plus room for the other fields. */
export function itemAnswerCap(maxItemBytes: number): number {
  return maxItemBytes * 6 + 256 * 1024;
}

/** Base64 files (4/3) plus the manifest and attestation. */
export function bundleAnswerCap(maxBundleBytes: number): number {
  return Math.ceil((maxBundleBytes * 4) / 3) + 8 * 1024 * 1024;
}

const SETTINGS = {
  RYE_HTTP_CONNECT_TIMEOUT_MS: "time to wait for a registry's response headers",
  RYE_HTTP_IDLE_TIMEOUT_MS: "longest pause between two chunks of a registry's answer",
  RYE_HTTP_DEADLINE_MS: "total time for one registry request, retries and redirects included",
  RYE_MAX_ITEM_BYTES: "largest item the client accepts from a registry",
  RYE_MAX_BUNDLE_BYTES: "largest bundle the client accepts from a registry",
  RYE_MAX_RESPONSE_BYTES: "largest other registry answer (keys, search, metadata)",
} as const;

function setting(env: NodeJS.ProcessEnv, name: keyof typeof SETTINGS, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RyeError("BAD_REQUEST", `${name}=${JSON.stringify(raw)} is not a positive whole number`, {
      hint: `${name} sets the ${SETTINGS[name]}; use a number like ${fallback}, or unset it for the default.`,
    });
  }
  return value;
}

/** The limits for one kind of answer, from the environment (each variable overrides its default). */
export function httpLimits(kind: AnswerKind, env: NodeJS.ProcessEnv = process.env): HttpLimits {
  const maxBytes =
    kind === "item"
      ? itemAnswerCap(setting(env, "RYE_MAX_ITEM_BYTES", DEFAULT_MAX_ITEM_BYTES))
      : kind === "bundle"
        ? bundleAnswerCap(setting(env, "RYE_MAX_BUNDLE_BYTES", DEFAULT_MAX_BUNDLE_BYTES))
        : setting(env, "RYE_MAX_RESPONSE_BYTES", DEFAULT_MAX_DOCUMENT_BYTES);
  return {
    connectTimeoutMs: setting(env, "RYE_HTTP_CONNECT_TIMEOUT_MS", DEFAULT_CONNECT_TIMEOUT_MS),
    idleTimeoutMs: setting(env, "RYE_HTTP_IDLE_TIMEOUT_MS", DEFAULT_IDLE_TIMEOUT_MS),
    deadlineMs: setting(env, "RYE_HTTP_DEADLINE_MS", DEFAULT_DEADLINE_MS[kind]),
    maxBytes,
  };
}

/* ------------------------------------------------------------------ requests and answers */

export interface RegistryRequest {
  method?: string;
  token?: string | undefined;
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Picks the size cap and default deadline (default "document"). */
  kind?: AnswerKind;
  /** Overrides the limits from the environment (tests, callers with their own budget). */
  limits?: Partial<HttpLimits>;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  /** Retries for idempotent requests: attempts (default 3) and the first backoff (default 250 ms, doubling). */
  retry?: { attempts?: number; baseDelayMs?: number } | undefined;
  /** Bytes of the body read so far, and the announced total. */
  onBytes?: (done: number, total: number | undefined) => void;
  /** Keep the body as bytes (`answer.bytes`, `text` stays ""): archives and other binary answers. */
  binary?: boolean;
}

/** A registry's answer, read completely (within the limits). */
export interface RegistryAnswer {
  /** The URL that answered (after redirects). */
  url: string;
  /** The registry the request was addressed to. */
  registry: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** The body as text ("" when empty, or for a `binary` request). */
  text: string;
  /** The body as received, for a `binary` request. */
  bytes?: Uint8Array;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const IDEMPOTENT = new Set(["GET", "HEAD"]);

export const USER_AGENT = "rye-cli/0.1.0";

class Timeout extends Error {
  constructor(readonly phase: "connect" | "idle" | "deadline" | "budget") {
    super(phase);
  }
}

function budgetError(registry: string, budget: RegistryBudget): RyeError {
  return new RyeError("TIMEOUT", `The registry at ${registry} did not answer within the ${budget.ms} ms a search, load or execute may wait for registries; nothing was written`, {
    hint: `Check your network and the registry URL (--registry / RYE_REGISTRY_URL) and retry; on a slow link raise ${REGISTRY_DEADLINE_VARIABLE} or "deadline_ms" in .ai/config/registries.json (now ${budget.ms} ms, from ${budget.source}).`,
    details: { registry, phase: "budget", limit_ms: budget.ms },
  });
}

function timeoutError(phase: Timeout["phase"], registry: string, limits: HttpLimits, budget?: RegistryBudget): RyeError {
  if (phase === "budget" && budget) return budgetError(registry, budget);
  const what =
    phase === "connect"
      ? `sent no response headers within ${limits.connectTimeoutMs} ms`
      : phase === "idle"
        ? `stopped sending data for ${limits.idleTimeoutMs} ms in the middle of its answer`
        : `did not finish its answer within ${limits.deadlineMs} ms`;
  const variable = phase === "connect" ? "RYE_HTTP_CONNECT_TIMEOUT_MS" : phase === "idle" ? "RYE_HTTP_IDLE_TIMEOUT_MS" : "RYE_HTTP_DEADLINE_MS";
  return new RyeError("TIMEOUT", `The registry at ${registry} ${what}; nothing was written`, {
    hint: `Check your network and the registry URL (--registry / RYE_REGISTRY_URL) and retry; on a slow link raise ${variable}.`,
    details: { registry, phase, limit_ms: phase === "connect" ? limits.connectTimeoutMs : phase === "idle" ? limits.idleTimeoutMs : limits.deadlineMs },
  });
}

function tooLarge(registry: string, limits: HttpLimits, kind: AnswerKind, announced?: number): RyeError {
  const variable = kind === "item" ? "RYE_MAX_ITEM_BYTES" : kind === "bundle" ? "RYE_MAX_BUNDLE_BYTES" : "RYE_MAX_RESPONSE_BYTES";
  return new RyeError("TOO_LARGE", `The registry at ${registry} sent ${announced !== undefined ? `an answer of ${announced} bytes` : "more"} than the ${limits.maxBytes} bytes accepted for this request; nothing was written`, {
    hint: `A registry item is never that large unless the registry or a proxy misbehaves. If the registry really serves larger ${kind === "document" ? "answers" : `${kind}s`}, raise ${variable}.`,
    details: { registry, max_bytes: limits.maxBytes, ...(announced !== undefined ? { announced_bytes: announced } : {}) },
  });
}

function unreachable(registry: string, why: string): RyeError {
  return new RyeError("UNAVAILABLE", `Cannot reach the registry at ${registry}${why ? ` (${why})` : ""}`, {
    hint: "Check the URL (--registry / RYE_REGISTRY_URL) and your network; is the registry running?",
    details: { registry, network_error: why || "unknown" },
  });
}

function redirectRefused(registry: string, why: string, location: string): RyeError {
  return new RyeError("UNAVAILABLE", `The registry at ${registry} redirected to ${location}, which rye does not follow: ${why}`, {
    hint: "Use the registry's final URL (--registry / RYE_REGISTRY_URL), or ask its operators to fix the redirect.",
    details: { registry, location },
  });
}

function cancelled(): RyeError {
  return new RyeError("BAD_REQUEST", "Cancelled");
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface Hop {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The next hop of a redirect, or a refusal; the token stays with the registry's origin. */
function followRedirect(hop: Hop, status: number, location: string | null, origin: string, registry: string): Hop {
  if (!location) throw redirectRefused(registry, `a ${status} without a Location header`, "(nothing)");
  let next: URL;
  try {
    next = new URL(location, hop.url);
  } catch {
    throw redirectRefused(registry, "the Location is not a URL", location);
  }
  if (next.protocol !== "https:" && next.protocol !== "http:") throw redirectRefused(registry, `the ${next.protocol} scheme`, next.href);
  if (new URL(hop.url).protocol === "https:" && next.protocol === "http:") throw redirectRefused(registry, "it leaves https for plain http", next.href);
  const sameOrigin = next.origin === origin;
  const headers = { ...hop.headers };
  if (!sameOrigin) delete headers.authorization;
  if (IDEMPOTENT.has(hop.method)) return { url: next.href, method: hop.method, headers, body: undefined };
  // A request with a body (push, token exchange) keeps its method and body, and never leaves the registry.
  if (status !== 307 && status !== 308) throw redirectRefused(registry, `a ${status} would turn the ${hop.method} into a GET`, next.href);
  if (!sameOrigin) throw redirectRefused(registry, `a ${hop.method} is never sent to another origin`, next.href);
  return { ...hop, url: next.href, headers };
}

/** Reads a body chunk by chunk within the cap; the caller's controller enforces the idle and deadline clocks. */
async function readBounded(res: Response, limits: HttpLimits, onChunk: () => void, onBytes: RegistryRequest["onBytes"], tooBig: (announced?: number) => RyeError): Promise<Uint8Array> {
  const announcedRaw = res.headers.get("content-length");
  const announced = announcedRaw !== null && /^\d+$/.test(announcedRaw) ? Number(announcedRaw) : undefined;
  if (announced !== undefined && announced > limits.maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooBig(announced);
  }
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      onChunk();
      size += value.byteLength;
      if (size > limits.maxBytes) throw tooBig();
      chunks.push(value);
      onBytes?.(size, announced);
    }
  } catch (err) {
    await reader.cancel().catch(() => undefined);
    throw err;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Downloads of items and bundles also report to the running call's progress listener (engine/progress.ts). */
function withAmbientProgress(onBytes: RegistryRequest["onBytes"], kind: AnswerKind, url: string): RegistryRequest["onBytes"] {
  if (kind === "document" || !progressListener()) return onBytes;
  const key = `download ${url}`;
  const message = `Downloading ${kind === "bundle" ? "a bundle" : "an item"} from ${new URL(url).host}`;
  return (done, total) => {
    onBytes?.(done, total);
    reportProgress({ key, done, total, message });
  };
}

/** One attempt: the request, its redirects and the body, under the three clocks. */
async function attempt(first: Hop, registry: string, kind: AnswerKind, limits: HttpLimits, remainingMs: number, endPhase: "deadline" | "budget", budget: RegistryBudget | undefined, request: RegistryRequest): Promise<RegistryAnswer> {
  const controller = new AbortController();
  let timedOut: Timeout | undefined;
  const expire = (phase: Timeout["phase"]) => {
    timedOut ??= new Timeout(phase);
    controller.abort(timedOut);
  };
  const deadline = setTimeout(() => expire(endPhase), remainingMs);
  let clock: NodeJS.Timeout | undefined;
  const arm = (phase: "connect" | "idle", ms: number) => {
    clearTimeout(clock);
    clock = setTimeout(() => expire(phase), ms);
  };
  const onCallerAbort = () => controller.abort(cancelled());
  request.signal?.addEventListener("abort", onCallerAbort, { once: true });
  const origin = new URL(registry).origin;
  const seen = new Set<string>();
  let hop = first;
  try {
    for (let redirects = 0; ; redirects++) {
      seen.add(`${hop.method} ${hop.url}`);
      arm("connect", limits.connectTimeoutMs);
      const res = await fetch(hop.url, { method: hop.method, headers: hop.headers, ...(hop.body !== undefined ? { body: hop.body } : {}), redirect: "manual", signal: controller.signal });
      if (REDIRECT_STATUS.has(res.status)) {
        await res.body?.cancel().catch(() => undefined);
        const next = followRedirect(hop, res.status, res.headers.get("location"), origin, registry);
        if (seen.has(`${next.method} ${next.url}`)) throw redirectRefused(registry, "it is a redirect loop", next.url);
        if (redirects + 1 > MAX_REDIRECTS) throw redirectRefused(registry, `more than ${MAX_REDIRECTS} redirects`, next.url);
        hop = next;
        continue;
      }
      arm("idle", limits.idleTimeoutMs);
      const bytes = await readBounded(res, limits, () => arm("idle", limits.idleTimeoutMs), withAmbientProgress(request.onBytes, kind, hop.url), (announced) => tooLarge(registry, limits, kind, announced));
      if (request.binary) return { url: hop.url, registry, status: res.status, ok: res.ok, headers: res.headers, text: "", bytes };
      let text: string;
      try {
        text = utf8Decode(bytes);
      } catch {
        throw malformed(registry, hop.url, `the ${res.status} answer is not UTF-8 text`);
      }
      return { url: hop.url, registry, status: res.status, ok: res.ok, headers: res.headers, text };
    }
  } catch (err) {
    if (err instanceof RyeError) throw err;
    if (timedOut) throw timeoutError(timedOut.phase, registry, limits, budget);
    if (request.signal?.aborted) throw cancelled();
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw unreachable(registry, cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : ""));
  } finally {
    clearTimeout(deadline);
    clearTimeout(clock);
    request.signal?.removeEventListener("abort", onCallerAbort);
  }
}

/** A budget timeout after waiting this long (or a timeout of the request's own clocks) marks the registry unhealthy. */
const UNHEALTHY_AFTER_MS = 1000;

/**
 * Sends a request to a registry and reads its whole answer within the limits (see the module comment).
 * Non-2xx answers are returned, not thrown: use `readJson` for the registry's error envelope.
 */
export async function registryFetch(baseUrl: string, path: string, request: RegistryRequest = {}): Promise<RegistryAnswer> {
  const budget = await currentRegistryBudget();
  // Explicit registry commands (pull, push, login…) keep their per-request clocks and always ask.
  if (!budget) return fetchWithin(baseUrl, path, request, undefined);
  const sick = unhealthyError(baseUrl);
  if (sick) throw sick;
  if (budget.endsAt <= Date.now()) throw budgetError(baseUrl, budget);
  const started = Date.now();
  try {
    const answer = await waitingOn(baseUrl, budget, () => fetchWithin(baseUrl, path, request, budget));
    markHealthy(baseUrl);
    return answer;
  } catch (err) {
    if (err instanceof RyeError && unreachableOrSlow(err, Date.now() - started)) markUnhealthy(baseUrl, err);
    throw err;
  }
}

/** The registry did not answer: a network failure, or a clock ran out (a budget only after a real wait). */
function unreachableOrSlow(err: RyeError, waitedMs: number): boolean {
  const details = err.details as { phase?: string; network_error?: string; limit_ms?: number } | undefined;
  if (err.code === "UNAVAILABLE") return details?.network_error !== undefined;
  if (err.code !== "TIMEOUT") return false;
  return details?.phase !== "budget" || waitedMs >= Math.min(UNHEALTHY_AFTER_MS, (details.limit_ms ?? 0) / 2);
}

async function fetchWithin(baseUrl: string, path: string, request: RegistryRequest, budget: RegistryBudget | undefined): Promise<RegistryAnswer> {
  const env = request.env ?? process.env;
  const kind = request.kind ?? "document";
  const limits = { ...httpLimits(kind, env), ...request.limits };
  const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT, ...request.headers };
  let body: string | undefined;
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(request.json);
  } else if (request.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(request.form).toString();
  }
  const method = (request.method ?? (body !== undefined ? "POST" : "GET")).toUpperCase();
  const hop: Hop = { url: `${baseUrl}${path}`, method, headers, body };
  const retryable = IDEMPOTENT.has(method);
  const attempts = retryable ? Math.max(1, request.retry?.attempts ?? 3) : 1;
  const baseDelay = request.retry?.baseDelayMs ?? 250;
  const ownEnd = Date.now() + limits.deadlineMs;
  // Whichever ends first: the request's own deadline or the call's budget.
  const endPhase = budget && budget.endsAt < ownEnd ? "budget" : "deadline";
  const ends = endPhase === "budget" ? budget!.endsAt : ownEnd;
  // Out of time for another attempt after a network error (refused, DNS): that error says more than "out of time".
  let failure: RyeError | undefined;
  const expired = () => failure ?? timeoutError(endPhase, baseUrl, limits, budget);
  for (let n = 1; ; n++) {
    const remaining = ends - Date.now();
    if (remaining <= 0) throw expired();
    let answer: RegistryAnswer | undefined;
    try {
      answer = await attempt(hop, baseUrl, kind, limits, remaining, endPhase, budget, request);
    } catch (err) {
      const phase = (err as { details?: { phase?: string } }).details?.phase;
      const transient = err instanceof RyeError && (err.code === "UNAVAILABLE" || (err.code === "TIMEOUT" && phase !== "deadline" && phase !== "budget")) && !(err.details as { location?: string } | undefined)?.location;
      if (!transient || n >= attempts) throw err;
      if ((err as RyeError).code === "UNAVAILABLE") failure = err as RyeError;
    }
    if (answer && (!RETRYABLE_STATUS.has(answer.status) || n >= attempts)) return answer;
    const retryAfter = Number(answer?.headers.get("retry-after"));
    const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 10_000) : baseDelay * 2 ** (n - 1);
    const left = ends - Date.now();
    if (delay >= left) {
      if (answer) return answer;
      throw expired();
    }
    await sleep(delay, request.signal);
  }
}

/* ------------------------------------------------------------------ reading answers */

/** Control characters (terminal escapes) are removed from text a registry sends for display. */
export function displayText(value: string, max = 500): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export function malformed(registry: string, url: string, what: string, details?: unknown): RyeError {
  return new RyeError("MALFORMED_RESPONSE", `The registry at ${registry} sent an unusable answer to ${url}: ${what}; nothing was written`, {
    ...(details !== undefined ? { details } : {}),
  });
}

/** The answer's JSON; `MALFORMED_RESPONSE` when it is not JSON. An empty body is `{}`. */
export function answerJson(answer: RegistryAnswer): unknown {
  if (answer.text.trim() === "") return {};
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    const type = answer.headers.get("content-type") ?? "no content type";
    throw malformed(answer.registry, answer.url, `the ${answer.status} answer is not JSON (${displayText(type, 100)}; a captive portal or a proxy in the way?)`);
  }
}

/**
 * An OAuth token endpoint's JSON, 2xx or not (RFC 6749 errors are `{error, error_description}`, not the
 * rye envelope); `{}` when it is not JSON. Strings meant for display are stripped of control characters.
 */
export function oauthAnswer(answer: RegistryAnswer): Record<string, unknown> {
  let body: unknown;
  try {
    body = answerJson(answer);
  } catch {
    return {};
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return {};
  const out = { ...(body as Record<string, unknown>) };
  for (const field of ["error", "error_description"]) if (typeof out[field] === "string") out[field] = displayText(out[field] as string, 300);
  return out;
}

/** The error a non-2xx answer stands for: the registry's code, message and hint when it sent the envelope. */
export function answerError(answer: RegistryAnswer): RyeError {
  let body: unknown;
  try {
    body = answerJson(answer);
  } catch {
    body = undefined;
  }
  const err = (body as { error?: unknown } | undefined)?.error;
  const server = answer.status >= 500;
  if (err && typeof err === "object") {
    const e = err as { code?: unknown; message?: unknown; hint?: unknown; details?: unknown };
    const message = typeof e.message === "string" ? displayText(e.message) : `HTTP ${answer.status}`;
    const hint = typeof e.hint === "string" ? displayText(e.hint) : undefined;
    // A registry's own failure is not a bug in this client: it is unavailable.
    const code = server && (e.code === "INTERNAL" || !isErrorCode(e.code)) ? "UNAVAILABLE" : isErrorCode(e.code) ? e.code : "BAD_REQUEST";
    return new RyeError(code, server ? `The registry at ${answer.registry} failed: ${message}` : message, {
      ...(hint && !server ? { hint } : {}),
      details: e.details,
    });
  }
  const code =
    answer.status === 401 ? "UNAUTHORIZED" : answer.status === 403 ? "FORBIDDEN" : answer.status === 404 ? "NOT_FOUND" : answer.status === 429 ? "RATE_LIMITED" : server ? "UNAVAILABLE" : "BAD_REQUEST";
  return new RyeError(code, `The registry at ${answer.registry} answered ${answer.status} for ${answer.url}${typeof err === "string" ? `: ${displayText(err, 200)}` : ""}`);
}

/**
 * The JSON of a 2xx answer (a non-2xx becomes the registry's error); with a schema, its shape is checked
 * and a mismatch is `MALFORMED_RESPONSE` naming each wrong field.
 */
export function readJson<T>(answer: RegistryAnswer, schema?: z.ZodType<T>): T {
  if (!answer.ok) throw answerError(answer);
  const body = answerJson(answer);
  if (!schema) return body as T;
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 10).map((i) => ({ field: i.path.join(".") || "(body)", message: i.message }));
  throw malformed(answer.registry, answer.url, issues.map((i) => `${i.field}: ${i.message}`).join("; "), issues);
}
