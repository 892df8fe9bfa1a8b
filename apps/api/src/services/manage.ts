/**
 * Item management: visibility, yank/unyank, deprecation, deletion and transfer. Callers need the owner
 * or admin role in the item's namespace (or are registry admins). Each mutation runs in one transaction
 * that first locks the item row, then writes the change, an audit event and an item event (item-events.ts: a
 * publish-log entry, a digest only for a private item, and the namespace's webhook deliveries), so all land
 * together or not at all.
 *
 * Deletion policy: a version, or the whole item, may be deleted only while every version concerned was
 * published less than 72 hours ago AND the item was never downloaded (download_count = 0); otherwise
 * the answer is 409 CONFLICT with a hint to yank instead (yanked versions stay pullable by explicit
 * version, so nobody who depends on them breaks). `force` bypasses the policy and is reserved to
 * registry admins (403 for everyone else), e.g. for legal or malware takedowns. Deleting the last
 * version deletes the item. The publish log keeps the original publish entries and gains a delete entry.
 */
import type { RegistryItemRef, RegistryItemType } from "@rye/core";
import { parseRegistryRef, parseSemver, registryIdOf, RyeError } from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { requireManageAccess } from "./access.ts";
import { recordAudit } from "./audit.ts";
import { assertType } from "./item-type.ts";
import { type ItemEventKind, recordItemEvent } from "./item-events.ts";
import { refreshItemQuality } from "./quality.ts";
import { refreshSearchDocument } from "./search-document.ts";
import type { BlobStore } from "./blob-store.ts";
import { skillSearchText } from "./skills/search-text.ts";
import { tokenAllowsItem } from "./tokens.ts";
import { latestOf } from "./versions.ts";

export const DELETE_WINDOW_HOURS = 72;

export type Visibility = "public" | "unlisted" | "private";

export interface ManageContext {
  db: Database;
  /** The registry's blob store: a skill's search text is its SKILL.md. */
  blobs: BlobStore;
  principal: Principal;
  ip: string | null;
  requestId: string;
}

interface Target {
  type: RegistryItemType;
  ref: RegistryItemRef;
  itemId: string;
  namespaceId: string;
}

type Tx = Prisma.TransactionClient;

function assertTokenAllows(principal: Principal, itemId: string): void {
  if (!tokenAllowsItem(principal, itemId)) throw new RyeError("FORBIDDEN", `This token may only manage items matching ${principal.itemPattern}`);
}

/** The item behind `type` + id, after checking the caller may manage it (before looking it up, so nothing leaks to others). */
async function managedItem(ctx: ManageContext, typeParam: string, id: string): Promise<Target> {
  const type = assertType(typeParam);
  const ref = parseRegistryRef(type, id);
  assertTokenAllows(ctx.principal, ref.id);
  const access = await requireManageAccess(ctx.db, ctx.principal, ref.namespace);
  const item = await ctx.db.prisma.item.findUnique({
    where: { type_namespaceId_category_name: { type, namespaceId: access.namespace.id, category: ref.category, name: ref.name } },
    select: { id: true },
  });
  if (!item) throw itemNotFound(type, ref.id);
  return { type, ref, itemId: item.id, namespaceId: access.namespace.id };
}

/**
 * Runs `fn` in a transaction holding the item row lock, so concurrent management of one item is
 * serialized; an item deleted or moved to another namespace since `managedItem` is not found.
 */
async function mutate<T>(ctx: ManageContext, t: Target, fn: (tx: Tx, visibility: Visibility) => Promise<T>): Promise<T> {
  return ctx.db.prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string; visibility: Visibility }[]>`
      SELECT id, visibility::text AS visibility FROM items WHERE id = ${t.itemId}::uuid AND namespace_id = ${t.namespaceId}::uuid FOR UPDATE`;
    if (!locked[0]) throw itemNotFound(t.type, t.ref.id);
    return fn(tx, locked[0].visibility);
  });
}

function audit(tx: Tx, ctx: ManageContext, t: Target, action: string, details: Record<string, unknown>, version?: string): Promise<void> {
  return recordAudit(tx, {
    actorId: ctx.principal.userId,
    action,
    targetType: "item",
    targetId: `${t.type}/${t.ref.id}${version ? `@${version}` : ""}`,
    details,
    ip: ctx.ip,
    requestId: ctx.requestId,
  });
}

/** `visibility`: the item's at the time of the event (a private item's events are logged as a digest). */
function itemEvent(tx: Tx, ctx: ManageContext, t: Target, visibility: Visibility, kind: ItemEventKind, details: Record<string, unknown>) {
  return recordItemEvent(tx, {
    kind,
    namespaceId: t.namespaceId,
    visibility,
    subject: { kind: "item", item_type: t.type, id: t.ref.id, ...details, actor: ctx.principal.username },
  });
}

