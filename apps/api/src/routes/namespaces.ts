/**
 * GET /v1/namespaces/{name}: the public profile of a namespace (a user or an organization), for the
 * website's namespace pages and any client that needs to tell the two apart.
 *
 * Privacy decision (the same as GET /v1/orgs/{name}): an organization's member list and the caller's
 * role are shown to its members only; everyone else sees the name, display name, creation date and
 * the number of public items. Organization membership can be sensitive (it tells who works where),
 * so it is not published by default. Email addresses are never part of the answer.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema, RyeError } from "@rye/core";
import { lookupName } from "../auth/usernames.ts";
import type { SameKeys } from "../contract/operation.ts";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";
import { currentCaller } from "./accounts.ts";

export type NamespaceRole = "owner" | "admin" | "member";

export interface NamespaceView {
  name: string;
  kind: "user" | "org";
  display_name: string;
  created_at: string;
  /** Items the caller can see: public ones, every one for the namespace's owner or members. */
  item_count: number;
  /** The caller's role: "owner" of their own user namespace, their membership role in an organization; null otherwise. */
  viewer_role: NamespaceRole | null;
  /** Organizations, for members only: usernames and roles, oldest first. null for users and non-members. */
  members: { username: string; role: NamespaceRole; joined_at: string }[] | null;
}

const role = z.enum(["owner", "admin", "member"]);
const Namespace = z
  .object({
    name: z.string(),
    kind: z.enum(["user", "org"]),
    display_name: z.string(),
    created_at: isoTimestampSchema,
    item_count: z.number().int().meta({ description: "Public items; every item for the namespace's owner or the organization's members." }),
    viewer_role: role.nullable().meta({ description: "The caller's role: owner of their own user namespace, their role in an organization; null otherwise." }),
    members: z
      .array(z.object({ username: z.string(), role, joined_at: isoTimestampSchema }))
      .nullable()
      .meta({ description: "Organizations, for their members only (membership is not public); null for users and everyone else." }),
  })
  .meta({ id: "Namespace" });
true satisfies SameKeys<z.output<typeof Namespace>, NamespaceView>;

export const namespaceRoute = createRoute({
  method: "get",
  path: "/v1/namespaces/{name}",
  operationId: "getNamespace",
  summary: "A namespace's profile: user or organization, display name, visible item count; an organization's members for its members only",
  tags: ["orgs"],
  ...access("optional-caller"),
  responses: { 200: json(Namespace, "The namespace"), ...errors([404, "No such user or organization (also for names no one can have)"]) },
});

export function namespaceRoutes(deps: AppDeps) {
  const { db } = deps;
  return contractRouter().openapi(namespaceRoute, async (c) => {
    const raw = c.req.param("name");
    const name = lookupName(raw);
    const missing = () => new RyeError("NOT_FOUND", `Namespace ${JSON.stringify(raw.slice(0, 64))} does not exist`, { hint: "Search for items instead: GET /v1/search?query=…" });
    if (!name) throw missing();
    const ns = await db.prisma.namespace.findUnique({
      where: { name },
      include: {
        user: { select: { id: true, displayName: true, createdAt: true } },
        organization: { select: { id: true, displayName: true, createdAt: true } },
      },
    });
    const owner = ns?.user ?? ns?.organization;
    if (!ns || !owner) throw missing();
    const caller = await currentCaller(c, db);
    let role: NamespaceRole | null = null;
    if (caller) {
      if (ns.user) role = ns.user.id === caller.actor.userId ? "owner" : null;
      else if (ns.organization) {
        const membership = await db.prisma.membership.findUnique({ where: { orgId_userId: { orgId: ns.organization.id, userId: caller.actor.userId } } });
        role = membership?.role ?? null;
      }
    }
    const itemCount = await db.prisma.item.count({ where: { namespaceId: ns.id, held: false, ...(role ? {} : { visibility: "public" }) } });
    let members: NamespaceView["members"] = null;
    if (ns.organization && role) {
      const rows = await db.prisma.membership.findMany({
        where: { orgId: ns.organization.id },
        include: { user: { select: { username: true } } },
        orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
      });
      members = rows.map((m) => ({ username: m.user.username, role: m.role, joined_at: m.createdAt.toISOString() }));
    }
    const view: NamespaceView = {
      name: ns.name,
      kind: ns.user ? "user" : "org",
      display_name: owner.displayName,
      created_at: owner.createdAt.toISOString(),
      item_count: itemCount,
      viewer_role: role,
      members,
    };
    c.header("Cache-Control", "private, no-cache");
    c.header("Vary", "Authorization, Cookie");
    return c.json(view, 200);
  });
}
