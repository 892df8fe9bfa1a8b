/**
 * Minimal server-rendered `/login` and `/device` pages, so `rye login` works against a registry
 * started with `npm start` before the website exists (the website replaces them on the same paths).
 * No scripts; forms post back with the session's CSRF token; values are escaped.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { RyeError } from "@rye/core";
import { safeNextPath } from "../auth/upstream/next-path.ts";
import { assertCsrf, createWebSession, readWebSession } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import { limitBody } from "../middleware/body-limit.ts";
import { findClient } from "../oauth/clients.ts";
import { escapeHtml, htmlPage } from "../oauth/pages.ts";
import type { OAuthServices } from "../oauth/services.ts";
import { formatUserCode, normalizeUserCode } from "../oauth/user-code.ts";
import type { LoginThrottle } from "../services/accounts.ts";
import { signIn } from "../services/accounts.ts";
import type { AppDeps } from "../services/deps.ts";

const FORM_LIMIT = limitBody(8 * 1024, "Form bodies");

async function formFields(c: Context<AppEnv>): Promise<Record<string, string>> {
  const form = await c.req.parseBody();
  return Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Cross-site form posts are refused when the browser tells us where they come from. */
function assertSameOrigin(c: Context<AppEnv>, publicUrl: string): void {
  const origin = c.req.header("origin");
  if (origin && origin !== "null" && origin !== new URL(publicUrl).origin) throw new RyeError("FORBIDDEN", "Cross-site form post refused");
}

function loginForm(deps: AppDeps, next: string, message?: string): string {
  const providers = deps.config.upstream.providers
    .map((p) => `<p><a href="/v1/auth/oidc/${encodeURIComponent(p.id)}/start?next=${encodeURIComponent(next)}">Sign in with ${escapeHtml(p.name)}</a></p>`)
    .join("");
  const local = deps.config.upstream.localAccounts
    ? `<form method="post" action="/login"><input type="hidden" name="next" value="${escapeHtml(next)}">
<p><label>Username or email<br><input name="login" autocomplete="username" required></label></p>
<p><label>Password<br><input name="password" type="password" autocomplete="current-password" required></label></p>
<button type="submit">Sign in</button></form>`
    : "";
  return `<h1>Sign in to rye</h1>${message ? `<p role="alert"><strong>${escapeHtml(message)}</strong></p>` : ""}${local}${providers}`;
}

