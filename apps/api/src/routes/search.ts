/** Discovery: GET /v1/search (wire-compatible with the original v1 API) and GET /v1/items/{type}/{id} metadata. */
import { Hono } from "hono";
import { z } from "zod";
import { compareSemver, RyeError, searchSortSchema } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { assertType, findReadableItem } from "../services/items.ts";
import { storedQualityScore } from "../services/quality.ts";
import { SEARCH_MAX_LIMIT, searchItems } from "../services/search.ts";
import { MIRROR_HOPS_HEADER, mirrorHops } from "../services/upstream/client.ts";
import { mirrorTarget } from "../services/upstream/hooks.ts";

const VERDICTS = new Set(["ok", "review", "danger"]);
/** The verdict of a stored safety report, or null without one. */
function safetyVerdict(report: unknown): "ok" | "review" | "danger" | null {
  const verdict = report && typeof report === "object" ? (report as { verdict?: unknown }).verdict : undefined;
  return typeof verdict === "string" && VERDICTS.has(verdict) ? (verdict as "ok" | "review" | "danger") : null;
}

// Filters are compared verbatim: control characters (NUL cannot even be stored in a text value) are refused.
// eslint-disable-next-line no-control-regex
const text = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** Empty parameters (`?item_type=`) count as absent, as an HTML form sends them. */
const optional = (schema: z.ZodString) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

const searchQuerySchema = z.object({
  query: z.string().default(""),
  item_type: optional(text(64)),
  namespace: optional(text(64)),
  category: optional(text(256)),
  tool_type: optional(text(64)),
  min_quality: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(0).max(100).optional()),
  limit: z.coerce.number().int().min(1).max(SEARCH_MAX_LIMIT).default(20),
  offset: z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(0).max(10_000).optional()),
  cursor: optional(z.string().max(512)),
  sort: z.preprocess((v) => (v === "" ? undefined : v), searchSortSchema.optional()),
  facets: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["1", "0", "true", "false"]).optional()),
});

function parseQuery<T>(schema: z.ZodType<T>, query: Record<string, string>): T {
  const result = schema.safeParse(query);
  if (!result.success) {
    throw new RyeError("BAD_REQUEST", "The query parameters are invalid", {
      details: result.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    });
  }
  return result.data;
}

export function searchRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/v1/search", async (c) => {
      const q = parseQuery(searchQuerySchema, c.req.query());
      const result = await searchItems(deps.db, await optionalPrincipalOrSession(c, deps.db), {
        query: q.query,
        itemType: q.item_type === undefined ? undefined : assertType(q.item_type),
        namespace: q.namespace,
        category: q.category,
        toolType: q.tool_type,
        minQuality: q.min_quality,
        limit: q.limit,
        offset: q.offset,
        cursor: q.cursor,
        sort: q.sort,
        facets: q.facets === "1" || q.facets === "true",
      });
      c.header("Cache-Control", "private, no-cache");
      if (!deps.mirror) return c.json(result);
      const firstPage = q.offset === undefined && q.cursor === undefined;
      return c.json(await deps.mirror.mergeSearch(result, { query: q.query, itemType: q.item_type, namespace: q.namespace, category: q.category, toolType: q.tool_type, limit: q.limit, firstPage }, mirrorHops(c.req.header(MIRROR_HOPS_HEADER))));
    })
    .get("/v1/items/:item_type/:item_id{.+}", async (c) => {
      // Members see private items with a token or their website session (item and manage pages).
      let found;
      try {
        found = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
      } catch (err) {
        const mirrorType = await mirrorTarget(deps.mirror, err, c.req.param("item_type"), c.req.param("item_id"));
        if (!mirrorType || !deps.mirror) throw err;
        c.header("Cache-Control", "private, no-cache");
        return c.json(await deps.mirror.item(mirrorType, c.req.param("item_id"), mirrorHops(c.req.header(MIRROR_HOPS_HEADER))));
      }
      const { type, ref, item, seesHeld } = found;
      // Versions held for approval are listed (with their status) only for the namespace's owners/admins and registry admins.
      const reviewer = await seesHeld();
      const versions = await deps.db.prisma.itemVersion.findMany({
        where: { itemId: item.id, ...(reviewer ? {} : { status: "published" }) },
        select: { version: true, createdAt: true, yanked: true, yankedReason: true, contentHash: true, sizeBytes: true, logIndex: true, status: true, heldReason: true, safety: true, publisher: { select: { username: true } } },
      });
      versions.sort((a, b) => compareSemver(b.version, a.version));
      c.header("Cache-Control", "private, no-cache");
      return c.json({
        item_type: type,
        item_id: ref.id,
        namespace: item.namespace.name,
        category: item.category,
        name: item.name,
        description: item.description,
        author: item.namespace.name,
        version: item.latestVersion,
        latest_version: item.latestVersion,
        visibility: item.visibility,
        deprecated: item.deprecated,
        deprecation_message: item.deprecationMessage,
        download_count: item.downloadCount,
        tool_type: item.toolType,
        file_extension: item.fileExtension,
        created_at: item.createdAt.toISOString(),
        updated_at: item.updatedAt.toISOString(),
        quality_score: storedQualityScore(item),
        versions: versions.map((v) => ({
          version: v.version,
          created_at: v.createdAt.toISOString(),
          yanked: v.yanked,
          yanked_reason: v.yankedReason,
          content_hash: v.contentHash,
          size_bytes: v.sizeBytes,
          publisher: v.publisher.username,
          log_index: v.logIndex === null ? null : Number(v.logIndex),
          ...(reviewer ? { status: v.status, held_reason: v.heldReason } : {}),
          ...(type === "tool" ? { safety_verdict: safetyVerdict(v.safety) } : {}),
        })),
      });
    });
}
