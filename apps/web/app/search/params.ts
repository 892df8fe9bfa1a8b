/**
 * The search page's URL is its state: `/search?q=…&type=tool&namespace=acme&category=web&tool_type=http
 * &sort=downloads&page=3`. Everything a visitor sees can be shared by copying the address.
 *
 * Pages: `page=N` reads the API with offset (N-1)·PAGE_SIZE while that offset stays within the API's
 * offset limit (10 000, i.e. 501 pages of 20); beyond it, "next" links carry the API's keyset cursor
 * (`&cursor=…`) alongside the page number, so even the deepest pages stay linkable.
 */
import { ITEM_TYPES, SEARCH_SORTS, type ItemType, type SearchSort } from "@rye/core";

export const PAGE_SIZE = 20;
export const MAX_OFFSET = 10_000;
/** The last page reachable by offset. */
export const MAX_OFFSET_PAGE = Math.floor(MAX_OFFSET / PAGE_SIZE) + 1;

export interface SearchState {
  q: string;
  type?: string | undefined;
  namespace?: string | undefined;
  category?: string | undefined;
  tool_type?: string | undefined;
  sort?: SearchSort | undefined;
  page: number;
  cursor?: string | undefined;
}

export type RawSearchParams = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => {
  const s = Array.isArray(v) ? v[0] : v;
  const t = s?.trim();
  return t ? t : undefined;
};

export function parseSearchState(raw: RawSearchParams): SearchState {
  const sort = first(raw.sort);
  const page = Number.parseInt(first(raw.page) ?? "1", 10);
  const cursor = first(raw.cursor);
  const valid = Number.isSafeInteger(page) && page >= 1 ? page : 1;
  return {
    q: (first(raw.q) ?? "").slice(0, 256),
    type: first(raw.type),
    namespace: first(raw.namespace),
    category: first(raw.category),
    tool_type: first(raw.tool_type),
    sort: (SEARCH_SORTS as readonly string[]).includes(sort ?? "") ? (sort as SearchSort) : undefined,
    // Without a cursor, pages end where offsets do.
    page: cursor ? valid : Math.min(valid, MAX_OFFSET_PAGE),
    cursor,
  };
}

export const isItemType = (v: string | undefined): v is ItemType => (ITEM_TYPES as readonly string[]).includes(v ?? "");

export const FILTER_KEYS = ["type", "namespace", "category", "tool_type"] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const hasFilters = (s: SearchState) => FILTER_KEYS.some((k) => s[k] !== undefined);

/**
 * The address of `state` with `changes` applied. Changing the query, a filter or the sort goes back
 * to the first page; only explicit page changes keep a page (and cursor).
 */
export function searchHref(state: SearchState, changes: Partial<SearchState> = {}): string {
  const paging = "page" in changes || "cursor" in changes;
  const next: SearchState = { ...state, ...changes, ...(paging ? {} : { page: 1, cursor: undefined }) };
  const params = new URLSearchParams();
  if (next.q) params.set("q", next.q);
  for (const key of FILTER_KEYS) {
    const value = next[key];
    if (value) params.set(key, value);
  }
  if (next.sort) params.set("sort", next.sort);
  if (next.page > 1) params.set("page", String(next.page));
  if (next.cursor) params.set("cursor", next.cursor);
  const query = params.toString();
  return query ? `/search?${query}` : "/search";
}

/** The API request for `state` (always with facets). */
export function apiSearchPath(state: SearchState): string {
  const params = new URLSearchParams({ query: state.q, limit: String(PAGE_SIZE), facets: "1" });
  if (state.type) params.set("item_type", state.type);
  if (state.namespace) params.set("namespace", state.namespace);
  if (state.category) params.set("category", state.category);
  if (state.tool_type) params.set("tool_type", state.tool_type);
  if (state.sort) params.set("sort", state.sort);
  const offset = (state.page - 1) * PAGE_SIZE;
  if (state.cursor) params.set("cursor", state.cursor);
  else if (offset > 0) params.set("offset", String(Math.min(offset, MAX_OFFSET)));
  return `/v1/search?${params}`;
}

/** Previous and next page addresses (undefined where there is none). */
export function pageLinks(state: SearchState, nextCursor: string | null): { prev?: string; next?: string } {
  const links: { prev?: string; next?: string } = {};
  if (state.page > 1 && state.page - 1 <= MAX_OFFSET_PAGE) links.prev = searchHref(state, { page: state.page - 1, cursor: undefined });
  if (nextCursor) {
    const page = state.page + 1;
    links.next = page <= MAX_OFFSET_PAGE ? searchHref(state, { page, cursor: undefined }) : searchHref(state, { page, cursor: nextCursor });
  }
  return links;
}
