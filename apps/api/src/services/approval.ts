/**
 * Approval of new versions (docs/registry-approval.md). The registry setting RYE_REGISTRY_APPROVAL decides which
 * pushed item and skill versions are held: `off` (default) none, `flagged` those whose publish-time review risk is
 * at least RYE_REGISTRY_APPROVAL_RISK (default high), `all` every one. A held version is stored, signed and attested
 * like any other, with status `pending`: invisible (not pullable, in no search, version list, "latest", discovery
 * index, website page or stats) to everyone but the namespace's owners/admins and the registry's admins, until
 *
 *   - approved (POST /v1/approve/{item_type}/{item_id}): it becomes `published`, and "latest" if it is the newest;
 *     the publish log gains an `approve` entry;
 *   - rejected (POST /v1/reject/{item_type}/{item_id}, a reason required): it becomes `rejected` and stays invisible
 *     for good; it is kept (for the audit trail) and its version number stays taken — versions are immutable.
 *
 * Who decides: for an organization's namespace its owners and admins, for a personal namespace the registry's admins
 * only (a user approving their own push would defeat the point); registry admins may decide anywhere. Nobody
 * approves a version they published themselves (SELF_APPROVAL); they may reject (withdraw) it if they may decide.
 * Every decision writes an audit event (item.approve / item.reject: who, when, which version, the reason).
 */
import type { RegistryItemType, Risk } from "@rye/core";
import { atLeast, parseItem, parseRegistryRef, parseSemver, parseSkillManifest, registryIdOf, RyeError, stripSignature } from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import type { ApprovalMode, RegistryConfig } from "../config.ts";
import { lookupName } from "../auth/usernames.ts";
import type { Actor } from "./accounts.ts";
import { namespaceAccess, readerStanding } from "./access.ts";
import { recordAudit } from "./audit.ts";
import { assertType } from "./item-type.ts";
import type { ManageContext } from "./manage.ts";
import { recordItemEvent } from "./item-events.ts";
import { refreshItemQuality } from "./quality.ts";
import { refreshSearchDocument } from "./search-document.ts";
import type { BlobStore } from "./blob-store.ts";
import { skillSearchText } from "./skills/search-text.ts";
import { tokenAllowsItem } from "./tokens.ts";
import { latestOf } from "./versions.ts";

export type VersionStatus = "published" | "pending" | "rejected";

const STRICTNESS: readonly ApprovalMode[] = ["off", "flagged", "all"];

/** The stricter of two approval modes. */
export function stricter(a: ApprovalMode, b: ApprovalMode | null | undefined): ApprovalMode {
  return b && STRICTNESS.indexOf(b) > STRICTNESS.indexOf(a) ? b : a;
}

/**
 * The approval setting that applies to a push into `namespace`: the registry's, made stricter by the organization's
 * own setting (PATCH /v1/orgs/{name}/approval) when it has one. An organization cannot loosen the registry's setting.
 */
export async function approvalFor(db: Database | Prisma.TransactionClient, registry: RegistryConfig["approval"], namespace: { orgId: string | null }): Promise<RegistryConfig["approval"]> {
  if (!namespace.orgId) return registry;
  const client = "prisma" in db ? db.prisma : db;
  const org = await client.organization.findUnique({ where: { id: namespace.orgId }, select: { approvalMode: true } });
  return { mode: stricter(registry.mode, org?.approvalMode), risk: registry.risk };
}

/** An organization's approval setting, its registry's and the one that applies (any member may read it). */
export async function orgApproval(db: Database, registry: RegistryConfig["approval"], actor: Actor, orgName: string) {
  const { org } = await orgWithRole(db, actor, orgName, ["owner", "admin", "member"]);
  return approvalView(org.name, org.approvalMode, registry);
}

/**
 * Sets an organization's own approval setting (owners only; audited as org.approval). `off` clears it: the registry's
 * setting applies. It can only make the registry's setting stricter, never looser.
 */
export async function setOrgApproval(db: Database, registry: RegistryConfig["approval"], actor: Actor, orgName: string, mode: ApprovalMode) {
  const { org } = await orgWithRole(db, actor, orgName, ["owner"]);
  const stored = mode === "off" ? null : mode;
  await db.prisma.$transaction(async (tx) => {
    await tx.organization.update({ where: { id: org.id }, data: { approvalMode: stored } });
    await recordAudit(tx, {
      actorId: actor.userId,
      action: "org.approval",
      targetType: "organization",
      targetId: org.id,
      details: { org: org.name, from: org.approvalMode ?? "off", to: stored ?? "off" },
      ip: actor.ip,
      requestId: actor.requestId,
    });
  });
  return approvalView(org.name, stored, registry);
}

