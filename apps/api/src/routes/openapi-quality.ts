/** OpenAPI of the quality and safety signals (docs/quality.md): GET /v1/quality/{item_type}/{item_id}. */
import { z } from "zod";
import { qualityResponseSchema } from "@rye/core";
import type { Operation } from "./openapi.ts";

const QualityQuery = z.object({ version: z.string().optional().meta({ description: "Default: the latest version." }) });

export const QUALITY_SCHEMAS = { QualityResponse: qualityResponseSchema };

export const QUALITY_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/quality/{item_type}/{item_id}",
    operationId: "getItemQuality",
    summary: "A version's quality factors and, for tools, its static safety report (private items: members only)",
    tag: "items",
    auth: "optional-caller",
    query: QualityQuery,
    ok: { status: 200, description: "Quality and safety", schema: "QualityResponse" },
    errors: [400, 404],
  },
];
