/**
 * Browser sessions: the `rye_session` cookie holds a random token; only its SHA-256 is stored.
 * httpOnly, SameSite=Lax, Secure when the registry is served over https. State-changing requests
 * authenticated by the cookie must also carry the session's CSRF token (`X-CSRF-Token` header or a
 * `csrf_token` form field) — see `assertCsrf`.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";

export const SESSION_COOKIE = "rye_session";
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;

export interface WebSessionUser {
  sessionId: string;
  userId: string;
  username: string;
  isAdmin: boolean;
  csrfToken: string;
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function secureCookies(publicUrl: string): boolean {
  return publicUrl.startsWith("https://");
}

/** Creates a session for `userId` and sets the cookie on the response. */
export async function createWebSession(c: Context, db: Database, userId: string, options: { publicUrl: string; ip?: string | null }): Promise<WebSessionUser> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const session = await db.prisma.webSession.create({
    data: {
      userId,
      tokenHash: hashSessionToken(token),
      csrfToken,
      ip: options.ip ?? null,
      userAgent: c.req.header("user-agent")?.slice(0, 300) ?? null,
      expiresAt: new Date(Date.now() + SESSION_TTL_MS),
    },
    include: { user: true },
  });
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: secureCookies(options.publicUrl),
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
  return { sessionId: session.id, userId, username: session.user.username, isAdmin: session.user.isAdmin, csrfToken };
}

/** The signed-in user of this request's cookie, or null (expired, revoked, disabled or no cookie). */
export async function readWebSession(c: Context, db: Database): Promise<WebSessionUser | null> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || token.length > 100) return null;
  const session = await db.prisma.webSession.findUnique({ where: { tokenHash: hashSessionToken(token) }, include: { user: true } });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now() || session.user.disabledAt) return null;
  return { sessionId: session.id, userId: session.userId, username: session.user.username, isAdmin: session.user.isAdmin, csrfToken: session.csrfToken };
}

export async function endWebSession(c: Context, db: Database, session: WebSessionUser | null): Promise<void> {
  if (session) await db.prisma.webSession.update({ where: { id: session.sessionId }, data: { revokedAt: new Date() } });
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}

/** CSRF check for cookie-authenticated state changes: the session's token must come back. */
export function assertCsrf(session: WebSessionUser, presented: string | undefined): void {
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(presented ?? "");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new RyeError("FORBIDDEN", "Missing or wrong CSRF token", { hint: "Send the csrf_token from GET /v1/auth/session as the X-CSRF-Token header." });
  }
}
