/** GET /v1/stats: registry-wide counts over public items (the same for every caller). */
import { z } from "zod";
import { isoTimestampSchema } from "./common.ts";

export const registryStatsSchema = z.object({
  items: z.object({
    total: z.number().int(),
    directive: z.number().int(),
    tool: z.number().int(),
    knowledge: z.number().int(),
    skill: z.number().int().meta({ description: "Agent Skills." }),
  }),
  namespaces: z.number().int().meta({ description: "Namespaces (users and organizations) with at least one public item." }),
  downloads: z.number().int().meta({ description: "Pulls of public items, all versions." }),
  generated_at: isoTimestampSchema.meta({ description: "When these counts were computed (they are cached for a few seconds)." }),
});
export type RegistryStats = z.infer<typeof registryStatsSchema>;
