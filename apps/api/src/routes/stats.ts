/** GET /v1/stats: registry-wide counts of public items (services/stats.ts), cached for a few seconds. */
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { StatsCache } from "../services/stats.ts";

export function statsRoutes(deps: AppDeps, cache: StatsCache = new StatsCache(deps.db, undefined, undefined, () => deps.reads.generation.current())): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/v1/stats", async (c) => {
    const stats = await cache.get();
    // Public data, the same for every caller: shared caches may keep it as long as this process does.
    c.header("Cache-Control", `public, max-age=${cache.remainingSeconds()}`);
    return c.json(stats);
  });
}
