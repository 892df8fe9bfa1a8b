/**
 * Local accounts and browser sessions: sign-up, sign-in, sign-out, the session, and `GET /v1/me`
 * (whoami for the CLI's bearer tokens and for sessions). Also the caller resolution the token and
 * organization routes share: a bearer token, else the session cookie (+ CSRF on state changes).
 */
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { Database, User } from "@rye/db";
import { PASSWORD_MAX_LENGTH } from "../auth/passwords.ts";
import { SCOPES, type Scope } from "../auth/principal.ts";
import { EMAIL_MAX_LENGTH } from "../auth/usernames.ts";
import { assertCsrf, createWebSession, endWebSession, readWebSession, type WebSessionUser } from "../auth/web-sessions.ts";
import type { AppEnv } from "../env.ts";
import { requirePrincipal } from "../middleware/auth.ts";
import { type Actor, LoginThrottle, type RequestMeta, signIn, signUp, userView } from "../services/accounts.ts";
import type { AppDeps } from "../services/deps.ts";
import { tokenCeilingOf } from "../services/tokens.ts";
import { parseBody } from "./items.ts";

export const ACCOUNT_BODY_LIMIT_BYTES = 16 * 1024;

const accountBodyLimit = limitBody(ACCOUNT_BODY_LIMIT_BYTES);

/**
 * Small JSON bodies only: account, token and organization requests are a few fields. Requiring the
 * JSON content type also keeps cross-site HTML forms (which cannot send it) away from sign-in.
 */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^application\/json(;|$)/i.test(c.req.header("content-type") ?? "")) {
    throw new RyeError("BAD_REQUEST", "The request body must be JSON", { hint: "Send Content-Type: application/json." });
  }
  return accountBodyLimit(c, next);
};

/** Free text stored as sent (token names, display names): trimmed, no control characters (PostgreSQL refuses NUL). */
export function plainText(max: number) {
  return z.string().trim().max(max).regex(/^\P{Cc}*$/u, "Control characters are not allowed");
}

export interface Caller {
  actor: Actor;
  user: User;
  /** Set when the caller signed in with the session cookie rather than a bearer token. */
  session: WebSessionUser | null;
}

function requestMeta(c: Context<AppEnv>): RequestMeta {
  return { ip: c.get("clientIp"), requestId: c.get("requestId") };
}

/** The signed-in caller, or null. Bearer tokens (checked by requestContext) win over the cookie. */
export async function currentCaller(c: Context<AppEnv>, db: Database): Promise<Caller | null> {
  const principal = c.get("principal");
  if (principal) {
    const user = await db.prisma.user.findUnique({ where: { id: principal.userId } });
    if (!user || user.disabledAt) throw new RyeError("UNAUTHORIZED", "The account of this token is disabled");
    return { actor: { ...requestMeta(c), userId: user.id, username: user.username, token: await tokenCeilingOf(db, principal) }, user, session: null };
  }
  const session = await readWebSession(c, db);
  if (!session) return null;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { id: session.userId } });
  return { actor: { ...requestMeta(c), userId: user.id, username: user.username, token: null }, user, session };
}

/**
 * The caller, who must be signed in; bearer tokens must hold `scope` when one is named. Session
 * callers must send the session's CSRF token (`X-CSRF-Token`) on every method but GET and HEAD.
 */
export async function requireCaller(c: Context<AppEnv>, db: Database, scope?: Scope): Promise<Caller> {
  if (scope && c.get("principal")) requirePrincipal(c, scope);
  const caller = await currentCaller(c, db);
  if (!caller) throw new RyeError("UNAUTHORIZED", "Sign in first", { hint: "Sign in on the website, or send Authorization: Bearer <token>." });
  if (caller.session && !["GET", "HEAD"].includes(c.req.method)) assertCsrf(caller.session, c.req.header("x-csrf-token"));
  return caller;
}

const signupSchema = z.strictObject({
  username: z.string().max(100),
  email: z.string().max(EMAIL_MAX_LENGTH + 10),
  password: z.string().max(PASSWORD_MAX_LENGTH * 4),
});

const loginSchema = z.strictObject({
  login: z.string().min(1).max(EMAIL_MAX_LENGTH + 10),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH * 4),
});

export function accountRoutes(deps: AppDeps, options: { throttle?: LoginThrottle } = {}): Hono<AppEnv> {
  const throttle = options.throttle ?? new LoginThrottle();
  const sessionOptions = (c: Context<AppEnv>) => ({ publicUrl: deps.config.publicUrl, ip: c.get("clientIp") });
  // An organization's registry may allow its identity provider only (RYE_LOCAL_ACCOUNTS=false or `only`).
  const localAccountsOnly = async (_c: Context<AppEnv>, next: () => Promise<void>) => {
    if (!deps.config.upstream.localAccounts) {
      throw new RyeError("FORBIDDEN", "This registry does not use local accounts", { hint: "Sign in through the registry's identity provider (GET /v1/auth/providers)." });
    }
    await next();
  };
  return new Hono<AppEnv>()
    .post("/v1/auth/signup", localAccountsOnly, jsonBody, async (c) => {
      const user = await signUp(deps.db, parseBody(signupSchema, await c.req.json()), requestMeta(c));
      const session = await createWebSession(c, deps.db, user.id, sessionOptions(c));
      return c.json({ user: userView(user), csrf_token: session.csrfToken }, 201);
    })
    .post("/v1/auth/login", localAccountsOnly, jsonBody, async (c) => {
      const user = await signIn(deps.db, throttle, parseBody(loginSchema, await c.req.json()), requestMeta(c));
      const session = await createWebSession(c, deps.db, user.id, sessionOptions(c));
      return c.json({ user: userView(user), csrf_token: session.csrfToken });
    })
    .post("/v1/auth/logout", async (c) => {
      const session = await readWebSession(c, deps.db);
      if (session) assertCsrf(session, c.req.header("x-csrf-token"));
      await endWebSession(c, deps.db, session);
      return c.body(null, 204);
    })
    .get("/v1/auth/session", async (c) => {
      const session = await readWebSession(c, deps.db);
      if (!session) throw new RyeError("UNAUTHORIZED", "Not signed in", { hint: "Sign in with POST /v1/auth/login." });
      const user = await deps.db.prisma.user.findUniqueOrThrow({ where: { id: session.userId } });
      return c.json({ user: userView(user), csrf_token: session.csrfToken });
    })
    .get("/v1/me", async (c) => {
      const { user, actor } = await requireCaller(c, deps.db);
      const token = actor.token;
      return c.json({
        ...userView(user),
        // an organization's CI token does not reveal the email of the member who created it
        ...(token?.orgId ? { email: null } : {}),
        scopes: token ? token.scopes : [...SCOPES],
        token: token
          ? { type: token.type, id: token.id, org_id: token.orgId, namespace: token.namespace, item_pattern: token.itemPattern, expires_at: token.expiresAt?.toISOString() ?? null }
          : null,
      });
    });
}
