/**
 * Namespace verification claims of organizations (docs/namespace-verification.md): start (a new challenge), check
 * (prove it now), list, remove, transfer to another organization, and the public badges. Only owners and admins
 * of the organization act; a verified subject (`dns:acme.com`, `github:acme`) belongs to one organization at a
 * time — proving it moves it (transfer by proof), an owner can hand it over (explicit transfer). Every change is
 * audited in its transaction.
 */
import { randomBytes } from "node:crypto";
import {
  normalizeDomain,
  normalizeGithubOrg,
  RyeError,
  type StartVerificationRequest,
  type Verification,
  type VerificationKind,
  type VerifiedBadge,
  verifiedLabel,
} from "@rye/core";
import { type Database, isUniqueViolation, type NamespaceVerification, type Organization, type Prisma } from "@rye/db";
import type { Actor } from "../accounts.ts";
import { recordAudit } from "../audit.ts";
import { requireRole } from "../orgs.ts";
import { isUuid } from "../tokens.ts";
import { type CheckOutcome, challengeRecordName, challengeRecordValue } from "./dns-check.ts";

/** At most this many claims (any state) per organization. */
export const MAX_VERIFICATIONS_PER_ORG = 20;
const MANAGERS = ["owner", "admin"] as const;

type Tx = Prisma.TransactionClient;
type Row = NamespaceVerification & { organization: Pick<Organization, "name"> };

export interface VerificationPolicy {
  /** How long a new challenge may be proven. */
  challengeTtlMs: number;
}

export function verifiedKeyOf(kind: VerificationKind, subject: string): string {
  return `${kind}:${subject}`;
}

function normalizeSubject(kind: VerificationKind, subject: string): string {
  if (kind === "dns") {
    const d = normalizeDomain(subject);
    if ("problem" in d) throw new RyeError("INVALID_DOMAIN", `${JSON.stringify(subject.slice(0, 80))} is not a domain the registry verifies: ${d.problem}`);
    return d.domain;
  }
  const g = normalizeGithubOrg(subject);
  if ("problem" in g) throw new RyeError("VALIDATION_FAILED", `${JSON.stringify(subject.slice(0, 80))} is not a GitHub organization name`, { details: [{ field: "subject", message: g.problem }] });
  return g.login;
}

function newChallenge(): string {
  return randomBytes(24).toString("base64url");
}

/** The API view; `withInstructions` for owners and admins (the challenge value proves nothing by itself, but is theirs). */
export function verificationView(row: Row, withInstructions: boolean): Verification {
  const kind = row.kind as VerificationKind;
  let instructions: Verification["instructions"] = null;
  // A verified domain needs nothing more; a GitHub claim is re-proven on demand through the same path.
  if (withInstructions && (row.status !== "verified" || kind === "github")) {
    instructions =
      kind === "dns"
        ? { record_name: challengeRecordName(row.subject), record_type: "TXT", record_value: challengeRecordValue(row.challenge) }
        : { authorize_path: `/v1/orgs/${row.organization.name}/verifications/${row.id}/github` };
  }
  return {
    id: row.id,
    org: row.organization.name,
    kind,
    subject: row.subject,
    label: verifiedLabel(kind, row.subject),
    status: row.status as Verification["status"],
    challenge_expires_at: row.challengeExpiresAt.toISOString(),
    verified_at: row.verifiedAt?.toISOString() ?? null,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    instructions,
  };
}

function audit(tx: Tx, actor: Actor | null, orgId: string, action: string, details: Record<string, unknown>): Promise<void> {
  return recordAudit(tx, { actorId: actor?.userId ?? null, action, targetType: "organization", targetId: orgId, details, ip: actor?.ip ?? null, requestId: actor?.requestId ?? null });
}

const include = { organization: { select: { name: true } } } as const;

