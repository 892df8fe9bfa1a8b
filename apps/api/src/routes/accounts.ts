/**
 * Local accounts and browser sessions: sign-up, sign-in, sign-out, the session, and `GET /v1/me`
 * (whoami for the CLI's bearer tokens and for sessions). Also the caller resolution the token and
 * organization routes share: a bearer token, else the session cookie (+ CSRF on state changes).
 */
import type { Context, MiddlewareHandler } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { limitBody } from "../middleware/body-limit.ts";
import { z } from "zod";
import { meSchema, RyeError, sessionSchema, userSchema } from "@rye/core";
import type { Database, User } from "@rye/db";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/passwords.ts";
import { SCOPES, type Scope } from "../auth/principal.ts";
import { FLOW_COOKIE, FLOW_TTL_SECONDS } from "../auth/upstream/flow-cookie.ts";
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, NAME_MIN_LENGTH } from "../auth/usernames.ts";
import { assertCsrf, createWebSession, endWebSession, readWebSession, SESSION_COOKIE, SESSION_TTL_MS, type WebSessionUser } from "../auth/web-sessions.ts";
import type { SameKeys } from "../contract/operation.ts";
import { access, errors, json, jsonRequest, noBody } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppEnv } from "../env.ts";
import { requirePrincipal } from "../middleware/auth.ts";
import { type Actor, LoginThrottle, type RequestMeta, signIn, signUp, userView } from "../services/accounts.ts";
import type { AppDeps } from "../services/deps.ts";
import { tokenCeilingOf } from "../services/tokens.ts";

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

// ---------------------------------------------------------------- shapes shared by the account, token and organization routes
export const NAME_RULES = `${NAME_MIN_LENGTH}-${NAME_MAX_LENGTH} lowercase letters, digits and single inner hyphens once trimmed and lowercased, not reserved (else VALIDATION_FAILED); users and organizations share one set of names`;
/** The 400 and 413 of routes with a JSON body (jsonBody). */
export const JSON_BODY: [number, string] = [400, "Not application/json, not matching the schema, or VALIDATION_FAILED"];
export const TOO_LARGE: [number, string] = [413, `Bodies over ${ACCOUNT_BODY_LIMIT_BYTES} bytes`];
/** Headers of the document's components (contract/document.ts) that sign-in answers refer to. */
export const ACCOUNT_HEADERS: Record<string, Record<string, unknown>> = {
  SetSession: {
    description: `${SESSION_COOKIE}=<secret>; HttpOnly; SameSite=Lax; Path=/; Max-Age=${SESSION_TTL_MS / 1000} (Secure when the registry is served over https): the browser session.`,
    schema: { type: "string" },
  },
  ClearSession: { description: `${SESSION_COOKIE}=; Max-Age=0; Path=/: the session cookie removed.`, schema: { type: "string" } },
  SetFlow: { description: `${FLOW_COOKIE}=<sealed flow state>; HttpOnly; SameSite=Lax; Path=/v1/auth/; Max-Age=${FLOW_TTL_SECONDS}: finish the sign-in in this browser within ${FLOW_TTL_SECONDS / 60} minutes.`, schema: { type: "string" } },
};
export const SESSION_SET = { "Set-Cookie": { $ref: "#/components/headers/SetSession" } };

