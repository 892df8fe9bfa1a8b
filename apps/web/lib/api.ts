/**
 * Server-side calls from the website to the registry API over loopback HTTP. The visitor's session
 * cookie is forwarded when a page needs it; the shared internal secret lets the API rate-limit by the
 * visitor's address rather than the server's.
 */
import { headers } from "next/headers";
import { cache } from "react";
import type { SessionInfo } from "@rye/core";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export function apiBaseUrl(): string {
  return process.env.RYE_INTERNAL_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
}

/** The registry's public URL (what `rye login` / MCP configs should use). */
export async function publicBaseUrl(): Promise<string> {
  if (process.env.RYE_PUBLIC_URL) return process.env.RYE_PUBLIC_URL;
  const h = await headers();
  return `http://${h.get("host") ?? "localhost:3000"}`;
}

/**
 * Headers for a server-side request to the API on a visitor's behalf: JSON, `X-Rye-Purpose: view` (the
 * website shows items; its pulls are page views, not downloads), the visitor's address with the
 * internal secret, and optionally their cookie and user agent.
 */
export async function visitorHeaders(options: { cookie?: boolean; userAgent?: boolean } = {}): Promise<Record<string, string>> {
  const incoming = await headers();
  const outgoing: Record<string, string> = { accept: "application/json", "x-rye-purpose": "view" };
  const forwardedFor = incoming.get("x-forwarded-for");
  if (forwardedFor && process.env.RYE_INTERNAL_SECRET) {
    outgoing["x-forwarded-for"] = forwardedFor;
    outgoing["x-rye-internal"] = process.env.RYE_INTERNAL_SECRET;
  }
  const cookie = options.cookie ? incoming.get("cookie") : null;
  if (cookie) outgoing.cookie = cookie;
  const userAgent = options.userAgent ? incoming.get("user-agent") : null;
  if (userAgent) outgoing["user-agent"] = userAgent;
  return outgoing;
}

interface ApiOptions {
  /** Forward the visitor's cookies (signed-in views). */
  session?: boolean;
  method?: string;
  body?: unknown;
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const outgoing = await visitorHeaders({ cookie: options.session === true });
  if (options.body !== undefined) outgoing["content-type"] = "application/json";
  const res = await fetch(`${apiBaseUrl()}${path}`, {
    method: options.method ?? "GET",
    headers: outgoing,
    cache: "no-store",
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(res.status, "UNAVAILABLE", `The registry answered ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) {
    const error = (data as { error?: { code?: string; message?: string; hint?: string } } | undefined)?.error;
    throw new ApiError(res.status, error?.code ?? "UNAVAILABLE", error?.message ?? `The registry answered ${res.status}`, error?.hint);
  }
  return data as T;
}

/** `api` that maps 404 to null (pages call `notFound()` on it). */
export async function apiOrNull<T>(path: string, options: ApiOptions = {}): Promise<T | null> {
  try {
    return await api<T>(path, options);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** GET /v1/auth/session (@rye/core's contract). */
export type { SessionInfo };

/** The signed-in visitor, or null; one API call per request however many components ask (header, page, forms). */
export const currentSession = cache(async (): Promise<SessionInfo | null> => {
  try {
    return await api<SessionInfo>("/v1/auth/session", { session: true });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
    throw err;
  }
});
