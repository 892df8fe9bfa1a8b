/**
 * The signed-in visitor on the server side: the session (once per request), the redirect to the
 * sign-in page for signed-in-only pages, and API calls for server actions. Those calls forward the
 * visitor's cookie, address (with the internal secret) and user agent, send the session's CSRF token
 * on changes, relay the API's Set-Cookie (sign-in and sign-out set or clear the session cookie on
 * this same origin), and return the error envelope instead of throwing, so a form can show it.
 */
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { apiBaseUrl, currentSession, type SessionInfo, visitorHeaders } from "./api";
import { fieldErrorsOf } from "./client-api";
import { signInUrl } from "./session-next";

export type { SessionInfo };

/** The signed-in visitor, or null (cached per request by `currentSession`). */
export const getSession = currentSession;

/** The signed-in visitor; others are sent to the sign-in page, which brings them back to `here`. */
export async function requireSession(here: string): Promise<SessionInfo> {
  const session = await getSession();
  if (!session) redirect(signInUrl(here));
  return session;
}

/** An error answer of the API, as a form shows it. */
export interface Problem {
  status: number;
  code: string;
  message: string;
  hint?: string | undefined;
  /** Messages per field, from the envelope's `details`. */
  fields: Record<string, string[]>;
  /** `details.retry_after` of RATE_LIMITED answers, in seconds. */
  retryAfter?: number | undefined;
}

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; problem: Problem };

interface CallOptions {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  body?: unknown;
  /** The session's CSRF token (cookie-authenticated changes need it). */
  csrf?: string | undefined;
  /** Set the API's cookies (the session cookie) on the visitor's browser. */
  relayCookies?: boolean;
}

function problemOf(status: number, data: unknown): Problem {
  const e = (data as { error?: { code?: unknown; message?: unknown; hint?: unknown; details?: unknown } } | undefined)?.error;
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const message = text(e?.message) ?? `The registry answered ${status}`;
  const retry = (e?.details as { retry_after?: unknown } | undefined)?.retry_after;
  return {
    status,
    code: text(e?.code) ?? "UNAVAILABLE",
    message,
    hint: text(e?.hint),
    fields: fieldErrorsOf(e?.details, message),
    retryAfter: typeof retry === "number" ? retry : undefined,
  };
}

type SameSite = "lax" | "strict" | "none";

/** Copies one Set-Cookie header of the API onto the response to the browser. */
async function relayCookie(header: string): Promise<void> {
  const [pair = "", ...attributes] = header.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return;
  const name = pair.slice(0, eq).trim();
  let value = pair.slice(eq + 1).trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    // keep it as sent
  }
  const options: { path?: string; maxAge?: number; expires?: Date; httpOnly?: boolean; secure?: boolean; sameSite?: SameSite } = {};
  for (const attribute of attributes) {
    const [rawKey = "", ...rest] = attribute.split("=");
    const key = rawKey.trim().toLowerCase();
    const v = rest.join("=").trim();
    if (key === "path") options.path = v;
    else if (key === "max-age" && /^-?\d+$/.test(v)) options.maxAge = Number(v);
    else if (key === "expires" && !Number.isNaN(Date.parse(v))) options.expires = new Date(v);
    else if (key === "httponly") options.httpOnly = true;
    else if (key === "secure") options.secure = true;
    else if (key === "samesite" && ["lax", "strict", "none"].includes(v.toLowerCase())) options.sameSite = v.toLowerCase() as SameSite;
  }
  (await cookies()).set(name, value, options);
}

/** Calls the registry API for a server action or page; never throws for an error answer. */
export async function callApi<T>(path: string, options: CallOptions = {}): Promise<ApiResult<T>> {
  const outgoing = await visitorHeaders({ cookie: true, userAgent: true });
  if (options.csrf) outgoing["x-csrf-token"] = options.csrf;
  if (options.body !== undefined) outgoing["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${apiBaseUrl()}${path}`, {
      method: options.method ?? "GET",
      headers: outgoing,
      cache: "no-store",
      redirect: "manual",
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    return { ok: false, problem: { status: 0, code: "UNAVAILABLE", message: "The registry could not be reached", hint: "Try again in a moment.", fields: {} } };
  }
  if (options.relayCookies) for (const header of res.headers.getSetCookie()) await relayCookie(header);
  const text = await res.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    return { ok: false, problem: { status: res.status, code: "UNAVAILABLE", message: `The registry answered ${res.status} with a body that is not JSON`, fields: {} } };
  }
  if (!res.ok) return { ok: false, problem: problemOf(res.status, data) };
  return { ok: true, status: res.status, data: data as T };
}

/** A change made as the signed-in visitor (cookie + the session's CSRF token). */
export async function callAsVisitor<T>(path: string, options: Omit<CallOptions, "csrf" | "relayCookies"> = {}): Promise<ApiResult<T>> {
  const session = await getSession();
  if (!session) {
    return { ok: false, problem: { status: 401, code: "UNAUTHORIZED", message: "You are not signed in (any more)", hint: "Sign in again, then retry.", fields: {} } };
  }
  return callApi<T>(path, { ...options, csrf: session.csrf_token });
}