/** Recomputes `latest_version` (highest non-yanked) and, when it changed, the search document from its content. */
async function refreshLatest(tx: Tx, blobs: BlobStore, itemId: string): Promise<string | null> {
  // The stored quality score counts yanked versions and follows "latest" (docs/quality.md).
  await refreshItemQuality(tx, itemId);
  const item = await tx.item.findUniqueOrThrow({ where: { id: itemId }, select: { latestVersion: true, held: true, versions: { select: { version: true, yanked: true, status: true } } } });
  const latest = latestOf(item.versions);
  // Held: no version is published any more (e.g. the published ones were deleted and only held ones remain).
  const held = !item.versions.some((v) => v.status === "published");
  if (held !== item.held) await tx.item.update({ where: { id: itemId }, data: { held } });
  if (latest === item.latestVersion) return latest;
  await tx.item.update({ where: { id: itemId }, data: { latestVersion: latest } });
  if (latest) {
    const row = await tx.itemVersion.findUniqueOrThrow({ where: { itemId_version: { itemId, version: latest } }, select: { content: true, skillArtifacts: true } });
    // A skill's content is its manifest; it is found by its SKILL.md, as on publish.
    await refreshSearchDocument(tx, itemId, row.skillArtifacts ? await skillSearchText(tx, blobs, row.content) : row.content);
  }
  return latest;
}

function itemNotFound(type: RegistryItemType, id: string): RyeError {
  return new RyeError("ITEM_NOT_FOUND", `${type} ${id} not found`);
}

function assertVersion(version: string): void {
  if (!parseSemver(version)) throw new RyeError("INVALID_VERSION", `${JSON.stringify(version)} is not a semantic version`);
}

async function findVersion(tx: Tx, t: Target, version: string) {
  const row = await tx.itemVersion.findUnique({ where: { itemId_version: { itemId: t.itemId, version } } });
  if (!row) throw new RyeError("ITEM_NOT_FOUND", `${t.type} ${t.ref.id}@${version} not found`, { hint: "GET /v1/items/{item_type}/{item_id} lists the versions." });
  return row;
}

export async function setVisibility(ctx: ManageContext, typeParam: string, id: string, visibility: Visibility) {
  const t = await managedItem(ctx, typeParam, id);
  return mutate(ctx, t, async (tx, previous) => {
    await tx.item.update({ where: { id: t.itemId }, data: { visibility } });
    // Announced in clear: the item was or becomes public, and mirrors must drop or pick it up.
    const entry = previous === visibility ? null : await itemEvent(tx, ctx, t, "public", "visibility", { from: previous, to: visibility });
    await audit(tx, ctx, t, "item.visibility", { from: previous, to: visibility, ...(entry ? { log_index: entry.index } : {}) });
    return { status: "updated" as const, item_type: t.type, item_id: t.ref.id, visibility, previous_visibility: previous };
  });
}

/** Yanks (`reason` optional) or unyanks one version; `latest` moves to the highest non-yanked version. */
export async function setYanked(ctx: ManageContext, typeParam: string, id: string, version: string, yanked: boolean, reason?: string) {
  const t = await managedItem(ctx, typeParam, id);
  assertVersion(version);
  return mutate(ctx, t, async (tx, visibility) => {
    const row = await findVersion(tx, t, version);
    if (row.status !== "published") {
      throw new RyeError("CONFLICT", `${t.ref.id}@${version} is ${row.status === "pending" ? "held for approval" : "rejected"}, not published`, {
        hint: row.status === "pending" ? "Approve or reject it (POST /v1/approve|reject/{item_type}/{item_id})." : "A rejected version stays invisible; nothing to yank.",
        details: { status: row.status },
      });
    }
    if (row.yanked === yanked) {
      throw new RyeError("CONFLICT", `${t.ref.id}@${version} is ${yanked ? "already" : "not"} yanked`, {
        hint: yanked ? "Nothing to do; unyank with POST /v1/unyank/{item_type}/{item_id}." : "Nothing to do.",
      });
    }
    await tx.itemVersion.update({
      where: { id: row.id },
      data: yanked ? { yanked: true, yankedReason: reason ?? null, yankedAt: new Date() } : { yanked: false, yankedReason: null, yankedAt: null },
    });
    const latest = await refreshLatest(tx, ctx.blobs, t.itemId);
    const entry = await itemEvent(tx, ctx, t, visibility, yanked ? "yank" : "unyank", { version, ...(yanked ? { reason: reason ?? null } : {}) });
    await audit(tx, ctx, t, yanked ? "item.yank" : "item.unyank", { log_index: entry.index, ...(yanked ? { reason: reason ?? null } : {}) }, version);
    return {
      status: yanked ? ("yanked" as const) : ("unyanked" as const),
      item_type: t.type,
      item_id: t.ref.id,
      version,
      ...(yanked ? { reason: reason ?? null } : {}),
      latest_version: latest,
      log_index: entry.index,
    };
  });
}

/** Deprecates with a message, or (`message` null) undoes the deprecation. Deprecated items stay installable and listed. */
export async function setDeprecation(ctx: ManageContext, typeParam: string, id: string, message: string | null) {
  const t = await managedItem(ctx, typeParam, id);
  return mutate(ctx, t, async (tx, visibility) => {
    await tx.item.update({ where: { id: t.itemId }, data: { deprecated: message !== null, deprecationMessage: message } });
    const entry = await itemEvent(tx, ctx, t, visibility, message === null ? "undeprecate" : "deprecate", message === null ? {} : { message });
    await audit(tx, ctx, t, message === null ? "item.undeprecate" : "item.deprecate", { message, log_index: entry.index });
    return {
      status: message === null ? ("undeprecated" as const) : ("deprecated" as const),
      item_type: t.type,
      item_id: t.ref.id,
      deprecated: message !== null,
      deprecation_message: message,
    };
  });
}

