/**
 * GET /v1/downloads/{item_type}/{item_id}?days=30: an item's downloads per day and per version
 * (services/download-stats.ts). Who may read the item may read its statistics; a private item is a 404 to others.
 */
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { DEFAULT_STATS_DAYS, downloadStats, MAX_STATS_DAYS } from "../services/download-stats.ts";
import { findReadableItem } from "../services/items.ts";

export const downloadsQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(MAX_STATS_DAYS).default(DEFAULT_STATS_DAYS).meta({ description: `Days back from today (UTC), 1–${MAX_STATS_DAYS}; default ${DEFAULT_STATS_DAYS}.` }),
});

export function downloadRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>().get("/v1/downloads/:item_type/:item_id{.+}", async (c) => {
    const query = downloadsQuerySchema.safeParse(c.req.query());
    if (!query.success) throw new RyeError("BAD_REQUEST", "Invalid query parameters", { hint: `days is a whole number from 1 to ${MAX_STATS_DAYS}.` });
    const { type, ref, item } = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
    const stats = await downloadStats(deps.db, item.id, query.data.days);
    c.header("Cache-Control", item.visibility === "private" ? "private, no-cache" : "public, max-age=300");
    return c.json({ item_type: type, item_id: ref.id, download_count: item.downloadCount, ...stats });
  });
}