/** Starts a claim, or renews the challenge of an expired or lapsed one; a pending or verified claim is returned as it is. */
export async function startVerification(db: Database, actor: Actor, orgName: string, input: StartVerificationRequest, policy: VerificationPolicy, now = new Date()): Promise<{ verification: Verification; created: boolean }> {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  const subject = normalizeSubject(input.kind, input.subject);
  const expiresAt = new Date(now.getTime() + policy.challengeTtlMs);
  const started = db.prisma.$transaction(async (tx) => {
    const existing = await tx.namespaceVerification.findUnique({ where: { orgId_kind_subject: { orgId: org.id, kind: input.kind, subject } }, include });
    if (existing && (existing.status === "verified" || (existing.status === "pending" && existing.challengeExpiresAt > now))) {
      return { verification: verificationView(existing, true), created: false };
    }
    if (!existing && (await tx.namespaceVerification.count({ where: { orgId: org.id } })) >= MAX_VERIFICATIONS_PER_ORG) {
      throw new RyeError("LIMIT_EXCEEDED", `${org.name} already has ${MAX_VERIFICATIONS_PER_ORG} verification claims`, { hint: "Remove claims you no longer need (rye org verify remove)." });
    }
    const data = { challenge: newChallenge(), status: "pending", verifiedKey: null, challengeExpiresAt: expiresAt, lastError: null, createdById: actor.userId };
    const row = existing
      ? await tx.namespaceVerification.update({ where: { id: existing.id }, data, include })
      : await tx.namespaceVerification.create({ data: { ...data, orgId: org.id, kind: input.kind, subject }, include });
    await audit(tx, actor, org.id, "verification.start", { org: org.name, kind: input.kind, subject });
    return { verification: verificationView(row, true), created: !existing };
  });
  return started.catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new RyeError("CONFLICT", `A claim on ${verifiedLabel(input.kind, subject)} was started at the same moment`, { hint: "List the claims: it is there." });
    throw err;
  });
}

async function findClaim(db: Database, org: Organization, id: string): Promise<Row> {
  const row = isUuid(id) ? await db.prisma.namespaceVerification.findFirst({ where: { id, orgId: org.id }, include }) : null;
  if (!row) throw new RyeError("NOT_FOUND", `${org.name} has no verification claim ${JSON.stringify(id.slice(0, 64))}`, { hint: "List them with GET /v1/orgs/{name}/verifications." });
  return row;
}

/** The claim of an owner or admin of `orgName`, for a check by the caller. */
export async function claimForCheck(db: Database, actor: Actor, orgName: string, id: string): Promise<Row> {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  return findClaim(db, org, id);
}

/** A pending claim whose challenge expired cannot be proven any more. */
export function assertChallengeLive(row: Row, now = new Date()): void {
  if (row.status === "pending" && row.challengeExpiresAt <= now) {
    throw new RyeError("VERIFICATION_EXPIRED", `The challenge for ${verifiedLabel(row.kind as VerificationKind, row.subject)} expired at ${row.challengeExpiresAt.toISOString()}`);
  }
}

/**
 * Records the outcome of a check of `row` (by `actor`, or by the periodic re-check when null). A success verifies
 * the claim and takes the subject from any other organization that held it; a definite failure lapses a
 * verified claim; a failed look-up changes only the last check. Returns the claim as it is now.
 */
export async function recordCheck(db: Database, actor: Actor | null, row: Row, outcome: CheckOutcome, now = new Date()): Promise<Row> {
  try {
    return await saveCheck(db, actor, row, outcome, now);
  } catch (err) {
    // Two organizations proved the same name at the same moment: the unique verified key let one through.
    if (isUniqueViolation(err)) throw new RyeError("CONFLICT", `${verifiedLabel(row.kind as VerificationKind, row.subject)} was verified by another organization at the same moment`, { hint: "Check again: the DNS record decides." });
    throw err;
  }
}

function saveCheck(db: Database, actor: Actor | null, row: Row, outcome: CheckOutcome, now: Date): Promise<Row> {
  const key = verifiedKeyOf(row.kind as VerificationKind, row.subject);
  return db.prisma.$transaction(async (tx) => {
    if (outcome.ok) {
      const holder = await tx.namespaceVerification.findUnique({ where: { verifiedKey: key } });
      if (holder && holder.id !== row.id) {
        await tx.namespaceVerification.update({ where: { id: holder.id }, data: { status: "lapsed", verifiedKey: null, lastError: "VERIFICATION_TRANSFERRED", lastCheckedAt: now } });
        await audit(tx, actor, holder.orgId, "verification.lost", { kind: row.kind, subject: row.subject, to_org: row.organization.name, reason: "proven by another organization" });
      }
      const updated = await tx.namespaceVerification.update({
        where: { id: row.id },
        data: { status: "verified", verifiedKey: key, verifiedAt: row.status === "verified" ? row.verifiedAt : now, lastCheckedAt: now, lastError: null },
        include,
      });
      if (row.status !== "verified") await audit(tx, actor, row.orgId, "verification.verified", { org: row.organization.name, kind: row.kind, subject: row.subject });
      return updated;
    }
    const lapse = outcome.definite && row.status === "verified";
    const updated = await tx.namespaceVerification.update({
      where: { id: row.id },
      data: { lastCheckedAt: now, lastError: outcome.code, ...(lapse ? { status: "lapsed", verifiedKey: null } : {}) },
      include,
    });
    if (lapse) await audit(tx, actor, row.orgId, "verification.lapsed", { org: row.organization.name, kind: row.kind, subject: row.subject, reason: outcome.code });
    return updated;
  });
}

