/**
 * GET /v1/relations/{item_type}/{item_id}?version=: what an item version uses and which items use it
 * (services/relations.ts). Who may read the item may read its relations; a private item is a 404 to others,
 * and private, unlisted and held users never appear in "used by" for outsiders.
 */
import { Hono } from "hono";
import { z } from "zod";
import { isSemver, RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { itemRelations } from "../services/relations.ts";

export const relationsQuerySchema = z.object({
  version: z.string().max(256).refine(isSemver, "a semantic version").optional().meta({ description: "The version whose uses are listed; default the latest." }),
});

export function relationRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/v1/relations/:item_type/:item_id{.+}", async (c) => {
    const query = relationsQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new RyeError("BAD_REQUEST", "Invalid query parameters", { hint: "version is a semantic version such as 1.2.0." });
    const principal = await optionalPrincipalOrSession(c, deps.db);
    const relations = await itemRelations(deps.db, principal, c.req.param("item_type"), c.req.param("item_id"), query.data.version);
    // The answer depends on who asks (private users, members' views): never shared by a cache.
    c.header("Cache-Control", "private, no-cache");
    c.header("Vary", "Authorization, Cookie");
    return c.json(relations);
  });
}
