/**
 * The person's side of the device flow, for the website's /device page (and tests): look up a user
 * code to show what is asking for access (client, scope, where and when the request came from, so
 * consent phishing can be spotted), then approve or deny it. Signed-in browser session required;
 * decisions need the session's CSRF token. Wrong codes are counted per session and per IP.
 * The requests are declared for the document only: a validator would answer a missing user_code 400 before the
 * session's 401, and a bad one without counting it toward the limits.
 */
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { DeviceAuthorization } from "@rye/db";
import { assertCsrf, readWebSession, type WebSessionUser } from "../auth/web-sessions.ts";
import { access, errors, json } from "../contract/route.ts";
import type { AppEnv } from "../env.ts";
import { findClient } from "./clients.ts";
import { formRequest, NO_STORE, userCode } from "./contract.ts";
import { MAX_PARAMS_BYTES, readParams } from "./params.ts";
import type { OAuthDeps, OAuthServices } from "./services.ts";
import { formatUserCode, normalizeUserCode } from "./user-code.ts";

// ---------------------------------------------------------------- declarations
const timestamp = z.iso.datetime();
const DeviceQuery = z.object({ user_code: z.string().meta({ description: "The code the device shows (case-insensitive, dash and spaces optional)." }) });
const DeviceRequest = z
  .object({
    user_code: userCode,
    client_id: z.string(),
    client_name: z.string(),
    scope: z.string().meta({ description: "Requested scopes, space-separated." }),
    requested_at: timestamp,
    request_ip: z.string().nullable().meta({ description: "Where the request came from, so consent phishing can be spotted." }),
    request_user_agent: z.string().nullable(),
    expires_at: timestamp,
  })
  .meta({ id: "DeviceRequest", description: "A pending device sign-in request (Cache-Control: no-store)." });
const DeviceDecisionRequest = z
  .object({
    user_code: z.string().meta({ description: "Case-insensitive, dash and spaces optional." }),
    csrf_token: z.string().optional().meta({ description: "The session's CSRF token, when not sent as the X-CSRF-Token header." }),
  })
  .meta({ id: "DeviceDecisionRequest" });
const DeviceDecision = z.object({ user_code: userCode, status: z.enum(["approved", "denied"]), client_id: z.string(), scope: z.string() }).meta({ id: "DeviceDecision" });

const WRONG_CODE: [number, string] = [404, "No pending request has this code (wrong, expired, used or already decided); wrong codes count toward the limits"];
const TOO_MANY: [number, string] = [429, "Too many wrong codes for this session or client IP (Retry-After), or the /v1 rate limit"];

export const deviceRequestRoute = createRoute({
  method: "get",
  path: "/v1/device",
  operationId: "getDeviceRequest",
  summary: "The pending device sign-in request of a user code, for the verification page",
  tags: ["oauth"],
  ...access("session"),
  request: { query: DeviceQuery },
  responses: { 200: json(DeviceRequest, "What asks for access, from where", NO_STORE), ...errors(WRONG_CODE, TOO_MANY) },
});
const deviceDecisionRoute = (verb: "approve" | "deny", operationId: string, summary: string) =>
  createRoute({
    method: "post",
    path: `/v1/device/${verb}`,
    operationId,
    summary,
    tags: ["oauth"],
    ...access("session+csrf"),
    request: { body: formRequest(DeviceDecisionRequest) },
    responses: {
      200: json(DeviceDecision, verb === "approve" ? "Approved: the device's next poll gets tokens" : "Denied: the device's next poll gets access_denied"),
      ...errors([400, "Body neither a form nor a JSON object of strings"], [403, "Missing or wrong CSRF token (X-CSRF-Token header or csrf_token parameter)"], WRONG_CODE, 413, TOO_MANY),
    },
  });
export const approveDeviceRoute = deviceDecisionRoute("approve", "approveDevice", "Approve a device sign-in request");
export const denyDeviceRoute = deviceDecisionRoute("deny", "denyDevice", "Deny a device sign-in request");

// ---------------------------------------------------------------- handlers
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
    .get(deviceRequestRoute.path, async (c) => {
      const session = await requireSession(c);
      const row = await withUserCode(c, session, c.req.query("user_code"), (code) => devices.findPending(code));
      c.header("Cache-Control", "no-store");
      return c.json(view(row));
    })
    .post(approveDeviceRoute.path, bodyLimit({ maxSize: MAX_PARAMS_BYTES }), decide("approved"))
    .post(denyDeviceRoute.path, bodyLimit({ maxSize: MAX_PARAMS_BYTES }), decide("denied"));
}

function view(row: DeviceAuthorization): z.output<typeof DeviceRequest> {
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