/** The error a failed on-demand check answers with (after recordCheck saved it). */
export function checkError(row: Row, outcome: Extract<CheckOutcome, { ok: false }>): RyeError {
  const lapsed = row.status === "lapsed" && outcome.definite ? " — the verification lapsed" : "";
  return new RyeError(outcome.code, `${outcome.message}${lapsed}`, outcome.details === undefined ? {} : { details: outcome.details });
}

export async function listVerifications(db: Database, actor: Actor, orgName: string): Promise<Verification[]> {
  const { org } = await requireRole(db, actor, orgName, ["owner", "admin", "member"]);
  const canManage = await db.prisma.membership.count({ where: { orgId: org.id, userId: actor.userId, role: { in: [...MANAGERS] } } });
  const rows = await db.prisma.namespaceVerification.findMany({ where: { orgId: org.id }, include, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map((r) => verificationView(r, canManage > 0));
}

export async function removeVerification(db: Database, actor: Actor, orgName: string, id: string): Promise<{ removed: true }> {
  const { org } = await requireRole(db, actor, orgName, MANAGERS);
  const row = await findClaim(db, org, id);
  await db.prisma.$transaction(async (tx) => {
    await tx.namespaceVerification.delete({ where: { id: row.id } });
    await audit(tx, actor, org.id, "verification.remove", { org: org.name, kind: row.kind, subject: row.subject, was: row.status });
  });
  return { removed: true };
}

/**
 * Hands a verified subject to another organization: the caller must be an owner of this one and an owner or admin
 * of the receiving one. The challenge moves with it, so the DNS record in place keeps passing re-checks.
 */
export async function transferVerification(db: Database, actor: Actor, orgName: string, id: string, toOrgName: string): Promise<Verification> {
  const { org } = await requireRole(db, actor, orgName, ["owner"]);
  const row = await findClaim(db, org, id);
  if (row.status !== "verified") throw new RyeError("CONFLICT", `Only a verified name can be transferred; ${verifiedLabel(row.kind as VerificationKind, row.subject)} is ${row.status}`, { hint: "The receiving organization can start its own verification instead." });
  const { org: target } = await requireRole(db, actor, toOrgName, MANAGERS);
  if (target.id === org.id) throw new RyeError("BAD_REQUEST", "The claim already belongs to that organization");
  const moved = await db.prisma.$transaction(async (tx) => {
    await tx.namespaceVerification.deleteMany({ where: { orgId: target.id, kind: row.kind, subject: row.subject } });
    const updated = await tx.namespaceVerification.update({ where: { id: row.id }, data: { orgId: target.id, createdById: actor.userId }, include });
    await audit(tx, actor, org.id, "verification.transfer_out", { org: org.name, kind: row.kind, subject: row.subject, to_org: target.name });
    await audit(tx, actor, target.id, "verification.transfer_in", { org: target.name, kind: row.kind, subject: row.subject, from_org: org.name });
    return updated;
  });
  return verificationView(moved, true);
}

/** The verified names of a namespace (organizations only; users have none): public. */
export async function verifiedBadges(db: Database, namespaceName: string): Promise<VerifiedBadge[] | null> {
  const ns = await db.prisma.namespace.findUnique({ where: { name: namespaceName }, select: { orgId: true, userId: true } });
  if (!ns) return null;
  if (!ns.orgId) return [];
  const rows = await db.prisma.namespaceVerification.findMany({ where: { orgId: ns.orgId, status: "verified" }, orderBy: [{ kind: "asc" }, { subject: "asc" }] });
  return rows.map((r) => ({ kind: r.kind as VerificationKind, subject: r.subject, label: verifiedLabel(r.kind as VerificationKind, r.subject), verified_at: r.verifiedAt!.toISOString() }));
}

/** Verified DNS claims not checked for `intervalMs`, oldest first. */
export function dueForRecheck(db: Database, now: Date, intervalMs: number, limit: number): Promise<Row[]> {
  return db.prisma.namespaceVerification.findMany({
    where: { status: "verified", kind: "dns", OR: [{ lastCheckedAt: null }, { lastCheckedAt: { lt: new Date(now.getTime() - intervalMs) } }] },
    include,
    orderBy: [{ lastCheckedAt: { sort: "asc", nulls: "first" } }],
    take: limit,
  });
}
