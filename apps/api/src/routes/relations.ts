/**
 * GET /v1/relations/{item_type}/{item_id}?version=: what an item version uses and which items use it
 * (services/relations.ts). Who may read the item may read its relations; a private item is a 404 to others,
 * and private, unlisted and held users never appear in "used by" for outsiders.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isSemver, itemRelationsSchema } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { itemRelations } from "../services/relations.ts";

export const relationsQuerySchema = z.object({
  version: z.string().max(256).refine(isSemver, "a semantic version").optional().meta({ description: "The version whose uses are listed; default the latest." }),
});

export const relationsRoute = createRoute({
  method: "get",
  path: "/v1/relations/{item_type}/{item_id{.+}}",
  operationId: "getItemRelations",
  summary: "What an item version uses (tools, knowledge, directives, executor) and which items use it (private users: members only)",
  tags: ["items"],
  ...access("optional-caller"),
  request: { query: relationsQuerySchema },
  responses: { 200: json(itemRelationsSchema.meta({ id: "ItemRelationsResponse" }), "Uses and used-by"), ...errors(400, 404) },
});

export function relationRoutes(deps: AppDeps) {
  return contractRouter().openapi(
    relationsRoute,
    async (c) => {
      const principal = await optionalPrincipalOrSession(c, deps.db);
      const relations = await itemRelations(deps.db, principal, c.req.param("item_type"), c.req.param("item_id"), c.req.valid("query").version);
      // The answer depends on who asks (private users, members' views): never shared by a cache.
      c.header("Cache-Control", "private, no-cache");
      c.header("Vary", "Authorization, Cookie");
      return c.json(relations, 200);
    },
    refuseWith("version is a semantic version such as 1.2.0."),
  );
}
