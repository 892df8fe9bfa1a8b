/**
 * Relations between items (issue #17, item 4). At publish, the references an item version makes in its own
 * file (@rye/core itemReferences: a directive's <execute>/<load>, a tool's executor_id) are stored and resolved
 * to registry items; a reference to an item that is published later is resolved when that item first appears.
 * Reading answers "uses" (one version's references, each resolved as the caller may see it) and "used by" (items
 * whose latest version uses this one and that the caller may see: private and held items stay hidden).
 */
import type { ItemReference, ItemRelations, RegistryItemType } from "@rye/core";
import { MAX_USED_BY, parseRegistryItemId, registryCandidates, registryIdOf, RyeError, SYSTEM_REGISTRY_NAMESPACE } from "@rye/core";
import type { Database, ItemType as DbItemType, Prisma } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { findReadableItem } from "./items.ts";

type Tx = Prisma.TransactionClient;

interface Coordinates {
  namespace: string;
  category: string;
  name: string;
}

function coordinatesOf(id: string): Coordinates | null {
  try {
    const ref = parseRegistryItemId(id);
    return { namespace: ref.namespace, category: ref.category, name: ref.name };
  } catch {
    return null;
  }
}

/** Each reference's registry item id (first candidate that exists, any visibility), or null: one query for all. */
async function resolveTargets(tx: Tx, refs: ItemReference[]): Promise<(string | null)[]> {
  const wanted = refs.flatMap((ref) => registryCandidates(ref.id).flatMap((id) => {
    const c = coordinatesOf(id);
    return c ? [{ type: ref.type, ...c }] : [];
  }));
  if (wanted.length === 0) return refs.map(() => null);
  const found = await tx.$queryRaw<{ id: string; type: string; namespace: string; category: string; name: string }[]>`
    SELECT i.id::text AS id, i.type::text AS type, n.name AS namespace, i.category, i.name
    FROM unnest(${wanted.map((w) => w.type)}::text[], ${wanted.map((w) => w.namespace)}::text[], ${wanted.map((w) => w.category)}::text[], ${wanted.map((w) => w.name)}::text[])
      AS w(type, namespace, category, name)
    JOIN namespaces n ON n.name = w.namespace
    JOIN items i ON i.namespace_id = n.id AND i.type = w.type::item_type AND i.category = w.category AND i.name = w.name`;
  const byKey = new Map(found.map((item) => [`${item.type}:${registryIdOf(item.namespace, item.category, item.name)}`, item.id]));
  return refs.map((ref) => {
    for (const id of registryCandidates(ref.id)) {
      const hit = byKey.get(`${ref.type}:${id}`);
      if (hit) return hit;
    }
    return null;
  });
}

/** Stores what a new version uses (inside the publish transaction). */
export async function storeRelations(tx: Tx, versionId: string, refs: ItemReference[]): Promise<void> {
  if (refs.length === 0) return;
  const targets = await resolveTargets(tx, refs);
  await tx.itemRelation.createMany({
    data: refs.map((ref, position) => ({
      versionId,
      position,
      kind: ref.kind,
      targetType: ref.type,
      targetRef: ref.id,
      targetVersion: ref.version ?? null,
      targetItemId: targets[position] ?? null,
    })),
  });
}

/**
 * Points earlier references at an item that is (re)published: those naming its exact id always (a reference
 * resolves to its own id before the system bundle's copy), and, for the system namespace, those naming the id
 * without `rye/` that resolve to nothing yet.
 */
export async function claimRelations(tx: Tx, item: { id: string; type: DbItemType }, registryId: string): Promise<void> {
  await tx.itemRelation.updateMany({ where: { targetType: item.type, targetRef: registryId, NOT: { targetItemId: item.id } }, data: { targetItemId: item.id } });
  await tx.itemRelation.updateMany({ where: { targetType: item.type, targetRef: registryId, targetItemId: null }, data: { targetItemId: item.id } });
  const prefix = `${SYSTEM_REGISTRY_NAMESPACE}/`;
  if (registryId.startsWith(prefix)) {
    await tx.itemRelation.updateMany({ where: { targetType: item.type, targetRef: registryId.slice(prefix.length), targetItemId: null }, data: { targetItemId: item.id } });
  }
}

/**
 * Namespaces whose private and held items the caller sees: `members` (null: all of them, a registry admin) minus
 * `except` (a registry admin reading through a remote MCP client: the namespaces of organizations that forbid those).
 */
interface Sight {
  members: Set<string> | null;
  except: Set<string>;
}

async function visibleNamespaces(db: Database, principal: Principal | null): Promise<Sight> {
  if (!principal || !principal.scopes.includes("items:read")) return { members: new Set(), except: new Set() };
  if (principal.isAdmin) {
    if (!principal.remoteMcp) return { members: null, except: new Set() };
    const rows = await db.prisma.namespace.findMany({ where: { organization: { allowRemoteMcp: false } }, select: { id: true } });
    return { members: null, except: new Set(rows.map((r) => r.id)) };
  }
  const rows = await db.prisma.namespace.findMany({
    where: {
      OR: [
        { userId: principal.userId },
        // A remote MCP client has no role in organizations that forbid those (services/access.ts namespaceAccess).
        { organization: { memberships: { some: { userId: principal.userId } }, ...(principal.remoteMcp ? { allowRemoteMcp: true } : {}) } },
      ],
    },
    select: { id: true },
  });
  return { members: new Set(rows.map((r) => r.id)), except: new Set() };
}

