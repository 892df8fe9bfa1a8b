/** The caller's OAuth sign-ins (the website's tokens page): list and revoke (oauth/grants.ts). */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import type { Same } from "../contract/operation.ts";
import { access, declared, errors, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { type GrantView, listGrants, revokeGrant } from "../oauth/grants.ts";
import type { AppDeps } from "../services/deps.ts";
import { requireCaller } from "./accounts.ts";

const OAuthGrant = z
  .object({
    id: z.string().meta({ description: "The sign-in (refresh token family)." }),
    client_id: z.string().meta({ description: "rye-cli, a third-party client's metadata document URL, or a dynamically registered rye-dcr-… id." }),
    client_name: z.string().nullable().meta({ description: "The registry's own clients and dynamic registrations (self-declared); null for a metadata document's client (its URL names it)." }),
    third_party: z.boolean(),
    scopes: z.array(z.string()),
    resource: z.string().nullable().meta({ description: "The audience of its access tokens (<public URL> or <public URL>/mcp); null: the registry API." }),
    last_refreshed_at: z.string(),
    expires_at: z.string().meta({ description: "When its refresh token expires unless used." }),
  })
  .meta({ id: "OAuthGrant" });
const OAuthGrantList = z.object({ grants: z.array(OAuthGrant) }).meta({ id: "OAuthGrantList" });
true satisfies Same<z.output<typeof OAuthGrant>, GrantView>;

export const listOAuthGrantsRoute = createRoute({
  method: "get",
  path: "/v1/me/oauth-grants",
  operationId: "listOAuthGrants",
  summary: "The caller's OAuth sign-ins still alive (the CLI's and third-party applications'), newest first",
  tags: ["tokens"],
  ...access("caller"),
  responses: { 200: json(OAuthGrantList, "Sign-ins (no secrets)") },
});
export const revokeOAuthGrantRoute = createRoute({
  method: "delete",
  path: "/v1/me/oauth-grants/{id}",
  operationId: "revokeOAuthGrant",
  summary: "Revoke an OAuth sign-in: its refresh token stops working at once, its access tokens expire within 15 minutes; audited",
  tags: ["tokens"],
  ...access("caller+csrf"),
  responses: { 200: json(OAuthGrant, "Revoked"), ...errors([403, "A missing CSRF token"], [404, "No such live sign-in of the caller"]) },
});

export function oauthGrantRoutes(deps: AppDeps) {
  return contractRouter()
    .openapi(listOAuthGrantsRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(declared(OAuthGrantList, { grants: await listGrants(deps.db, actor.userId) }), 200);
    })
    .openapi(revokeOAuthGrantRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(declared(OAuthGrant, await revokeGrant(deps.db, actor, c.req.param("id"))), 200);
    });
}
