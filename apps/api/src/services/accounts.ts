/** Local accounts: sign-up, password sign-in (with a failed-attempt throttle) and the caller of a request. */
import { RyeError } from "@rye/core";
import { type Database, isUniqueViolation, type User } from "@rye/db";
import { hashPassword, needsRehash, passwordProblems, verifyPassword } from "../auth/passwords.ts";
import { lookupName, nameProblems, normalizeEmail, normalizeName } from "../auth/usernames.ts";
import { recordAudit } from "./audit.ts";
import type { TokenCeiling } from "../auth/principal.ts";
import { MemoryWindowCounters, type WindowCounters } from "./window-counters.ts";

export interface RequestMeta {
  ip: string | null;
  requestId: string;
}

/** A signed-in caller, by web session (`token` null) or by bearer token (`token` = what the token may do). */
export interface Actor extends RequestMeta {
  userId: string;
  username: string;
  token: TokenCeiling | null;
}


export function userView(user: User) {
  return { id: user.id, username: user.username, email: user.email, email_verified: user.emailVerified };
}

/** Sign-up is the one place that says whether a name or an email is taken: it has to. */
async function assertAvailable(db: Database, username: string, email: string): Promise<void> {
  if (await db.prisma.namespace.findUnique({ where: { name: username }, select: { id: true } })) {
    throw new RyeError("CONFLICT", `The name ${username} is taken`, { details: { field: "username" }, hint: "Choose another username." });
  }
  if (await db.prisma.user.findUnique({ where: { email }, select: { id: true } })) {
    throw new RyeError("CONFLICT", "An account with this email exists", { details: { field: "email" }, hint: "Sign in instead." });
  }
}

export async function signUp(db: Database, input: { username: string; email: string; password: string }, meta: RequestMeta): Promise<User> {
  const username = normalizeName(input.username);
  const email = normalizeEmail(input.email);
  const problems = [
    ...nameProblems(username).map((message) => ({ field: "username", message })),
    ...(email ? [] : [{ field: "email", message: "Enter a valid email address" }]),
    ...passwordProblems(input.password, { username, email: email ?? input.email }).map((message) => ({ field: "password", message })),
  ];
  if (problems.length > 0 || !email) throw new RyeError("VALIDATION_FAILED", "The account details are not valid", { details: problems });
  await assertAvailable(db, username, email);
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { username, email, passwordHash } });
      await tx.namespace.create({ data: { name: username, userId: user.id } });
      await recordAudit(tx, { actorId: user.id, action: "user.signup", targetType: "user", targetId: user.id, details: { username }, ...meta });
      return user;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await assertAvailable(db, username, email); // a concurrent sign-up took the name or the email: say which
    throw new RyeError("CONFLICT", "The account could not be created", { details: { field: "username" } });
  }
}

export const MAX_FAILED_LOGINS = 10;
export const FAILED_LOGIN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Failed sign-ins per account and client IP, counted in a WindowCounters store (shared through PostgreSQL by
 * every process of a scaled-out registry). An attempt is counted when it starts, so concurrent guesses are
 * counted too; a correct password clears the count.
 */
export class LoginThrottle {
  constructor(private readonly counters: WindowCounters = new MemoryWindowCounters(), private readonly now: () => number = Date.now) {}

  /** Counts an attempt, or refuses it (429) when the window's attempts are used up. */
  async begin(key: string): Promise<void> {
    const entry = await this.counters.hit(`login:${key}`, FAILED_LOGIN_WINDOW_MS);
    if (entry.count > MAX_FAILED_LOGINS) {
      const retryAfter = Math.max(1, Math.ceil((entry.resetAt - this.now()) / 1000));
      throw new RyeError("RATE_LIMITED", "Too many failed sign-in attempts", { details: { retry_after: retryAfter }, hint: "Wait, then try again or reset your password." });
    }
  }

  async succeeded(key: string): Promise<void> {
    await this.counters.clear(`login:${key}`);
  }
}

async function findByLogin(db: Database, login: string): Promise<User | null> {
  if (login.includes("@")) {
    const email = normalizeEmail(login);
    return email ? db.prisma.user.findUnique({ where: { email } }) : null;
  }
  const username = lookupName(login);
  return username ? db.prisma.user.findUnique({ where: { username } }) : null;
}

/** The user for a username-or-email and password; one message for every wrong combination. */
export async function signIn(db: Database, throttle: LoginThrottle, input: { login: string; password: string }, meta: RequestMeta): Promise<User> {
  const user = await findByLogin(db, input.login);
  const key = `${user?.id ?? `unknown:${input.login.trim().toLowerCase()}`}|${meta.ip ?? ""}`;
  await throttle.begin(key);
  const matches = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !user.passwordHash || !matches) {
    throw new RyeError("UNAUTHORIZED", "Wrong username, email or password", { hint: "Check your sign-in details and try again." });
  }
  await throttle.succeeded(key);
  if (user.disabledAt) throw new RyeError("FORBIDDEN", "This account is disabled", { hint: "Contact the registry's administrators." });
  if (needsRehash(user.passwordHash)) {
    await db.prisma.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(input.password) } });
  }
  return user;
}