export function browserPageRoutes(deps: AppDeps, services: OAuthServices, throttle: LoginThrottle): Hono<AppEnv> {
  const publicUrl = deps.config.publicUrl;
  const { devices, userCodeFailures } = services;
  /** Wrong codes count toward the same brute-force limits as the JSON approval API. */
  const codeAttempt = async (c: Context<AppEnv>, sessionId: string) => {
    const keys = { perSession: `s:${sessionId}`, perIp: `ip:${c.get("clientIp")}` };
    const wait = Math.max(await userCodeFailures.perSession.retryAfter(keys.perSession), await userCodeFailures.perIp.retryAfter(keys.perIp));
    return {
      blocked: wait > 0,
      wait,
      fail: () => Promise.all([userCodeFailures.perSession.fail(keys.perSession), userCodeFailures.perIp.fail(keys.perIp)]),
    };
  };
  return new Hono<AppEnv>()
    .get("/login", (c) => htmlPage(c, "Sign in", loginForm(deps, safeNextPath(c.req.query("next"), publicUrl))))
    .post("/login", FORM_LIMIT, async (c) => {
      assertSameOrigin(c, publicUrl);
      const fields = await formFields(c);
      const next = safeNextPath(fields.next, publicUrl);
      if (!deps.config.upstream.localAccounts) throw new RyeError("FORBIDDEN", "This registry does not use local accounts");
      try {
        const user = await signIn(deps.db, throttle, { login: fields.login ?? "", password: fields.password ?? "" }, { ip: c.get("clientIp"), requestId: c.get("requestId") });
        await createWebSession(c, deps.db, user.id, { publicUrl, ip: c.get("clientIp") });
        return c.redirect(next, 303);
      } catch (err) {
        if (err instanceof RyeError && ["UNAUTHORIZED", "RATE_LIMITED", "FORBIDDEN"].includes(err.code)) {
          return htmlPage(c, "Sign in", loginForm(deps, next, err.message), err.code === "RATE_LIMITED" ? 429 : 401);
        }
        throw err;
      }
    })
    .get("/device", async (c) => {
      const session = await readWebSession(c, deps.db);
      const here = `/device${c.req.query("user_code") ? `?user_code=${encodeURIComponent(c.req.query("user_code")!)}` : ""}`;
      if (!session) return c.redirect(`/login?next=${encodeURIComponent(here)}`, 302);
      const raw = c.req.query("user_code");
      const enter = (message?: string) =>
        `<h1>Connect a device</h1>${message ? `<p role="alert"><strong>${escapeHtml(message)}</strong></p>` : ""}<p>Enter the code shown by <code>rye login</code>.</p>
<form method="get" action="/device"><p><label>Code<br><input name="user_code" autocomplete="off" required placeholder="XXXX-XXXX"></label></p><button type="submit">Continue</button></form>`;
      if (!raw) return htmlPage(c, "Connect a device", enter());
      const attempt = await codeAttempt(c, session.sessionId);
      if (attempt.blocked) return htmlPage(c, "Connect a device", enter(`Too many wrong codes: wait ${attempt.wait} s.`), 429);
      const code = normalizeUserCode(raw);
      const row = code ? await devices.findPending(code) : null;
      if (!row) {
        await attempt.fail();
        return htmlPage(c, "Connect a device", enter("No pending sign-in has this code (codes expire after 15 minutes and work once)."), 404);
      }
      const client = findClient(row.clientId)?.name ?? row.clientId;
      return htmlPage(
        c,
        "Approve sign-in",
        `<h1>Approve sign-in?</h1>
<p>Signed in as <strong>${escapeHtml(session.username)}</strong>. <strong>${escapeHtml(client)}</strong> asks for <code>${escapeHtml(row.scope)}</code>.</p>
<ul><li>Code: <code>${escapeHtml(formatUserCode(row.userCode))}</code></li><li>Requested at ${escapeHtml(row.createdAt.toISOString())}</li>
<li>From ${escapeHtml(row.requestIp ?? "unknown address")} (${escapeHtml(row.requestUserAgent ?? "unknown program")})</li></ul>
<p>Approve only if you started this sign-in yourself, just now, and the code matches your terminal.</p>
<form method="post" action="/device"><input type="hidden" name="csrf_token" value="${escapeHtml(session.csrfToken)}"><input type="hidden" name="user_code" value="${escapeHtml(formatUserCode(row.userCode))}">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
      );
    })
    .post("/device", FORM_LIMIT, async (c) => {
      const session = await readWebSession(c, deps.db);
      if (!session) throw new RyeError("UNAUTHORIZED", "Sign in first");
      const fields = await formFields(c);
      assertCsrf(session, fields.csrf_token);
      const attempt = await codeAttempt(c, session.sessionId);
      if (attempt.blocked) return htmlPage(c, "Connect a device", `<h1>Too many wrong codes</h1><p>Wait ${attempt.wait} s.</p>`, 429);
      const code = normalizeUserCode(fields.user_code ?? "");
      const decision = fields.decision === "approve" ? "approved" : "denied";
      const row = code ? await devices.decide(code, session.userId, decision) : null;
      if (!row) await attempt.fail();
      if (!row) return htmlPage(c, "Connect a device", "<h1>Code no longer valid</h1><p>Run <code>rye login</code> again.</p>", 404);
      return htmlPage(c, decision === "approved" ? "Approved" : "Denied", decision === "approved" ? "<h1>Device connected</h1><p>You can return to your terminal.</p>" : "<h1>Request denied</h1><p>Nothing was connected.</p>");
    });
}
