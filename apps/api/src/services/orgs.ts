/**
 * Organizations: creation (the creator becomes owner), public and member views, invitations,
 * member roles, and organization-owned CI tokens. Owners and admins manage; admins cannot touch
 * owners; an organization always keeps one owner. Every mutation is audited in its transaction.
 */
import { randomBytes } from "node:crypto";
import { RyeError } from "@rye/core";
import { type Database, isUniqueViolation, type OrgRole, type Organization, type Prisma } from "@rye/db";
import { hashToken } from "../auth/api-tokens.ts";
import type { Scope } from "../auth/principal.ts";
import { lookupName, nameProblems, normalizeEmail, normalizeName } from "../auth/usernames.ts";
import type { Actor } from "./accounts.ts";
import { recordAudit } from "./audit.ts";
import { issueToken, isUuid, revokeToken, type TokenRequest, tokenView } from "./tokens.ts";

export const INVITATION_PREFIX = "rye_inv_";
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const ORG_TOKEN_SCOPES: readonly Scope[] = ["items:read", "items:write"];

type Tx = Prisma.TransactionClient;
const MANAGERS: readonly OrgRole[] = ["owner", "admin"];

function audit(tx: Tx, actor: Actor, org: Organization, action: string, details: Record<string, unknown>): Promise<void> {
  return recordAudit(tx, { actorId: actor.userId, action, targetType: "organization", targetId: org.id, details: { org: org.name, ...details }, ip: actor.ip, requestId: actor.requestId });
}

function orgNotFound(name: string): RyeError {
  return new RyeError("NOT_FOUND", `No organization named ${name}`);
}

/** Tokens restricted to a namespace act only there. */
function assertTokenReaches(actor: Actor, orgName: string | null): void {
  const only = actor.token?.namespace;
  if (only && only !== orgName) throw new RyeError("FORBIDDEN", `This token is restricted to the ${only} namespace`);
}

async function findOrg(db: Database, name: string): Promise<Organization> {
  const key = lookupName(name);
  const org = key ? await db.prisma.organization.findUnique({ where: { name: key } }) : null;
  if (!org) throw orgNotFound(name);
  return org;
}

function findUser(db: Database, username: string) {
  const key = lookupName(username);
  return key ? db.prisma.user.findUnique({ where: { username: key }, select: { id: true, username: true } }) : null;
}

async function roleIn(client: Pick<Tx, "membership">, orgId: string, userId: string): Promise<OrgRole | null> {
  return (await client.membership.findUnique({ where: { orgId_userId: { orgId, userId } }, select: { role: true } }))?.role ?? null;
}

/** The organization and the actor's role in it, which must be one of `roles`. */
export async function requireRole(db: Database, actor: Actor, name: string, roles: readonly OrgRole[]): Promise<{ org: Organization; role: OrgRole }> {
  const org = await findOrg(db, name);
  assertTokenReaches(actor, org.name);
  const role = await roleIn(db.prisma, org.id, actor.userId);
  if (!role || !roles.includes(role)) {
    throw new RyeError("FORBIDDEN", `This needs the ${roles.join(" or ")} role in ${org.name}`, { hint: "Ask an owner of the organization." });
  }
  return { org, role };
}

