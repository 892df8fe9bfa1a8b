/** GET /v1/search: a page of ranked results, optionally with facet counts over the whole match set. */
import { z } from "zod";
import { isoTimestampSchema, itemTypeSchema, itemVisibilitySchema } from "./common.ts";

export const SEARCH_SORTS = ["relevance", "recent", "downloads", "quality"] as const;
export const searchSortSchema = z.enum(SEARCH_SORTS);
export type SearchSort = z.infer<typeof searchSortSchema>;

export const searchResultSchema = z.object({
  item_type: itemTypeSchema,
  item_id: z.string().meta({ description: "namespace/category…/name" }),
  namespace: z.string(),
  category: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string().nullable().meta({ description: "The latest non-yanked version." }),
  author: z.string().meta({ description: "The publishing namespace (user or organization)." }),
  download_count: z.number().int(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
  tool_type: z.string().nullable(),
  deprecated: z.boolean(),
  visibility: itemVisibilitySchema,
  score: z.number().nullable().meta({ description: "Relevance (higher first); null when the query is empty." }),
  mirrored_from: z.string().optional().meta({ description: "On a mirroring registry: the upstream registry this hit comes from (docs/mirroring.md)." }),
  quality_score: z.number().int().min(0).max(100).optional().meta({ description: "The item's quality score, 0 … 100 (0 when not computed)." }),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const facetValueSchema = z.object({ value: z.string(), count: z.number().int() });
export type FacetValue = z.infer<typeof facetValueSchema>;

export const searchFacetsSchema = z
  .object({
    item_type: z.array(facetValueSchema),
    namespace: z.array(facetValueSchema).meta({ description: "The 20 largest." }),
    category: z.array(facetValueSchema).meta({ description: "Top-level category segments, the 20 largest." }),
    tool_type: z.array(facetValueSchema),
  })
  .meta({
    description:
      "Counts over the visible match set of the query. Each facet ignores its own filter (so other values of it stay selectable) and applies the others.",
  });
export type SearchFacets = z.infer<typeof searchFacetsSchema>;

export const searchResponseSchema = z.object({
  results: z.array(searchResultSchema),
  total: z.number().int(),
  total_estimated: z
    .boolean()
    .optional()
    .meta({
      description:
        "Present (true) when the query matches so many items that `total` and the facet counts are estimates (the planner's row estimate; facets counted on a sample and scaled) instead of exact counts.",
    }),
  limit: z.number().int(),
  offset: z.number().int().meta({ description: "0 when paging by cursor." }),
  next_cursor: z.string().nullable(),
  query: z.string(),
  sort: searchSortSchema,
  facets: searchFacetsSchema.optional().meta({ description: "With facets=1 only." }),
  upstream: z.enum(["ok", "unavailable"]).optional().meta({ description: "On a mirroring registry, when the upstream was asked: whether its hits are merged in (docs/mirroring.md)." }),
}).meta({ id: "SearchResponse" });
export type SearchResponse = z.infer<typeof searchResponseSchema>;
