/** A client for route tests: the real app, with browser sessions (cookie + CSRF) or bearer tokens. */
import assert from "node:assert/strict";
import { createApp } from "../src/app.ts";
import type { AppDeps } from "../src/services/deps.ts";
import type { TestUser } from "./harness.ts";

// biome-ignore lint: tests read arbitrary JSON
export type Json = Record<string, any>;
export interface Session {
  cookie: string;
  csrf: string;
  id: string;
}
export interface CallOptions {
  json?: unknown;
  body?: string;
  session?: Session;
  /** Defaults to the session's token; null sends none. */
  csrf?: string | null;
  token?: string;
  headers?: Record<string, string>;
}

export function testClient(deps: AppDeps) {
  const app = createApp(deps);
  async function call(method: string, path: string, o: CallOptions = {}) {
    const headers: Record<string, string> = { ...o.headers };
    if (o.session) headers.cookie = o.session.cookie;
    const csrf = o.csrf === undefined ? o.session?.csrf : o.csrf;
    if (csrf != null) headers["x-csrf-token"] = csrf;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.json !== undefined) headers["content-type"] ??= "application/json";
    const body = o.json !== undefined ? JSON.stringify(o.json) : o.body;
    const res = await app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json, res };
  }
  function sessionOf(res: Response, body: Json): Session {
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("rye_session="));
    assert.ok(cookie, "a session cookie is set");
    return { cookie: cookie.split(";")[0]!, csrf: body.csrf_token, id: body.user.id };
  }
  async function signUp(username: string, password = `${username}-long-password`): Promise<Session & TestUser> {
    const r = await call("POST", "/v1/auth/signup", { json: { username, email: `${username}@example.test`, password } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return { ...sessionOf(r.res, r.body), username };
  }
  return { call, sessionOf, signUp };
}