export async function createOrg(db: Database, actor: Actor, input: { name: string; displayName?: string | undefined }) {
  assertTokenReaches(actor, null);
  const name = normalizeName(input.name);
  const problems = nameProblems(name);
  if (problems.length > 0) throw new RyeError("VALIDATION_FAILED", "The organization name is not valid", { details: problems.map((message) => ({ field: "name", message })) });
  const taken = () => new RyeError("CONFLICT", `The name ${name} is taken`, { details: { field: "name" }, hint: "Users and organizations share one set of names: choose another." });
  if (await db.prisma.namespace.findUnique({ where: { name }, select: { id: true } })) throw taken();
  try {
    const org = await db.prisma.$transaction(async (tx) => {
      const created = await tx.organization.create({ data: { name, displayName: input.displayName ?? "" } });
      await tx.namespace.create({ data: { name, orgId: created.id } });
      await tx.membership.create({ data: { orgId: created.id, userId: actor.userId, role: "owner" } });
      await audit(tx, actor, created, "org.create", { display_name: created.displayName });
      return created;
    });
    return { name: org.name, display_name: org.displayName, role: "owner" as const, created_at: org.createdAt.toISOString() };
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

/** Everyone sees name, display name and public item count; members also see the members and all items. */
export async function describeOrg(db: Database, viewer: Actor | null, name: string) {
  const org = await findOrg(db, name);
  const role = viewer ? await roleIn(db.prisma, org.id, viewer.userId) : null;
  const itemCount = await db.prisma.item.count({ where: { namespace: { orgId: org.id }, held: false, ...(role ? {} : { visibility: "public" }) } });
  const view = { name: org.name, display_name: org.displayName, item_count: itemCount, created_at: org.createdAt.toISOString() };
  if (!role) return view;
  const members = await db.prisma.membership.findMany({ where: { orgId: org.id }, include: { user: { select: { username: true } } }, orderBy: { createdAt: "asc" } });
  return { ...view, role, members: members.map((m) => ({ username: m.user.username, role: m.role, joined_at: m.createdAt.toISOString() })) };
}

/** An organization's remote MCP setting (any member may read it): whether remote MCP clients see its private items. */
export async function orgRemoteMcp(db: Database, actor: Actor, name: string) {
  const { org } = await requireRole(db, actor, name, ["owner", "admin", "member"]);
  return remoteMcpView(org);
}

/**
 * Allows or forbids remote MCP clients (the registry's /mcp, third-party OAuth clients) for the organization's private
 * items and held versions (services/access.ts namespaceAccess). Owners and admins; audited as org.remote_mcp when it
 * changes. Public items stay public: anyone reads them over HTTP.
 */
export async function setOrgRemoteMcp(db: Database, actor: Actor, name: string, allowed: boolean) {
  const { org } = await requireRole(db, actor, name, MANAGERS);
  if (org.allowRemoteMcp === allowed) return remoteMcpView(org);
  const updated = await db.prisma.$transaction(async (tx) => {
    const row = await tx.organization.update({ where: { id: org.id }, data: { allowRemoteMcp: allowed } });
    await audit(tx, actor, org, "org.remote_mcp", { from: org.allowRemoteMcp, to: allowed });
    return row;
  });
  return remoteMcpView(updated);
}

function remoteMcpView(org: Organization) {
  return { org: org.name, allowed: org.allowRemoteMcp };
}

export async function inviteMember(db: Database, actor: Actor, orgName: string, input: { username?: string | undefined; email?: string | undefined; role: OrgRole }) {
  const { org, role: actorRole } = await requireRole(db, actor, orgName, MANAGERS);
  if (input.role === "owner" && actorRole !== "owner") throw new RyeError("FORBIDDEN", "Only owners can invite owners");
  let target: { username: string | null; email: string | null };
  if (input.username !== undefined) {
    const user = await findUser(db, input.username);
    if (!user) throw new RyeError("NOT_FOUND", `No user named ${input.username}`);
    if (await roleIn(db.prisma, org.id, user.id)) throw new RyeError("CONFLICT", `${user.username} is already a member of ${org.name}`);
    target = { username: user.username, email: null };
  } else {
    const email = normalizeEmail(input.email ?? "");
    if (!email) throw new RyeError("VALIDATION_FAILED", "Enter a valid email address", { details: [{ field: "email", message: "Enter a valid email address" }] });
    target = { username: null, email };
  }
  const token = `${INVITATION_PREFIX}${randomBytes(32).toString("base64url")}`;
  const invitation = await db.prisma.$transaction(async (tx) => {
    // Only the newest invitation for one person works.
    await tx.orgInvitation.updateMany({ where: { orgId: org.id, ...target, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
    const created = await tx.orgInvitation.create({
      data: { orgId: org.id, ...target, role: input.role, tokenHash: hashToken(token), invitedById: actor.userId, expiresAt: new Date(Date.now() + INVITATION_TTL_MS) },
    });
    await audit(tx, actor, org, "org.invitation.create", { invitation_id: created.id, ...target, role: input.role });
    return created;
  });
  return { id: invitation.id, token, org: org.name, username: invitation.username, email: invitation.email, role: invitation.role, expires_at: invitation.expiresAt.toISOString() };
}

const invitationGone = () => new RyeError("NOT_FOUND", "This invitation is unknown, expired, revoked or already used", { hint: "Ask the organization for a new invitation." });

function isPending(invitation: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }): boolean {
  return !invitation.acceptedAt && !invitation.revokedAt && invitation.expiresAt.getTime() > Date.now();
}

/** The invitations a user may accept: those naming their username, or their email once verified. */
function addressedTo(user: { username: string; email: string | null; emailVerified: boolean }): Prisma.OrgInvitationWhereInput {
  return { OR: [{ username: user.username }, ...(user.email && user.emailVerified ? [{ email: user.email }] : [])] };
}

/** The invited user joins: the invitation names their username, or their email once verified. */
export async function acceptInvitation(db: Database, actor: Actor, token: string) {
  const invitation = await db.prisma.orgInvitation.findUnique({ where: { tokenHash: hashToken(token) }, include: { organization: true } });
  if (!invitation || !isPending(invitation)) throw invitationGone();
  assertTokenReaches(actor, invitation.organization.name);
  const user = await db.prisma.user.findUniqueOrThrow({ where: { id: actor.userId } });
  const forMe = invitation.username === user.username || (invitation.email !== null && invitation.email === user.email && user.emailVerified);
  if (!forMe) throw new RyeError("FORBIDDEN", "This invitation is for another account", { hint: "Sign in as the invited user (email invitations need a verified email address)." });
  return join(db, actor, user, invitation);
}

/** Accepts a pending invitation addressed to the caller, found by id (the website's list); others' answer 404. */
export async function acceptInvitationById(db: Database, actor: Actor, id: string) {
  const { invitation, user } = await myPendingInvitation(db, actor, id);
  return join(db, actor, user, invitation);
}

/** Declines (revokes) a pending invitation addressed to the caller. */
export async function declineInvitation(db: Database, actor: Actor, id: string) {
  const { invitation } = await myPendingInvitation(db, actor, id);
  const org = invitation.organization;
  return db.prisma.$transaction(async (tx) => {
    const claimed = await tx.orgInvitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
    if (claimed.count !== 1) throw invitationGone();
    await audit(tx, actor, org, "org.invitation.decline", { invitation_id: invitation.id });
    return { org: org.name, id: invitation.id, declined: true as const };
  });
}

async function myPendingInvitation(db: Database, actor: Actor, id: string) {
  const user = await db.prisma.user.findUniqueOrThrow({ where: { id: actor.userId } });
  const invitation = isUuid(id) ? await db.prisma.orgInvitation.findFirst({ where: { id, ...addressedTo(user) }, include: { organization: true } }) : null;
  if (!invitation || !isPending(invitation)) throw invitationGone();
  assertTokenReaches(actor, invitation.organization.name);
  return { invitation, user };
}

async function join(db: Database, actor: Actor, user: { id: string; username: string }, invitation: { id: string; role: OrgRole; organization: Organization }) {
  const org = invitation.organization;
  try {
    return await db.prisma.$transaction(async (tx) => {
      const claimed = await tx.orgInvitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { acceptedAt: new Date() } });
      if (claimed.count !== 1) throw invitationGone();
      if (await roleIn(tx, org.id, user.id)) throw new RyeError("CONFLICT", `You are already a member of ${org.name}`);
      await tx.membership.create({ data: { orgId: org.id, userId: user.id, role: invitation.role } });
      await audit(tx, actor, org, "org.invitation.accept", { invitation_id: invitation.id, username: user.username, role: invitation.role });
      return { org: org.name, role: invitation.role };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new RyeError("CONFLICT", `You are already a member of ${org.name}`);
    throw err;
  }
}

/**
 * Runs a membership change in a transaction holding the organization row lock (so two owners cannot
 * demote each other at once), after the rules every change shares: the target is a member, admins
 * do not touch owners, the last owner stays.
 */
async function changeMembership<T>(
  db: Database,
  actor: Actor,
  orgName: string,
  username: string,
  change: { newRole: OrgRole | null; allowSelf: boolean },
  apply: (tx: Tx, org: Organization, target: { userId: string; username: string; role: OrgRole }) => Promise<T>,
): Promise<T> {
  const org = await findOrg(db, orgName);
  assertTokenReaches(actor, org.name);
  const target = await findUser(db, username);
  const self = target?.id === actor.userId;
  return db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${org.id}::uuid FOR UPDATE`;
    const actorRole = await roleIn(tx, org.id, actor.userId);
    if (!actorRole || (!MANAGERS.includes(actorRole) && !(self && change.allowSelf))) {
      throw new RyeError("FORBIDDEN", `This needs the owner or admin role in ${org.name}`, { hint: "Ask an owner of the organization." });
    }
    const targetRole = target ? await roleIn(tx, org.id, target.id) : null;
    if (!target || !targetRole) throw new RyeError("NOT_FOUND", `${username} is not a member of ${org.name}`);
    if (actorRole === "admin" && (targetRole === "owner" || change.newRole === "owner")) throw new RyeError("FORBIDDEN", "Admins cannot change owners or make owners");
    if (targetRole === "owner" && change.newRole !== "owner" && (await tx.membership.count({ where: { orgId: org.id, role: "owner" } })) === 1) {
      throw new RyeError("CONFLICT", `${target.username} is the last owner of ${org.name}`, { hint: "Make another member an owner first." });
    }
    return apply(tx, org, { userId: target.id, username: target.username, role: targetRole });
  });
}

/** Owners and admins remove members; anyone may leave. Tokens the member minted for the organization are revoked. */
export function removeMember(db: Database, actor: Actor, orgName: string, username: string) {
  return changeMembership(db, actor, orgName, username, { newRole: null, allowSelf: true }, async (tx, org, target) => {
    await tx.membership.delete({ where: { orgId_userId: { orgId: org.id, userId: target.userId } } });
    const tokens = await tx.apiToken.updateMany({ where: { orgId: org.id, userId: target.userId, revokedAt: null }, data: { revokedAt: new Date() } });
    await audit(tx, actor, org, "org.member.remove", { username: target.username, role: target.role, revoked_tokens: tokens.count });
    return { org: org.name, username: target.username, removed: true };
  });
}

export function changeRole(db: Database, actor: Actor, orgName: string, username: string, role: OrgRole) {
  return changeMembership(db, actor, orgName, username, { newRole: role, allowSelf: false }, async (tx, org, target) => {
    if (target.role !== role) {
      await tx.membership.update({ where: { orgId_userId: { orgId: org.id, userId: target.userId } }, data: { role } });
      await audit(tx, actor, org, "org.member.role", { username: target.username, from: target.role, to: role });
    }
    return { org: org.name, username: target.username, role };
  });
}

// ---- organization (CI) tokens --------------------------------------------------------------------

export async function createOrgToken(db: Database, actor: Actor, orgName: string, request: TokenRequest) {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  const outside = request.scopes.filter((s) => !ORG_TOKEN_SCOPES.includes(s));
  if (outside.length > 0) {
    throw new RyeError("VALIDATION_FAILED", `Organization tokens may only have the ${ORG_TOKEN_SCOPES.join(" and ")} scopes`, { details: [{ field: "scopes", message: `not allowed: ${outside.join(", ")}` }] });
  }
  return issueToken(db, actor, { orgId: org.id, namespace: org.name }, request);
}

export async function listOrgTokens(db: Database, actor: Actor, orgName: string) {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  const rows = await db.prisma.apiToken.findMany({ where: { orgId: org.id }, include: { user: { select: { username: true } } }, orderBy: { createdAt: "desc" } });
  return rows.map((row) => ({ ...tokenView(row), created_by: row.user.username }));
}

export async function revokeOrgToken(db: Database, actor: Actor, orgName: string, id: string) {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  return revokeToken(db, actor, { id, orgId: org.id });
}

// ---- the caller's organizations and invitations, an organization's pending invitations -----------

/** Organization tokens act for their organization only; they do not list a member's memberships. */
function assertPersonal(actor: Actor): void {
  if (actor.token?.orgId) throw new RyeError("FORBIDDEN", "Organization tokens cannot list a member's organizations or invitations");
}

/** The caller's organizations with their role, by name (a namespace-restricted token sees that one only). */
export async function listMyOrgs(db: Database, actor: Actor) {
  assertPersonal(actor);
  const only = actor.token?.namespace ?? null;
  const rows = await db.prisma.membership.findMany({
    where: { userId: actor.userId, ...(only ? { organization: { name: only } } : {}) },
    include: { organization: { include: { _count: { select: { memberships: true } } } } },
    orderBy: { organization: { name: "asc" } },
  });
  return rows.map((m) => ({
    name: m.organization.name,
    display_name: m.organization.displayName,
    role: m.role,
    member_count: m.organization._count.memberships,
    joined_at: m.createdAt.toISOString(),
  }));
}

async function usernamesOf(db: Database, ids: string[]): Promise<Map<string, string>> {
  const users = await db.prisma.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, username: true } });
  return new Map(users.map((u) => [u.id, u.username]));
}

/** Pending invitations addressed to the caller (by username, or by email once verified) to organizations they are not in, newest first. */
export async function listMyInvitations(db: Database, actor: Actor) {
  assertPersonal(actor);
  const user = await db.prisma.user.findUniqueOrThrow({ where: { id: actor.userId } });
  const only = actor.token?.namespace ?? null;
  const rows = await db.prisma.orgInvitation.findMany({
    where: {
      ...addressedTo(user),
      acceptedAt: null,
      revokedAt: null,
      expiresAt: { gt: new Date() },
      // an email invitation to an organization the user has joined since is moot
      organization: { memberships: { none: { userId: user.id } }, ...(only ? { name: only } : {}) },
    },
    include: { organization: true },
    orderBy: { createdAt: "desc" },
  });
  const inviters = await usernamesOf(db, rows.map((r) => r.invitedById));
  return rows.map((r) => ({
    id: r.id,
    org: r.organization.name,
    org_display_name: r.organization.displayName,
    role: r.role,
    invited_by: inviters.get(r.invitedById) ?? null,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
  }));
}

/** An organization's pending invitations (owners and admins), newest first; the secrets are never shown again. */
export async function listOrgInvitations(db: Database, actor: Actor, orgName: string) {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  const rows = await db.prisma.orgInvitation.findMany({ where: { orgId: org.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: "desc" } });
  const inviters = await usernamesOf(db, rows.map((r) => r.invitedById));
  return rows.map((r) => ({
    id: r.id,
    username: r.username,
    email: r.email,
    role: r.role,
    invited_by: inviters.get(r.invitedById) ?? null,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
  }));
}

/** Withdraws a pending invitation (owners and admins; only owners withdraw owner invitations). */
export async function revokeOrgInvitation(db: Database, actor: Actor, orgName: string, id: string) {
  const { org, role } = await requireRole(db, actor, orgName, MANAGERS);
  const invitation = isUuid(id) ? await db.prisma.orgInvitation.findFirst({ where: { id, orgId: org.id } }) : null;
  if (!invitation || !isPending(invitation)) throw new RyeError("NOT_FOUND", `No pending invitation ${id} in ${org.name}`, { hint: "List them with GET /v1/orgs/{name}/invitations." });
  if (invitation.role === "owner" && role !== "owner") throw new RyeError("FORBIDDEN", "Only owners can withdraw an invitation to become owner");
  return db.prisma.$transaction(async (tx) => {
    const claimed = await tx.orgInvitation.updateMany({ where: { id: invitation.id, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
    if (claimed.count !== 1) throw new RyeError("NOT_FOUND", `No pending invitation ${id} in ${org.name}`);
    await audit(tx, actor, org, "org.invitation.revoke", { invitation_id: invitation.id, username: invitation.username, email: invitation.email });
    return { org: org.name, id: invitation.id, revoked: true as const };
  });
}