/** Deletes one version, or all (`version` undefined), under the policy described at the top of this module. */
export async function deleteItem(ctx: ManageContext, typeParam: string, id: string, options: { version?: string | undefined; force: boolean }) {
  if (options.force && !ctx.principal.isAdmin) {
    throw new RyeError("FORBIDDEN", "force=true is reserved to registry administrators", { hint: "Yank the version instead, or ask a registry administrator." });
  }
  const t = await managedItem(ctx, typeParam, id);
  if (options.version !== undefined) assertVersion(options.version);
  return mutate(ctx, t, async (tx, visibility) => {
    const item = await tx.item.findUniqueOrThrow({ where: { id: t.itemId }, select: { downloadCount: true, versions: { select: { id: true, version: true, createdAt: true } } } });
    const targets = options.version === undefined ? item.versions : [await findVersion(tx, t, options.version)];
    if (!options.force) assertDeletable(t, item.downloadCount, targets, options.version);
    const deleted = targets.map((v) => v.version);
    if (targets.length === item.versions.length) await tx.item.delete({ where: { id: t.itemId } });
    else {
      await tx.itemVersion.deleteMany({ where: { id: { in: targets.map((v) => v.id) } } });
      await refreshLatest(tx, ctx.blobs, t.itemId);
    }
    const entry = await itemEvent(tx, ctx, t, visibility, "delete", { version: options.version ?? "all", versions: deleted, forced: options.force });
    await audit(tx, ctx, t, "item.delete", { versions: deleted, forced: options.force, log_index: entry.index }, options.version);
    return { status: "deleted" as const, item_type: t.type, item_id: t.ref.id, version: options.version ?? "all", deleted_versions: deleted };
  });
}

function assertDeletable(t: Target, downloadCount: number, versions: { version: string; createdAt: Date }[], version: string | undefined): void {
  const cutoff = Date.now() - DELETE_WINDOW_HOURS * 3600_000;
  const old = versions.filter((v) => v.createdAt.getTime() <= cutoff).map((v) => v.version);
  if (downloadCount === 0 && old.length === 0) return;
  const why = downloadCount > 0 ? `it has been downloaded ${downloadCount} time(s)` : `${old.join(", ")} was published more than ${DELETE_WINDOW_HOURS} hours ago`;
  throw new RyeError("CONFLICT", `${t.ref.id}${version ? `@${version}` : ""} can no longer be deleted: ${why}`, {
    hint: `Yank it instead (POST /v1/yank/${t.type}/${t.ref.id} with {"version": …}): yanked versions stay pullable by explicit version, so dependents keep working.`,
    details: { download_count: downloadCount, published_before_window: old, window_hours: DELETE_WINDOW_HOURS },
  });
}

/**
 * Moves an item to another namespace (user ↔ organization, or any two the caller manages). The item id
 * changes; its versions keep their signed content, whose provenance (`|rye-registry@<publisher>`) and
 * attestations still name the original publisher and id.
 */
export async function transferItem(ctx: ManageContext, typeParam: string, id: string, toNamespace: string) {
  const t = await managedItem(ctx, typeParam, id);
  const to = await requireManageAccess(ctx.db, ctx.principal, toNamespace.toLowerCase());
  if (to.namespace.id === t.namespaceId) throw new RyeError("BAD_REQUEST", `${t.ref.id} already belongs to ${to.namespace.name}`);
  const newId = registryIdOf(to.namespace.name, t.ref.category, t.ref.name);
  assertTokenAllows(ctx.principal, newId);
  const taken = () => new RyeError("CONFLICT", `${to.namespace.name} already has ${t.type} ${newId}`, { hint: "Delete, rename or transfer that item first." });
  try {
    return await mutate(ctx, t, async (tx, visibility) => {
      const clash = await tx.item.findUnique({
        where: { type_namespaceId_category_name: { type: t.type, namespaceId: to.namespace.id, category: t.ref.category, name: t.ref.name } },
        select: { id: true },
      });
      if (clash) throw taken();
      await tx.item.update({ where: { id: t.itemId }, data: { namespaceId: to.namespace.id } });
      const entry = await recordItemEvent(tx, {
        kind: "transfer",
        namespaceId: t.namespaceId,
        alsoNotifyNamespaceId: to.namespace.id,
        visibility,
        subject: { kind: "item", item_type: t.type, id: t.ref.id, to: newId, actor: ctx.principal.username },
      });
      await audit(tx, ctx, t, "item.transfer", { from: t.ref.id, to: newId, log_index: entry.index });
      return { status: "transferred" as const, item_type: t.type, item_id: newId, previous_item_id: t.ref.id, namespace: to.namespace.name, previous_namespace: t.ref.namespace };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}