function approvalView(org: string, own: ApprovalMode | null, registry: RegistryConfig["approval"]) {
  return { org, mode: own ?? ("off" as const), registry_mode: registry.mode, effective_mode: stricter(registry.mode, own), risk: registry.risk };
}

async function orgWithRole(db: Database, actor: Actor, name: string, roles: readonly string[]) {
  const key = lookupName(name);
  const org = key ? await db.prisma.organization.findUnique({ where: { name: key } }) : null;
  if (!org) throw new RyeError("NOT_FOUND", `No organization named ${name}`);
  if (actor.token?.namespace && actor.token.namespace !== org.name) throw forbidden(`This token is restricted to the ${actor.token.namespace} namespace`, "Use a token that is not restricted to another namespace.");
  const role = (await db.prisma.membership.findUnique({ where: { orgId_userId: { orgId: org.id, userId: actor.userId } }, select: { role: true } }))?.role ?? null;
  if (!role || !roles.includes(role)) throw forbidden(`This needs the ${roles.join(" or ")} role in ${org.name}`, "Ask an owner of the organization.");
  return { org, role };
}

/** Why a new version is held under `approval`, or null when it is published at once. */
export function holdReason(approval: RegistryConfig["approval"], review: { risk: Risk } | null): string | null {
  if (approval.mode === "all") return "all";
  if (approval.mode === "flagged" && review && review.risk !== "none" && atLeast(review.risk, approval.risk)) return `flagged: ${review.risk}`;
  return null;
}

/**
 * What a push answers about approval (`status` "published" or "held") and the publish-time review itself (risk and
 * up to 50 findings, each with file, line and family), so the publisher sees what was flagged whether or not it held.
 */
export function approvalAnswer<R extends { risk: Risk; findings: unknown[] }>(heldReason: string | null, review: R | null) {
  if (heldReason === null) return { status: "published" as const, approval: null, review };
  return {
    review,
    status: "held" as const,
    approval: {
      status: "pending" as const,
      reason: heldReason,
      review: review ? { risk: review.risk, findings: review.findings.length } : null,
      message: "held for approval: invisible until an owner or admin of the namespace (or a registry admin) approves it",
    },
  };
}

/**
 * Whether the caller sees held (pending or rejected) versions of a namespace: its owners and admins (the owner of a
 * personal namespace too: seeing is not approving) and registry admins, with a token that may read.
 */
export async function canSeeHeld(db: Database, principal: Principal | null, namespaceName: string): Promise<boolean> {
  const standing = await readerStanding(db, principal, namespaceName);
  return standing === "registry-admin" || standing === "owner" || standing === "admin";
}

/** A lazily computed, memoized canSeeHeld for one request. */
export function heldViewer(db: Database, principal: Principal | null, namespaceName: string): () => Promise<boolean> {
  let value: Promise<boolean> | undefined;
  return () => (value ??= canSeeHeld(db, principal, namespaceName));
}

function forbidden(message: string, hint: string): RyeError {
  return new RyeError("FORBIDDEN", message, { hint });
}

/** Who may approve or reject in this namespace (see the top of this module); throws FORBIDDEN otherwise. */
async function requireApprover(db: Database, principal: Principal, namespaceName: string) {
  const access = await namespaceAccess(db, principal, namespaceName);
  if (!access) throw new RyeError("NOT_FOUND", `Namespace ${namespaceName} does not exist`);
  if (principal.namespace && principal.namespace !== access.namespace.name) {
    throw forbidden(`This token may only act on the ${principal.namespace} namespace`, "Use a token that is not restricted to another namespace.");
  }
  if (principal.isAdmin) return access;
  if (access.namespace.orgId === null) {
    throw forbidden(`Versions held in the personal namespace ${access.namespace.name} are approved by the registry's administrators`, "Ask a registry administrator to review it.");
  }
  if (access.role !== "owner" && access.role !== "admin") {
    throw forbidden(`Approving versions of ${access.namespace.name} needs the owner or admin role in the organization`, "Ask an owner or admin of the organization to review it.");
  }
  return access;
}

export interface DecisionInput {
  version: string;
  reason?: string | undefined;
}

