/**
 * The person's side of the device flow, for the website's /device page (and tests): look up a user
 * code to show what is asking for access (client, scope, where and when the request came from, so
 * consent phishing can be spotted), then approve or deny it. Signed-in browser session required;
 * decisions need the session's CSRF token. Wrong codes are counted per session and per IP.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import { RyeError } from "@rye/core";
import type { DeviceAuthorization } from "@rye/db";
import { assertCsrf, readWebSession, type WebSessionUser } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import { findClient } from "./clients.ts";
import { MAX_PARAMS_BYTES, readParams } from "./params.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";
import { formatUserCode, normalizeUserCode } from "./user-code.ts";

const badRequest = (message: string) => new RyeError("BAD_REQUEST", message);
const unknownCode = () =>
  new RyeError("NOT_FOUND", "No pending sign-in request has this code", { hint: "Check the code shown by the device; codes expire after 15 minutes and work once." });

export function deviceApprovalRoutes(deps: OAuthDeps, services: OAuthServices): Hono<AppEnv> {
  const { devices, userCodeFailures } = services;

  async function requireSession(c: Context<AppEnv>): Promise<WebSessionUser> {
    const session = await readWebSession(c, deps.db);
    if (!session) throw new RyeError("UNAUTHORIZED", "Sign in on the website to approve a device", { hint: "Open the verification link in a browser where you are signed in." });
    return session;
  }

  /** The pending request of `input` (any spelling); wrong codes count toward the brute-force limits. */
  async function withUserCode<T>(c: Context<AppEnv>, session: WebSessionUser, input: string | undefined, find: (code: string) => Promise<T | null>): Promise<T> {
    const keys = { perSession: `s:${session.sessionId}`, perIp: `ip:${c.get("clientIp")}` } as const;
    const wait = Math.max(await userCodeFailures.perSession.retryAfter(keys.perSession), await userCodeFailures.perIp.retryAfter(keys.perIp));
    if (wait > 0) throw new RyeError("RATE_LIMITED", "Too many wrong codes", { hint: `Wait ${wait} s, then type the code shown by the device again.`, details: { retry_after: wait } });
    const code = input === undefined ? null : normalizeUserCode(input);
    const found = code === null ? null : await find(code);
    if (found === null) {
      await Promise.all([userCodeFailures.perSession.fail(keys.perSession), userCodeFailures.perIp.fail(keys.perIp)]);
      throw unknownCode();
    }
    return found;
  }

  const decide = (decision: "approved" | "denied") => async (c: Context<AppEnv>) => {
    const session = await requireSession(c);
    const params = await readParams(c, badRequest);
    assertCsrf(session, c.req.header("x-csrf-token") ?? params.csrf_token);
    const row = await withUserCode(c, session, params.user_code, (code) => devices.decide(code, session.userId, decision));
    return c.json({ user_code: formatUserCode(row.userCode), status: decision, client_id: row.clientId, scope: row.scope });
  };

  return new Hono<AppEnv>()
    .get("/v1/device", async (c) => {
      const session = await requireSession(c);
      const row = await withUserCode(c, session, c.req.query("user_code"), (code) => devices.findPending(code));
      c.header("Cache-Control", "no-store");
      return c.json(view(row));
    })
    .post("/v1/device/approve", bodyLimit({ maxSize: MAX_PARAMS_BYTES }), decide("approved"))
    .post("/v1/device/deny", bodyLimit({ maxSize: MAX_PARAMS_BYTES }), decide("denied"));
}

function view(row: DeviceAuthorization) {
  return {
    user_code: formatUserCode(row.userCode),
    client_id: row.clientId,
    client_name: findClient(row.clientId)?.name ?? row.clientId,
    scope: row.scope,
    requested_at: row.createdAt.toISOString(),
    request_ip: row.requestIp,
    request_user_agent: row.requestUserAgent,
    expires_at: row.expiresAt.toISOString(),
  };
}
