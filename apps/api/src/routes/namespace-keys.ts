/**
 * GET /v1/namespaces/{name}/keys: the author keys registered to a namespace, public and read-only, so anyone can
 * monitor the namespace in the publish log (`rye log monitor`, docs/transparency.md) without signing in.
 *
 * "Registered to a namespace" is what the push route accepts (services/publish.ts, access.ts): a user namespace, its
 * user's keys; an organization, the keys of its members (any role may publish). Revoked keys are listed with their
 * revocation time. The answer names no user and no label: it lists keys, not who holds them (an organization's member
 * list stays for its members, routes/namespaces.ts), though a key listed both here and under a member's own namespace
 * tells that the member belongs to the organization. That is the price of a verifiable namespace: the keys that may
 * sign for it are public, as the log already shows who published with which key.
 */
import { createRoute } from "@hono/zod-openapi";
import { MAX_NAMESPACE_KEYS, namespaceKeysResponseSchema, RyeError } from "@rye/core";
import { lookupName } from "../auth/usernames.ts";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";

export const namespaceKeysRoute = createRoute({
  method: "get",
  path: "/v1/namespaces/{name}/keys",
  operationId: "listNamespaceKeys",
  summary: "The author keys registered to a namespace (a user's, or an organization's members'), revoked ones included: public, for monitors",
  tags: ["keys"],
  ...access("none"),
  responses: { 200: json(namespaceKeysResponseSchema, "The keys"), ...errors([404, "No such user or organization"]) },
});

export function namespaceKeyRoutes(deps: AppDeps) {
  const prisma = deps.db.prisma;
  return contractRouter().openapi(namespaceKeysRoute, async (c) => {
    const raw = c.req.param("name");
    const name = lookupName(raw);
    const ns = name ? await prisma.namespace.findUnique({ where: { name }, select: { name: true, userId: true, orgId: true } }) : null;
    if (!ns || (!ns.userId && !ns.orgId)) {
      throw new RyeError("NOT_FOUND", `Namespace ${JSON.stringify(raw.slice(0, 64))} does not exist`, { hint: "A namespace is a user's or an organization's name, as in an item id <namespace>/<category>/<name>." });
    }
    const rows = await prisma.userKey.findMany({
      where: ns.userId ? { userId: ns.userId } : { user: { memberships: { some: { orgId: ns.orgId! } } } },
      select: { fingerprint: true, publicKeyPem: true, createdAt: true, revokedAt: true },
      orderBy: [{ createdAt: "asc" }, { fingerprint: "asc" }],
      take: MAX_NAMESPACE_KEYS + 1,
    });
    const keys = rows.slice(0, MAX_NAMESPACE_KEYS).map((k) => ({ fingerprint: k.fingerprint, public_key: k.publicKeyPem, created_at: k.createdAt.toISOString(), revoked_at: k.revokedAt?.toISOString() ?? null }));
    // A key registered or revoked shows at once: a monitor recording the namespace's keys must not get a stale list.
    c.header("Cache-Control", "public, no-cache");
    return c.json({ namespace: ns.name, kind: ns.userId ? ("user" as const) : ("org" as const), keys, truncated: rows.length > MAX_NAMESPACE_KEYS }, 200);
  });
}
