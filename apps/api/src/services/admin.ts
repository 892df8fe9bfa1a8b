/**
 * Operator actions (`npm run registry -- …`), shared by the admin HTTP endpoint (when the server runs
 * on the single-process embedded database) and by direct database access (server stopped, or PostgreSQL).
 */
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import { hashPassword, passwordProblems } from "../auth/passwords.ts";
import { SCOPES, type Scope } from "../auth/principal.ts";
import { nameProblems, normalizeEmail, normalizeName } from "../auth/usernames.ts";
import type { Actor } from "./accounts.ts";
import { recordAudit } from "./audit.ts";
import { createOrg } from "./orgs.ts";
import { issueToken, revokeToken } from "./tokens.ts";

export interface CreateUserInput {
  username: string;
  email: string;
  password?: string | undefined;
  admin?: boolean | undefined;
}

async function actorFor(db: Database, username: string): Promise<Actor> {
  const user = await db.prisma.user.findUnique({ where: { username: normalizeName(username) } });
  if (!user) throw new RyeError("NOT_FOUND", `No user ${username}`, { hint: "Create it with: npm run registry -- users create <username> --email <email>" });
  return { userId: user.id, username: user.username, token: null, ip: null, requestId: "operator" };
}

export async function adminCreateUser(db: Database, input: CreateUserInput) {
  const username = normalizeName(input.username);
  const email = normalizeEmail(input.email);
  const problems = [
    ...nameProblems(username).map((message) => ({ field: "username", message })),
    ...(email ? [] : [{ field: "email", message: "Enter a valid email address" }]),
    ...(input.password !== undefined ? passwordProblems(input.password, { username, email: email ?? "" }).map((message) => ({ field: "password", message })) : []),
  ];
  if (problems.length > 0 || !email) throw new RyeError("VALIDATION_FAILED", "The account details are not valid", { details: problems });
  if (await db.prisma.namespace.findUnique({ where: { name: username } })) throw new RyeError("CONFLICT", `The name ${username} is taken`);
  if (await db.prisma.user.findUnique({ where: { email } })) throw new RyeError("CONFLICT", "An account with this email exists");
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
  const user = await db.prisma.$transaction(async (tx) => {
    // Operators vouch for the address they type: it counts as verified (account linking relies on it).
    const created = await tx.user.create({ data: { username, email, emailVerified: true, passwordHash, isAdmin: input.admin ?? false } });
    await tx.namespace.create({ data: { name: username, userId: created.id } });
    await recordAudit(tx, { actorId: null, action: "user.create", targetType: "user", targetId: created.id, details: { username, admin: created.isAdmin, via: "operator" } });
    return created;
  });
  return { id: user.id, username: user.username, email: user.email, admin: user.isAdmin, password_set: passwordHash !== null };
}

export interface CreateTokenInput {
  username: string;
  name?: string | undefined;
  scopes?: string[] | undefined;
  expiresInDays?: number | undefined;
  namespace?: string | undefined;
}

export async function adminCreateToken(db: Database, input: CreateTokenInput) {
  const scopes = input.scopes ?? ["items:read", "items:write"];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new RyeError("VALIDATION_FAILED", `Unknown scopes: ${unknown.join(", ")}`, { hint: `Scopes: ${SCOPES.join(", ")}` });
  const actor = await actorFor(db, input.username);
  return issueToken(db, actor, { orgId: null, namespace: null }, {
    name: input.name ?? "operator token",
    scopes: scopes as Scope[],
    expiresInDays: input.expiresInDays,
    namespace: input.namespace,
  });
}

export async function adminRevokeToken(db: Database, id: string) {
  const row = await db.prisma.apiToken.findFirst({ where: { OR: [{ id: /^[0-9a-f-]{36}$/i.test(id) ? id : undefined }, { tokenPrefix: id }] }, include: { user: true } });
  if (!row) throw new RyeError("NOT_FOUND", `No token ${id}`, { hint: "Pass the token id or its displayed prefix." });
  return revokeToken(db, { userId: row.userId, username: row.user.username, token: null, ip: null, requestId: "operator" }, { id: row.id });
}

export async function adminCreateOrg(db: Database, input: { name: string; owner: string; displayName?: string | undefined }) {
  return createOrg(db, await actorFor(db, input.owner), { name: input.name, displayName: input.displayName });
}