function seesInto(sight: Sight, namespaceId: string): boolean {
  return !sight.except.has(namespaceId) && (sight.members === null || sight.members.has(namespaceId));
}

function visibleTo(sight: Sight, item: { namespaceId: string; visibility: string; held: boolean }): boolean {
  if (seesInto(sight, item.namespaceId)) return true;
  return item.visibility !== "private" && !item.held;
}

/** "Used by" is a listing: unlisted items appear only to their members, like private ones. */
function listedTo(sight: Sight, item: { namespaceId: string; visibility: string; held: boolean }): boolean {
  if (seesInto(sight, item.namespaceId)) return true;
  return item.visibility === "public" && !item.held;
}

/** GET /v1/relations/{type}/{id}[?version=]: the version's uses and the item's users, as the caller may see them. */
export async function itemRelations(db: Database, principal: Principal | null, typeParam: string, id: string, requested: string | undefined): Promise<ItemRelations> {
  const { type, ref, item, seesHeld } = await findReadableItem(db, principal, typeParam, id);
  const versionName = requested ?? item.latestVersion ?? null;
  const version = versionName === null ? null : await db.prisma.itemVersion.findUnique({ where: { itemId_version: { itemId: item.id, version: versionName } }, select: { id: true, version: true, status: true } });
  if (requested && (!version || (version.status !== "published" && !(await seesHeld())))) {
    throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}@${requested} not found`, { hint: `List the versions: GET /v1/items/${type}/${ref.id}` });
  }
  const sight = await visibleNamespaces(db, principal);
  const uses = version ? await usesOf(db, version.id, sight) : [];
  const users = await usersOf(db, item.id, sight);
  return {
    item_type: type as RegistryItemType,
    item_id: ref.id,
    version: version?.version ?? null,
    uses,
    used_by: users.slice(0, MAX_USED_BY),
    used_by_total: users.length,
    warnings: uses.flatMap(useWarnings),
  };
}

async function usesOf(db: Database, versionId: string, sight: Sight): Promise<ItemRelations["uses"]> {
  const rows = await db.prisma.itemRelation.findMany({
    where: { versionId },
    orderBy: { position: "asc" },
    include: {
      targetItem: {
        select: {
          namespaceId: true, visibility: true, held: true, category: true, name: true, latestVersion: true, deprecated: true, deprecationMessage: true,
          namespace: { select: { name: true } },
          versions: { select: { version: true, yanked: true, status: true } },
        },
      },
    },
  });
  return rows.map((row) => {
    const target = row.targetItem && visibleTo(sight, row.targetItem) ? row.targetItem : null;
    const wanted = row.targetVersion ?? target?.latestVersion ?? null;
    const wantedRow = target?.versions.find((v) => v.version === wanted && (v.status === "published" || seesInto(sight, target.namespaceId)));
    return {
      kind: row.kind as ItemRelations["uses"][number]["kind"],
      item_type: row.targetType,
      reference: row.targetRef,
      requested_version: row.targetVersion,
      resolved: target
        ? {
            item_id: registryIdOf(target.namespace.name, target.category, target.name),
            latest_version: target.latestVersion,
            version: wantedRow ? wanted : null,
            yanked: !wantedRow || wantedRow.yanked,
            deprecated: target.deprecated,
            deprecation_message: target.deprecationMessage,
          }
        : null,
    };
  });
}

async function usersOf(db: Database, itemId: string, sight: Sight): Promise<ItemRelations["used_by"]> {
  // Only the users' latest versions count: joined on items.latest_version in the query, not filtered afterwards.
  const rows = await db.prisma.$queryRaw<{ kind: string; type: string; namespace: string; category: string; name: string; version: string; visibility: string; held: boolean; namespace_id: string }[]>`
    SELECT r.kind, d.type::text AS type, n.name AS namespace, d.category, d.name, v.version, d.visibility::text AS visibility, d.held, d.namespace_id::text AS namespace_id
    FROM item_relations r
    JOIN item_versions v ON v.id = r.version_id AND v.status = 'published'
    JOIN items d ON d.id = v.item_id AND d.latest_version = v.version
    JOIN namespaces n ON n.id = d.namespace_id
    WHERE r.target_item_id = ${itemId}::uuid`;
  return rows
    .filter((r) => listedTo(sight, { namespaceId: r.namespace_id, visibility: r.visibility, held: r.held }))
    .map((r) => ({
      kind: r.kind as ItemRelations["used_by"][number]["kind"],
      item_type: r.type as RegistryItemType,
      item_id: registryIdOf(r.namespace, r.category, r.name),
      version: r.version,
    }))
    .sort((a, b) => a.item_id.localeCompare(b.item_id) || a.item_type.localeCompare(b.item_type));
}

/** What a client should hear about a use before installing it. */
function useWarnings(use: ItemRelations["uses"][number]): string[] {
  const label = `${use.item_type} ${use.reference}${use.requested_version ? `@${use.requested_version}` : ""}`;
  if (!use.resolved) return [`${label} is not published in this registry (or not visible to you)`];
  const out: string[] = [];
  if (use.resolved.yanked) out.push(use.resolved.version ? `${label} is yanked (${use.resolved.item_id}@${use.resolved.version})` : `${label} has no installable version: every version is yanked`);
  if (use.resolved.deprecated) out.push(`${label} is deprecated${use.resolved.deprecation_message ? `: ${use.resolved.deprecation_message}` : ""}`);
  return out;
}
