/**
 * Browser-side calls to the registry API on the same origin (the session cookie travels by itself).
 * State-changing requests carry the session's CSRF token (`X-CSRF-Token`), fetched once from
 * `GET /v1/auth/session` and refreshed once when the API refuses it (the session changed). Failures
 * throw a `ClientApiError` with the envelope's `code`, `message`, `hint` and `details`.
 *
 *   await clientApi("/v1/tokens", { method: "POST", body: { name: "ci", scopes: ["items:read"] } });
 */

export interface ClientApiOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

/** One problem with one field, as the API's `details` lists them for VALIDATION_FAILED. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class ClientApiError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly details: unknown;
  /** HTTP status; 0 when the request did not reach the registry. */
  readonly status: number;

  /** `err` as a ClientApiError: itself, or a status-0 "ERROR" wrapping anything else thrown. */
  static from(err: unknown): ClientApiError {
    return err instanceof ClientApiError ? err : new ClientApiError(0, "ERROR", String(err));
  }

  constructor(status: number, code: string, message: string, hint?: string, details?: unknown) {
    super(message);
    this.name = "ClientApiError";
    this.status = status;
    this.code = code;
    this.hint = hint;
    this.details = details;
  }

  /**
   * The problems per field in `details`: `[{field, message}]` (validation) or `{field}` (a conflict on
   * one field, e.g. a taken username, whose message is the error's own).
   */
  fieldErrors(): Record<string, string[]> {
    return fieldErrorsOf(this.details, this.message);
  }
}

/** `details` of an error envelope as messages per field (see ClientApiError.fieldErrors). */
export function fieldErrorsOf(details: unknown, message: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: unknown, text: unknown) => {
    if (typeof field !== "string" || !field) return;
    (out[field] ??= []).push(typeof text === "string" && text ? text : message);
  };
  if (Array.isArray(details)) for (const d of details) if (d && typeof d === "object") add((d as FieldProblem).field, (d as FieldProblem).message);
  if (details && typeof details === "object" && !Array.isArray(details)) add((details as { field?: unknown }).field, undefined);
  return out;
}

let csrfToken: Promise<string | null> | null = null;

/** Primes the CSRF token when a server component already knows it (saves a request). */
export function setCsrfToken(token: string | null): void {
  csrfToken = Promise.resolve(token);
}

async function fetchCsrfToken(): Promise<string | null> {
  try {
    const res = await fetch("/v1/auth/session", { credentials: "same-origin", headers: { accept: "application/json" }, cache: "no-store" });
    if (!res.ok) return null;
    const body = (await res.json()) as { csrf_token?: unknown };
    return typeof body.csrf_token === "string" ? body.csrf_token : null;
  } catch {
    return null;
  }
}

function csrf(refresh = false): Promise<string | null> {
  if (refresh || csrfToken === null) csrfToken = fetchCsrfToken();
  return csrfToken;
}

async function send(path: string, options: ClientApiOptions, token: string | null): Promise<Response> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (token && method !== "GET") headers["x-csrf-token"] = token;
  try {
    return await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      cache: "no-store",
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ClientApiError(0, "NETWORK", "The registry could not be reached", "Check your connection and try again.");
  }
}

async function errorOf(res: Response): Promise<ClientApiError> {
  let envelope: { error?: { code?: unknown; message?: unknown; hint?: unknown; details?: unknown } } | undefined;
  try {
    envelope = (await res.json()) as typeof envelope;
  } catch {
    envelope = undefined;
  }
  const e = envelope?.error;
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  return new ClientApiError(res.status, text(e?.code) ?? "UNAVAILABLE", text(e?.message) ?? `The registry answered ${res.status}`, text(e?.hint), e?.details);
}

const isCsrfRefusal = (err: ClientApiError) => err.status === 403 && err.code === "FORBIDDEN" && /csrf/i.test(err.message);

/** Calls the registry API; resolves with the parsed JSON body (undefined for 204), throws ClientApiError. */
export async function clientApi<T = unknown>(path: string, options: ClientApiOptions = {}): Promise<T> {
  const changes = (options.method ?? "GET") !== "GET";
  let res = await send(path, options, changes ? await csrf() : null);
  if (!res.ok) {
    let err = await errorOf(res);
    if (!changes || !isCsrfRefusal(err)) throw err;
    // The session was renewed in another tab (or the token was never fetched): fetch it again, once.
    res = await send(path, options, await csrf(true));
    if (!res.ok) {
      err = await errorOf(res);
      throw err;
    }
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  try {
    return (text ? JSON.parse(text) : undefined) as T;
  } catch {
    throw new ClientApiError(res.status, "UNAVAILABLE", `The registry answered ${res.status} with a body that is not JSON`);
  }
}
