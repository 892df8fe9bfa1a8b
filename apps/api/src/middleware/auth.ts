import type { Context } from "hono";
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { type Principal, type Scope, SCOPES } from "../auth/principal.ts";
import { assertCsrf, readWebSession } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";

/** The caller, who must be authenticated and hold `scope`. */
export function requirePrincipal(c: Context<AppEnv>, scope: Scope): Principal {
  const principal = c.get("principal");
  if (!principal) throw new RyeError("UNAUTHORIZED", "Authentication required", { hint: "Send Authorization: Bearer <token> (rye login, or a token from your registry settings)." });
  if (!principal.scopes.includes(scope)) {
    throw new RyeError("FORBIDDEN", `The token lacks the ${scope} scope`, { hint: `Create a token with the ${scope} scope.` });
  }
  return principal;
}

const SAFE_METHODS = ["GET", "HEAD"];

/**
 * The website's signed-in person as a principal: the `rye_session` cookie acts with the account's own
 * rights (every scope, no namespace or item restriction — exactly what the person may do), like
 * accounts.ts `currentCaller`. Its tokenId is `session:<id>` (never a token row).
 */
async function sessionPrincipal(c: Context<AppEnv>, db: Database): Promise<Principal | null> {
  const session = await readWebSession(c, db);
  if (!session) return null;
  if (!SAFE_METHODS.includes(c.req.method)) assertCsrf(session, c.req.header("x-csrf-token"));
  return { userId: session.userId, username: session.username, isAdmin: session.isAdmin, scopes: [...SCOPES], tokenId: `session:${session.sessionId}`, via: "session", namespace: null, itemPattern: null };
}

/**
 * The caller of a route that both the CLI and the website use (push, item management, author keys):
 * a bearer token, which must hold `scope` (it wins when both are sent), else the browser session
 * cookie, which must send the session's CSRF token (`X-CSRF-Token`) on every method but GET and HEAD.
 * Namespace roles apply the same way to both.
 */
export async function requirePrincipalOrSession(c: Context<AppEnv>, db: Database, scope: Scope): Promise<Principal> {
  if (c.get("principal")) return requirePrincipal(c, scope);
  const principal = await sessionPrincipal(c, db);
  if (!principal) {
    throw new RyeError("UNAUTHORIZED", "Authentication required", {
      hint: "Sign in on the website, or send Authorization: Bearer <token> (rye login, or a token from your registry settings).",
    });
  }
  return principal;
}

/**
 * The caller of a read route, or null (anonymous): a bearer token, else the session cookie. Reads need
 * no CSRF token (cross-site pages cannot read the answers).
 */
export async function optionalPrincipalOrSession(c: Context<AppEnv>, db: Database): Promise<Principal | null> {
  return c.get("principal") ?? (SAFE_METHODS.includes(c.req.method) ? await sessionPrincipal(c, db) : null);
}