/** Approves or rejects one pending version. */
export async function decideVersion(ctx: ManageContext, typeParam: string, id: string, decision: "approve" | "reject", input: DecisionInput) {
  const type = assertType(typeParam);
  const ref = parseRegistryRef(type, id);
  if (!parseSemver(input.version)) throw new RyeError("INVALID_VERSION", `${JSON.stringify(input.version)} is not a semantic version`);
  if (!tokenAllowsItem(ctx.principal, ref.id)) throw forbidden(`This token may only act on items matching ${ctx.principal.itemPattern}`, "Use a token without an item pattern.");
  if (decision === "reject" && !input.reason) throw new RyeError("BAD_REQUEST", "A rejection needs a reason", { hint: 'Send {"version": …, "reason": "why"} (rye registry reject … --reason <text>).' });
  // Authorization first, so nobody else learns whether a held version exists.
  const access = await requireApprover(ctx.db, ctx.principal, ref.namespace);
  const notFound = () =>
    new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}@${input.version} not found`, { hint: "GET /v1/approvals lists the versions held for approval (rye registry pending)." });
  return ctx.db.prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM items WHERE type = ${type}::item_type AND namespace_id = ${access.namespace.id}::uuid AND category = ${ref.category} AND name = ${ref.name} FOR UPDATE`;
    const itemId = locked[0]?.id;
    if (!itemId) throw notFound();
    const row = await tx.itemVersion.findUnique({ where: { itemId_version: { itemId, version: input.version } }, include: { publisher: { select: { username: true } } } });
    if (!row) throw notFound();
    if (row.status !== "pending") {
      throw new RyeError("CONFLICT", `${ref.id}@${input.version} is not pending approval (it is ${row.status})`, {
        hint: row.status === "rejected" ? "A rejection is final; publish a new version." : "Nothing to do: it is already visible.",
        details: { status: row.status },
      });
    }
    if (decision === "approve" && row.publisherId === ctx.principal.userId) {
      throw new RyeError("SELF_APPROVAL", `You published ${ref.id}@${input.version}; someone else must approve it`);
    }
    const decidedAt = new Date();
    await tx.itemVersion.update({
      where: { id: row.id },
      data: { status: decision === "approve" ? "published" : "rejected", decidedById: ctx.principal.userId, decidedAt, decisionReason: input.reason ?? null },
    });
    let latest: string | null = null;
    let logIndex: number | null = null;
    if (decision === "approve") {
      latest = await publishApproved(tx, ctx.blobs, itemId, type, ref, row.version, row.content);
      const item = await tx.item.findUniqueOrThrow({ where: { id: itemId }, select: { visibility: true } });
      const entry = await recordItemEvent(tx, {
        kind: "approve",
        namespaceId: access.namespace.id,
        visibility: item.visibility,
        subject: { kind: "item", item_type: type, id: ref.id, version: row.version, file_sha256: row.fileSha256, actor: ctx.principal.username },
        // The key that signed the held version; the credential that pushed it is in its (digest) publish entry only.
        attribution: { author_key: row.authorFingerprint },
      });
      logIndex = entry.index;
    } else {
      latest = (await tx.item.findUniqueOrThrow({ where: { id: itemId }, select: { latestVersion: true } })).latestVersion;
    }
    await recordAudit(tx, {
      actorId: ctx.principal.userId,
      action: decision === "approve" ? "item.approve" : "item.reject",
      targetType: "item",
      targetId: `${type}/${ref.id}@${row.version}`,
      details: { reason: input.reason ?? null, held_reason: row.heldReason, publisher: row.publisher.username, ...(logIndex !== null ? { log_index: logIndex } : {}) },
      ip: ctx.ip,
      requestId: ctx.requestId,
    });
    return {
      status: decision === "approve" ? ("approved" as const) : ("rejected" as const),
      item_type: type,
      item_id: ref.id,
      version: row.version,
      version_status: decision === "approve" ? ("published" as const) : ("rejected" as const),
      reason: input.reason ?? null,
      decided_by: ctx.principal.username,
      decided_at: decidedAt.toISOString(),
      latest_version: latest,
      log_index: logIndex,
    };
  });
}