// ---------------------------------------------------------------- requests and answers
const SignupRequest = z
  .strictObject({
    username: z.string().max(100).meta({ description: NAME_RULES }),
    email: z.string().max(EMAIL_MAX_LENGTH + 10),
    password: z.string().max(PASSWORD_MAX_LENGTH * 4).meta({ description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters, neither the username nor the email (else VALIDATION_FAILED).` }),
  })
  .meta({ id: "SignupRequest" });
const LoginRequest = z
  .strictObject({
    login: z.string().min(1).max(EMAIL_MAX_LENGTH + 10).meta({ description: "Username or email address." }),
    password: z.string().min(1).max(PASSWORD_MAX_LENGTH * 4),
  })
  .meta({ id: "LoginRequest" });
const Session = sessionSchema.meta({ id: "Session" });
const Me = meSchema.meta({ id: "Me" });
true satisfies SameKeys<z.output<typeof userSchema>, ReturnType<typeof userView>>;

const LOCAL_ONLY: [number, string] = [403, "Local accounts are off on this registry (RYE_LOCAL_ACCOUNTS=false or an `only` provider), or the account is disabled"];

export const signUpRoute = createRoute({
  method: "post",
  path: "/v1/auth/signup",
  operationId: "signUp",
  summary: "Create a local account (and its namespace) and start a session",
  tags: ["auth"],
  ...access("none"),
  request: { body: jsonRequest(SignupRequest) },
  responses: { 201: json(Session, "Created and signed in", SESSION_SET), ...errors(JSON_BODY, LOCAL_ONLY, [409, "The name or the email is taken (details.field)"], TOO_LARGE) },
});
export const signInRoute = createRoute({
  method: "post",
  path: "/v1/auth/login",
  operationId: "signIn",
  summary: "Sign in with a username or email and a password",
  tags: ["auth"],
  ...access("none"),
  request: { body: jsonRequest(LoginRequest) },
  responses: {
    200: json(Session, "Signed in", SESSION_SET),
    ...errors(JSON_BODY, [401, "Wrong username, email or password"], LOCAL_ONLY, TOO_LARGE, [429, "Too many failed attempts for this account and IP (Retry-After), or the /v1 rate limit"]),
  },
});
export const signOutRoute = createRoute({
  method: "post",
  path: "/v1/auth/logout",
  operationId: "signOut",
  summary: "End the session (harmless without one)",
  tags: ["auth"],
  ...access("optional-session+csrf"),
  responses: { 204: noBody("Signed out", { "Set-Cookie": { $ref: "#/components/headers/ClearSession" } }), ...errors() },
});
export const sessionRoute = createRoute({
  method: "get",
  path: "/v1/auth/session",
  operationId: "getSession",
  summary: "The signed-in user and the session's CSRF token",
  tags: ["auth"],
  ...access("session"),
  responses: { 200: json(Session, "The session"), ...errors() },
});
export const whoamiRoute = createRoute({
  method: "get",
  path: "/v1/me",
  operationId: "whoami",
  summary: "Who is calling, with what",
  tags: ["auth"],
  ...access("caller"),
  responses: { 200: json(Me, "The caller"), ...errors() },
});

export function accountRoutes(deps: AppDeps, options: { throttle?: LoginThrottle } = {}) {
  const throttle = options.throttle ?? new LoginThrottle();
  const sessionOptions = (c: Context<AppEnv>) => ({ publicUrl: deps.config.publicUrl, ip: c.get("clientIp") });
  // An organization's registry may allow its identity provider only (RYE_LOCAL_ACCOUNTS=false or `only`).
  const localAccountsOnly: MiddlewareHandler<AppEnv> = async (_c, next) => {
    if (!deps.config.upstream.localAccounts) {
      throw new RyeError("FORBIDDEN", "This registry does not use local accounts", { hint: "Sign in through the registry's identity provider (GET /v1/auth/providers)." });
    }
    await next();
  };
  return contractRouter()
    .openapi({ ...signUpRoute, middleware: [localAccountsOnly, jsonBody] as const }, async (c) => {
      const user = await signUp(deps.db, c.req.valid("json"), requestMeta(c));
      const session = await createWebSession(c, deps.db, user.id, sessionOptions(c));
      return c.json({ user: userView(user), csrf_token: session.csrfToken }, 201);
    })
    .openapi({ ...signInRoute, middleware: [localAccountsOnly, jsonBody] as const }, async (c) => {
      const user = await signIn(deps.db, throttle, c.req.valid("json"), requestMeta(c));
      const session = await createWebSession(c, deps.db, user.id, sessionOptions(c));
      return c.json({ user: userView(user), csrf_token: session.csrfToken }, 200);
    })
    .openapi(signOutRoute, async (c) => {
      const session = await readWebSession(c, deps.db);
      if (session) assertCsrf(session, c.req.header("x-csrf-token"));
      await endWebSession(c, deps.db, session);
      return c.body(null, 204);
    })
    .openapi(sessionRoute, async (c) => {
      const session = await readWebSession(c, deps.db);
      if (!session) throw new RyeError("UNAUTHORIZED", "Not signed in", { hint: "Sign in with POST /v1/auth/login." });
      const user = await deps.db.prisma.user.findUniqueOrThrow({ where: { id: session.userId } });
      return c.json({ user: userView(user), csrf_token: session.csrfToken }, 200);
    })
    .openapi(whoamiRoute, async (c) => {
      const { user, actor } = await requireCaller(c, deps.db);
      const token = actor.token;
      return c.json(
        {
          ...userView(user),
          // an organization's CI token does not reveal the email of the member who created it
          ...(token?.orgId ? { email: null } : {}),
          scopes: token ? token.scopes : [...SCOPES],
          token: token
            ? { type: token.type, id: token.id, org_id: token.orgId, namespace: token.namespace, item_pattern: token.itemPattern, expires_at: token.expiresAt?.toISOString() ?? null }
            : null,
        },
        200,
      );
    });
}
