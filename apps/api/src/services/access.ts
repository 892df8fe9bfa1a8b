/** Namespace roles and item visibility: who may read, publish and manage what. */
import type { Database } from "@rye/db";
import { RyeError } from "@rye/core";
import type { Principal } from "../auth/principal.ts";

export type NamespaceRole = "owner" | "admin" | "member";

export interface NamespaceAccess {
  namespace: { id: string; name: string; userId: string | null; orgId: string | null };
  /** The caller's role in it: the user namespace's owner is "owner"; org roles come from memberships. */
  role: NamespaceRole | null;
  /** The caller is a remote MCP client and the namespace's organization forbids those (no role then, admin or not). */
  remoteMcpForbidden: boolean;
}

/**
 * The namespace and the caller's role in it. A remote MCP client (Principal.remoteMcp) has no role in an organization
 * that forbids remote MCP clients: its private items and held versions are then hidden as from an outsider.
 */
export async function namespaceAccess(db: Database, principal: Principal | null, name: string): Promise<NamespaceAccess | null> {
  const found = await db.prisma.namespace.findUnique({ where: { name: name.toLowerCase() }, include: { organization: { select: { allowRemoteMcp: true } } } });
  if (!found) return null;
  const { organization, ...namespace } = found;
  const remoteMcpForbidden = principal?.remoteMcp === true && organization?.allowRemoteMcp === false;
  let role: NamespaceRole | null = null;
  if (principal) {
    if (namespace.userId === principal.userId) role = "owner";
    else if (namespace.orgId && !remoteMcpForbidden) {
      const membership = await db.prisma.membership.findUnique({ where: { orgId_userId: { orgId: namespace.orgId, userId: principal.userId } } });
      role = membership?.role ?? null;
    }
  }
  return { namespace, role, remoteMcpForbidden };
}

/** Publishing needs any role in the namespace (and a token not restricted to another namespace). */
export async function requirePublishAccess(db: Database, principal: Principal, name: string): Promise<NamespaceAccess> {
  const access = await namespaceAccess(db, principal, name);
  if (!access) throw new RyeError("NOT_FOUND", `Namespace ${name} does not exist`, { hint: "Publish under your username or an organization you belong to." });
  if (principal.namespace && principal.namespace !== access.namespace.name) {
    throw new RyeError("FORBIDDEN", `This token may only publish to ${principal.namespace}`);
  }
  if (!access.role) throw new RyeError("FORBIDDEN", `You cannot publish to the ${access.namespace.name} namespace`, { hint: "Ask an owner of the organization to add you." });
  return access;
}

/** Visibility, yanking, deprecation, deletion and transfer need owner or admin (or a registry admin). */
export async function requireManageAccess(db: Database, principal: Principal, name: string): Promise<NamespaceAccess> {
  const access = await requirePublishAccess(db, principal, name).catch(async (err) => {
    if (principal.isAdmin) {
      const found = await namespaceAccess(db, principal, name);
      if (found) return found;
    }
    throw err;
  });
  if (access.role === "member" && !principal.isAdmin) {
    throw new RyeError("FORBIDDEN", `Managing items of ${access.namespace.name} needs the owner or admin role`);
  }
  return access;
}

/** Private items are visible to namespace members and registry admins only; others get a 404, not a 403. */
export async function canRead(db: Database, principal: Principal | null, item: { visibility: string; namespaceId: string }, namespaceName: string): Promise<boolean> {
  if (item.visibility !== "private") return true;
  return (await readerStanding(db, principal, namespaceName)) !== null;
}

/**
 * Who the caller is to a namespace when reading what only insiders read (private items, held versions): a registry
 * admin, its role there, or null — no token with items:read, an outsider, or a remote MCP client of an organization
 * that forbids those (namespaceAccess), registry admin or not.
 */
export async function readerStanding(db: Database, principal: Principal | null, namespaceName: string): Promise<NamespaceRole | "registry-admin" | null> {
  // A token without items:read (e.g. a write-only CI token) reads like an anonymous caller.
  if (!principal || !principal.scopes.includes("items:read")) return null;
  if (principal.isAdmin && !principal.remoteMcp) return "registry-admin";
  const access = await namespaceAccess(db, principal, namespaceName);
  if (!access || access.remoteMcpForbidden) return null;
  return principal.isAdmin ? "registry-admin" : access.role;
}
