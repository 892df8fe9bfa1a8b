/**
 * GET /v1/downloads/{item_type}/{item_id}?days=30: an item's downloads per day and per version
 * (services/download-stats.ts). Who may read the item may read its statistics; a private item is a 404 to others.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { downloadStatsResponseSchema } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { DEFAULT_STATS_DAYS, downloadStats, MAX_STATS_DAYS } from "../services/download-stats.ts";
import { findReadableItem } from "../services/items.ts";

export const downloadsQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(MAX_STATS_DAYS).default(DEFAULT_STATS_DAYS).meta({ description: `Days back from today (UTC), 1–${MAX_STATS_DAYS}; default ${DEFAULT_STATS_DAYS}.` }),
});

export const downloadsRoute = createRoute({
  method: "get",
  path: "/v1/downloads/{item_type}/{item_id{.+}}",
  operationId: "getDownloadStats",
  summary: "An item's downloads per day and per version (private items: members only)",
  tags: ["items"],
  ...access("optional-caller"),
  request: { query: downloadsQuerySchema },
  responses: { 200: json(downloadStatsResponseSchema, "Download statistics"), ...errors(400, 404) },
});

export function downloadRoutes(deps: AppDeps) {
  return contractRouter().openapi(
    downloadsRoute,
    async (c) => {
      const { type, ref, item } = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
      const stats = await downloadStats(deps.db, item.id, c.req.valid("query").days);
      c.header("Cache-Control", item.visibility === "private" ? "private, no-cache" : "public, max-age=300");
      return c.json({ item_type: type, item_id: ref.id, download_count: item.downloadCount, ...stats }, 200);
    },
    refuseWith(`days is a whole number from 1 to ${MAX_STATS_DAYS}.`),
  );
}
