/** GET /v1/downloads/{item_type}/{item_id}: an item's downloads per day and per version. */
import { z } from "zod";

export const downloadStatsResponseSchema = z
  .object({
    item_type: z.string(),
    item_id: z.string(),
    download_count: z.number().int().meta({ description: "All-time downloads (as GET /v1/items)." }),
    since: z.string().meta({ description: "First day of the window (UTC date)." }),
    until: z.string().meta({ description: "Last day of the window: today (UTC date)." }),
    total: z.number().int().meta({ description: "Downloads in the window." }),
    days: z.array(z.object({ date: z.string(), downloads: z.number().int() })).meta({ description: "Every day of the window, oldest first (zeros included)." }),
    versions: z.array(z.object({ version: z.string(), downloads: z.number().int() })).meta({ description: "Downloads per version in the window, most first (at most 100)." }),
  })
  .meta({ id: "DownloadStatsResponse" });
export type DownloadStatsResponse = z.infer<typeof downloadStatsResponseSchema>;
