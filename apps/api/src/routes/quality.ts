/**
 * GET /v1/quality/{item_type}/{item_id}[?version=]: a version's quality factors and, for tools, its static safety
 * report (docs/quality.md). Readable by whoever may read the item: a private item's report is as private as the
 * item (ITEM_NOT_FOUND for others), a held version's only for those who see held versions.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { parseSemver, qualityResponseSchema, RyeError, safetyReportSchema } from "@rye/core";
import type { QualityResponse } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { findReadableItem } from "../services/items.ts";
import { qualityReportOf } from "../services/quality.ts";
import { systemSafetyRules } from "../services/safety-rules.ts";

const QualityQuery = z.object({ version: z.string().optional().meta({ description: "Default: the latest version." }) });

export const qualityRoute = createRoute({
  method: "get",
  path: "/v1/quality/{item_type}/{item_id{.+}}",
  operationId: "getItemQuality",
  summary: "A version's quality factors and, for tools, its static safety report (private items: members only)",
  tags: ["items"],
  ...access("optional-caller"),
  request: { query: QualityQuery },
  responses: { 200: json(qualityResponseSchema.meta({ id: "QualityResponse" }), "Quality and safety"), ...errors(400, 404) },
});

export function qualityRoutes(deps: AppDeps) {
  return contractRouter().openapi(qualityRoute, async (c) => {
    const { type, ref, item, seesHeld } = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
    const requested = c.req.valid("query").version;
    if (requested !== undefined && !parseSemver(requested)) throw new RyeError("INVALID_VERSION", `${JSON.stringify(requested.slice(0, 100))} is not a semantic version`);
    const version = requested ?? item.latestVersion;
    const row = version ? await deps.db.prisma.itemVersion.findUnique({ where: { itemId_version: { itemId: item.id, version } }, select: { version: true, status: true, quality: true, safety: true, safetyRulesVersion: true } }) : null;
    if (!row || (row.status !== "published" && !(await seesHeld()))) {
      throw new RyeError("ITEM_NOT_FOUND", `${type} ${ref.id}${version ? `@${version}` : ""} not found`, { hint: "GET /v1/items/{item_type}/{item_id} lists the versions." });
    }
    const safety = row.safety === null ? null : safetyReportSchema.safeParse(row.safety);
    const body: QualityResponse = {
      item_type: type,
      item_id: ref.id,
      version: row.version,
      quality: await qualityReportOf(deps.db, item.id, row),
      safety: safety?.success ? safety.data : null,
      safety_current: row.safetyRulesVersion !== null && row.safetyRulesVersion === (await systemSafetyRules()).version,
    };
    c.header("Cache-Control", "private, no-cache");
    return c.json(body, 200);
  });
}
