/** GET /v1/quality/{type}/{id}: one version's quality factors and, for tools, its static safety report. */
import { z } from "zod";
import { qualityReportSchema } from "../quality/quality.ts";
import { safetyReportSchema } from "../security/safety-report.ts";
import { itemTypeSchema } from "./common.ts";

export const qualityResponseSchema = z.object({
  item_type: itemTypeSchema,
  item_id: z.string(),
  version: z.string(),
  quality: qualityReportSchema.nullable().meta({ description: "null for skills and for a version whose signals are not computed yet." }),
  safety: safetyReportSchema.nullable().meta({ description: "Tools only; null for other types." }),
  safety_current: z.boolean().meta({ description: "The report was made under the registry's current rules (else it is made again soon)." }),
});
export type QualityResponse = z.infer<typeof qualityResponseSchema>;
