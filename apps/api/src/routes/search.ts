/** Discovery: GET /v1/search (wire-compatible with the original v1 API) and GET /v1/items/{type}/{id} metadata. */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { type ItemDetails, itemDetailsSchema, REGISTRY_ITEM_TYPES, searchResponseSchema, searchSortSchema } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { assertType, findReadableItem } from "../services/items.ts";
import { itemDetailsOf } from "../services/item-details.ts";
import { SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_CHARS, searchItems } from "../services/search.ts";
import { MIRROR_HOPS_HEADER, mirrorHops } from "../services/upstream/client.ts";
import { mirrorTarget } from "../services/upstream/hooks.ts";

// Filters are compared verbatim: control characters (NUL cannot even be stored in a text value) are refused.
// eslint-disable-next-line no-control-regex
const text = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** Empty parameters (`?item_type=`) count as absent, as an HTML form sends them. */
const emptyIsAbsent = (v: unknown) => (v === "" ? undefined : v);
const optional = (schema: z.ZodString) => z.preprocess(emptyIsAbsent, schema.optional());

/** Validated here (400 BAD_REQUEST naming the parameter); item_type is checked by assertType (INVALID_ITEM_TYPE). */
export const searchQuerySchema = z.object({
  // Its length is checked by searchItems, in characters (code points) as JSON Schema's maxLength counts them.
  query: z.string().default("").meta({ description: "Search text (name, description, category, content).", maxLength: SEARCH_MAX_QUERY_CHARS }),
  // Checked by assertType (INVALID_ITEM_TYPE), so the document states the values without zod refusing others first.
  item_type: optional(text(64)).meta({ enum: [...REGISTRY_ITEM_TYPES] }),
  namespace: optional(text(64)),
  category: optional(text(256)).meta({ description: "Category prefix." }),
  tool_type: optional(text(64)),
  min_quality: z.preprocess(emptyIsAbsent, z.coerce.number().int().min(0).max(100).optional()).meta({ description: "Only items whose quality score (0 … 100, docs/quality.md) is at least this." }),
  limit: z.coerce.number().int().min(1).max(SEARCH_MAX_LIMIT).default(20),
  cursor: optional(z.string().max(512)).meta({ description: "next_cursor of the previous page." }),
  offset: z.preprocess(emptyIsAbsent, z.coerce.number().int().min(0).max(10_000).optional()).meta({ description: "Original API paging; prefer cursor." }),
  sort: z.preprocess(emptyIsAbsent, searchSortSchema.optional()).meta({ description: "relevance (default with a query), recent (default without one; updated_at, newest first), downloads (most pulled first) or quality (highest quality score first)." }),
  facets: z.preprocess(emptyIsAbsent, z.enum(["1", "0", "true", "false"]).optional()).meta({ description: "1: add facet counts (item_type, namespace, category, tool_type) over the visible match set." }),
});

export const searchRoute = createRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search items (private items of the caller's namespaces included)",
  tags: ["items"],
  ...access("optional-caller"),
  request: { query: searchQuerySchema },
  responses: { 200: json(searchResponseSchema, "A page of results"), ...errors(400) },
});

export const itemDetailsRoute = createRoute({
  method: "get",
  path: "/v1/items/{item_type}/{item_id{.+}}",
  operationId: "getItem",
  summary: "An item's metadata and versions",
  tags: ["items"],
  ...access("optional-caller"),
  responses: { 200: json(itemDetailsSchema, "The item"), ...errors(400, 404) },
});

export function searchRoutes(deps: AppDeps) {
  return contractRouter()
    .openapi(
      searchRoute,
      async (c) => {
      const q = c.req.valid("query");
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
      if (!deps.mirror) return c.json(result, 200);
      const firstPage = q.offset === undefined && q.cursor === undefined;
      return c.json(await deps.mirror.mergeSearch(result, { query: q.query, itemType: q.item_type, namespace: q.namespace, category: q.category, toolType: q.tool_type, limit: q.limit, firstPage }, mirrorHops(c.req.header(MIRROR_HOPS_HEADER))), 200);
      },
      refuseWith("See GET /v1/openapi.json for the search parameters (limit 1–100, min_quality 0–100, sort relevance|recent|downloads|quality)."),
    )
    .openapi(itemDetailsRoute, async (c) => {
      // Members see private items with a token or their website session (item and manage pages).
      let found;
      try {
        found = await findReadableItem(deps.db, await optionalPrincipalOrSession(c, deps.db), c.req.param("item_type"), c.req.param("item_id"));
      } catch (err) {
        const mirrorType = await mirrorTarget(deps.mirror, err, c.req.param("item_type"), c.req.param("item_id"));
        if (!mirrorType || !deps.mirror) throw err;
        c.header("Cache-Control", "private, no-cache");
        // mirror.ts checks the upstream's answer (or builds the cached one) in this shape; test/e2e/mirror.test.ts parses it with the schema.
        return c.json((await deps.mirror.item(mirrorType, c.req.param("item_id"), mirrorHops(c.req.header(MIRROR_HOPS_HEADER)))) as ItemDetails, 200);
      }
      c.header("Cache-Control", "private, no-cache");
      return c.json(await itemDetailsOf(deps.db, found), 200);
    });
}
