/** GET /v1/stats: registry-wide counts of public items (services/stats.ts), cached for a few seconds. */
import { createRoute } from "@hono/zod-openapi";
import { registryStatsSchema } from "@rye/core";
import { access, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";
import { StatsCache } from "../services/stats.ts";

export const statsRoute = createRoute({
  method: "get",
  path: "/v1/stats",
  operationId: "getStats",
  summary: "Counts of public items per type, namespaces with public items and their downloads (cached for a few seconds)",
  tags: ["items"],
  ...access("none"),
  responses: { 200: json(registryStatsSchema.meta({ id: "RegistryStats" }), "Counts") },
});

export function statsRoutes(deps: AppDeps, cache: StatsCache = new StatsCache(deps.db, undefined, undefined, () => deps.reads.generation.current())) {
  return contractRouter().openapi(statsRoute, async (c) => {
    const stats = await cache.get();
    // Public data, the same for every caller: shared caches may keep it as long as this process does.
    c.header("Cache-Control", `public, max-age=${cache.remainingSeconds()}`);
    return c.json(stats, 200);
  });
}
