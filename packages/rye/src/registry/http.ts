/** HTTP to a registry: timeouts, the shared error envelope mapped to RyeError, network failures explained. */
import { isErrorCode, RyeError } from "@rye/core";

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RegistryRequest {
  method?: string;
  token?: string | undefined;
  json?: unknown;
  form?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export async function registryFetch(baseUrl: string, path: string, request: RegistryRequest = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "rye-cli/0.1.0" };
  let body: string | undefined;
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(request.json);
  } else if (request.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(request.form).toString();
  }
  const signals = [AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS), ...(request.signal ? [request.signal] : [])];
  try {
    return await fetch(`${baseUrl}${path}`, { method: request.method ?? (body ? "POST" : "GET"), headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.any(signals) });
  } catch (err) {
    if (request.signal?.aborted) throw new RyeError("BAD_REQUEST", "Cancelled");
    const timeout = (err as Error).name === "TimeoutError";
    throw new RyeError(timeout ? "TIMEOUT" : "UNAVAILABLE", timeout ? `The registry at ${baseUrl} did not answer in time` : `Cannot reach the registry at ${baseUrl}`, {
      hint: "Check the URL (--registry / RYE_REGISTRY_URL) and your network; is the registry running?",
    });
  }
}

/** Reads a JSON body; a non-2xx answer becomes a RyeError with the registry's code, message and hint. */
export async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw new RyeError("UNAVAILABLE", `The registry answered ${res.status} with a non-JSON body`);
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string; hint?: string; details?: unknown } | string; error_description?: string }).error;
    if (err && typeof err === "object") {
      throw new RyeError(isErrorCode(err.code) ? err.code : "BAD_REQUEST", err.message ?? `HTTP ${res.status}`, { ...(err.hint ? { hint: err.hint } : {}), details: err.details });
    }
    throw new RyeError(res.status === 401 ? "UNAUTHORIZED" : res.status === 403 ? "FORBIDDEN" : res.status === 404 ? "NOT_FOUND" : res.status === 429 ? "RATE_LIMITED" : "BAD_REQUEST", `HTTP ${res.status}${typeof err === "string" ? `: ${err}` : ""}`);
  }
  return body as T;
}
