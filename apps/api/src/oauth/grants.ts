/**
 * A person's OAuth sign-ins (grants): one per refresh token family still alive, listed on the website's tokens page
 * with the client that holds it, and revocable there. Revoking ends the family (its refresh token stops working; the
 * access tokens already issued expire within ACCESS_TOKEN_TTL_SECONDS) and is audited.
 */
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Actor } from "../services/accounts.ts";
import { recordAudit } from "../services/audit.ts";
import { findClient } from "./clients.ts";
import { DYNAMIC_CLIENT_PREFIX } from "./dynamic-clients.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface GrantView {
  id: string;
  client_id: string;
  /** The registry's own clients and dynamic registrations have a name; a metadata document's client is its URL. */
  client_name: string | null;
  third_party: boolean;
  scopes: string[];
  /** The resource (audience) of its access tokens; null: the registry API (granted before resource indicators). */
  resource: string | null;
  last_refreshed_at: string;
  expires_at: string;
}

export async function listGrants(db: Database, userId: string): Promise<GrantView[]> {
  const rows = await db.prisma.refreshToken.findMany({ where: { userId, usedAt: null, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: "desc" } });
  const dynamicIds = [...new Set(rows.map((r) => r.clientId).filter((id) => id.startsWith(DYNAMIC_CLIENT_PREFIX)))];
  const registered = new Map((await db.prisma.oAuthClientRegistration.findMany({ where: { clientId: { in: dynamicIds } }, select: { clientId: true, clientName: true } })).map((r) => [r.clientId, r.clientName]));
  return rows.map((row) => {
    const own = findClient(row.clientId);
    return {
      id: row.familyId,
      client_id: row.clientId,
      client_name: own?.name ?? registered.get(row.clientId) ?? null,
      third_party: !own,
      scopes: row.scope.split(" ").filter(Boolean),
      resource: row.resource,
      last_refreshed_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    };
  });
}

export async function revokeGrant(db: Database, actor: Actor, grantId: string): Promise<GrantView> {
  const notFound = () => new RyeError("NOT_FOUND", "No such sign-in", { hint: "List your sign-ins (GET /v1/me/oauth-grants) to find its id." });
  if (!UUID.test(grantId)) throw notFound();
  const view = (await listGrants(db, actor.userId)).find((grant) => grant.id === grantId);
  if (!view) throw notFound();
  await db.prisma.$transaction(async (tx) => {
    await tx.refreshToken.updateMany({ where: { familyId: grantId, userId: actor.userId, revokedAt: null }, data: { revokedAt: new Date() } });
    await recordAudit(tx, {
      actorId: actor.userId,
      action: "oauth.grant.revoke",
      targetType: "oauth_client",
      targetId: view.client_id,
      details: { grant_id: grantId, client_name: view.client_name, scopes: view.scopes, resource: view.resource },
      ip: actor.ip,
      requestId: actor.requestId,
    });
  });
  return view;
}