/** After an approval: the item is no longer held; "latest" moves to the approved version when it is the newest. */
async function publishApproved(tx: Prisma.TransactionClient, blobs: BlobStore, itemId: string, type: RegistryItemType, ref: { name: string; category: string }, version: string, content: string): Promise<string | null> {
  const item = await tx.item.findUniqueOrThrow({ where: { id: itemId }, select: { latestVersion: true, fileExtension: true, versions: { select: { version: true, yanked: true, status: true } } } });
  const latest = latestOf(item.versions);
  const data: Prisma.ItemUpdateInput = { held: false, latestVersion: latest };
  if (latest === version && latest !== item.latestVersion) {
    // The item's description (and a tool's type) are the latest version's, as on publish.
    if (type === "skill") data.description = parseSkillManifest(content).skill.description.slice(0, 2000);
    else {
      const extension = item.fileExtension ?? ".md";
      const parsed = parseItem(stripSignature(content, type), type, { path: `${ref.name}${extension}`, location: { stem: ref.name, category: ref.category } });
      if (parsed.summary.description) data.description = parsed.summary.description.slice(0, 2000);
      if (type === "tool") data.toolType = parsed.summary.toolType ?? null;
    }
  }
  await tx.item.update({ where: { id: itemId }, data });
  await refreshItemQuality(tx, itemId);
  if (latest === version && latest !== item.latestVersion) await refreshSearchDocument(tx, itemId, type === "skill" ? await skillSearchText(tx, blobs, content) : content);
  return latest;
}

export interface HeldListing {
  item_type: RegistryItemType;
  item_id: string;
  namespace: string;
  version: string;
  status: VersionStatus;
  held_reason: string | null;
  review: unknown;
  publisher: string;
  created_at: string;
  visibility: string;
  can_approve: boolean;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
}

export const MAX_HELD_LISTING = 200;

/**
 * The versions held in the namespaces the caller sees held versions of (all of them for a registry admin), oldest
 * first: pending ones, or rejected ones with `status: "rejected"`. `namespace` narrows to one (FORBIDDEN unless the
 * caller sees its held versions).
 */
export async function listHeldVersions(db: Database, principal: Principal, options: { namespace?: string | undefined; status: "pending" | "rejected" }) {
  if (!principal.scopes.includes("items:read")) throw forbidden("Listing held versions needs the items:read scope", "Use a token with items:read.");
  const memberships = principal.isAdmin
    ? []
    : await db.prisma.membership.findMany({
        // A remote MCP client has no role in organizations that forbid those (services/access.ts namespaceAccess).
        where: { userId: principal.userId, role: { in: ["owner", "admin"] }, ...(principal.remoteMcp ? { organization: { allowRemoteMcp: true } } : {}) },
        select: { orgId: true },
      });
  const managedOrgs = new Set(memberships.map((m) => m.orgId));
  let namespaceFilter: Prisma.NamespaceWhereInput | undefined;
  if (options.namespace !== undefined) {
    const name = options.namespace.toLowerCase();
    const ns = await db.prisma.namespace.findUnique({ where: { name } });
    if (!ns) throw new RyeError("NOT_FOUND", `Namespace ${options.namespace} does not exist`);
    if (!principal.isAdmin && ns.userId !== principal.userId && !(ns.orgId && managedOrgs.has(ns.orgId))) {
      throw forbidden(`Only the owners and admins of ${ns.name} and registry admins see its held versions`, "Ask an owner of the organization for the admin role.");
    }
    namespaceFilter = { id: ns.id };
  } else if (!principal.isAdmin) {
    namespaceFilter = { OR: [{ userId: principal.userId }, { orgId: { in: [...managedOrgs] } }] };
  }
  const rows = await db.prisma.itemVersion.findMany({
    where: { status: options.status, ...(namespaceFilter ? { item: { namespace: namespaceFilter } } : {}) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_HELD_LISTING,
    include: { publisher: { select: { username: true } }, item: { select: { type: true, category: true, name: true, visibility: true, namespace: { select: { name: true, orgId: true } } } } },
  });
  const deciders = [...new Set(rows.map((r) => r.decidedById).filter((x): x is string => x !== null))];
  const names = new Map((await db.prisma.user.findMany({ where: { id: { in: deciders } }, select: { id: true, username: true } })).map((u) => [u.id, u.username]));
  const versions: HeldListing[] = rows.map((r) => {
    const ns = r.item.namespace;
    const decider = principal.isAdmin || (ns.orgId !== null && managedOrgs.has(ns.orgId));
    return {
      item_type: r.item.type,
      item_id: registryIdOf(ns.name, r.item.category, r.item.name),
      namespace: ns.name,
      version: r.version,
      status: r.status,
      held_reason: r.heldReason,
      review: r.review ?? null,
      publisher: r.publisher.username,
      created_at: r.createdAt.toISOString(),
      visibility: r.item.visibility,
      can_approve: r.status === "pending" && decider && r.publisherId !== principal.userId,
      decided_by: r.decidedById ? (names.get(r.decidedById) ?? null) : null,
      decided_at: r.decidedAt?.toISOString() ?? null,
      reason: r.decisionReason,
    };
  });
  return { versions, truncated: rows.length === MAX_HELD_LISTING };
}
