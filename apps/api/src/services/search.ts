/**
 * GET /v1/search: weighted full-text search over `items.search_document` (name A > description B >
 * category C > content D) with a pg_trgm fallback on the name, visibility-aware, keyset-paginated,
 * sortable, with optional facet counts.
 *
 * Every value from the request reaches SQL as a bind parameter; the SQL text is built only from
 * constants. Relevance (`score`, higher first, ties by id):
 *   2 + rank   the name equals the query (case-insensitive)
 *   1 + rank   a full-text match; rank = ts_rank_cd(weights {D 0.1, C 0.2, B 0.4, A 1.0}, normalization 32) ∈ [0, 1)
 *   0 … 1      a trigram-only match: max(similarity, word_similarity) of query and name, ties broken by
 *              similarity (0.999 × max + 0.001 × similarity)
 * Trigram matches are added ("fuzzy" match) when the full-text query finds fewer than `limit` items or
 * has no lexemes; the match is fixed on the first page and carried in the cursor, so pages stay consistent.
 * The trigram test uses the operators (`%`, `<%`) the GIN trigram index on name serves. Descriptions are
 * not fuzzy-matched: without a trigram index on them that forces a sequential scan (measured 4.7 ms →
 * 264 ms at 50 000 items). An empty query matches every visible item; a query without any letter or
 * digit can match nothing and is answered without touching the database.
 *
 * Sorts: `relevance` (the default for a query; an empty query has no relevance and is listed by
 * `recent`), `recent` (updated_at, newest first), `downloads` (download_count, most first) and `quality`
 * (the quality score, QUALITY_SCORE_SQL, highest first; `min_quality` filters on the same score); ties by
 * id. A download-sorted walk is keyset-paginated on live counts: an item pulled between two pages can
 * move across the page boundary (seen twice or not at all), as on any registry that sorts by popularity.
 *
 * Facets (`facets: true`) count the same visibility-filtered match set: item_type, namespace (top 20)
 * and tool_type each ignore their own filter and apply the others (so the other values stay
 * selectable, with the count that selecting them gives); category counts the next category level
 * under the category filter (top-level segments without one), which is exactly what filtering by that
 * value returns (category filters are prefixes on whole segments). Without filters, the facets and the
 * total come from one scan (GROUPING SETS) instead of the separate count: a facet request costs about
 * what the count costs (measured in apps/web/bench/search.bench.ts).
 *
 * Broad queries (services at 100 000 items): when the planner estimates more than `exactCountMax` (5 000)
 * matches, counting them exactly would cost more than the whole page, so `total` is the planner's
 * estimate, the facets are counted on the first `facetSampleRows` (2 000) matches and scaled to it, and
 * the answer says `total_estimated: true`; a sample smaller than its limit is the whole match set and
 * gives exact counts instead. A one-word query sorted by relevance (optionally filtered by type) then
 * walks `item_search_terms` (term, rank DESC), where a trigger keeps each lexeme's ts_rank_cd for the
 * item, instead of ranking every match: the same scores and order as ranking them all, reading about a
 * page of rows. Items whose name equals the query (score 2 + rank) come from the index on lower(name) and
 * are put first, as the ranking does. A broad query of several words ANDed (no OR, NOT or phrase) ranks,
 * with the full expression, only candidates: per word, the first `candidateMatchesPerTerm` (100, at least
 * a page) of its `candidatesPerTerm` (1 000) best items by that word's rank that hold every other word
 * (probed in item_search_terms). A bounded candidate set, so an item ranked low for every word alone can
 * miss the first pages; when the candidates cannot fill the page, every match is ranked as before.
 *
 * Typo queries (the trigram fallback) with more than `fuzzyExactCountMax` (1 000) estimated matches page
 * the names nearest the query from a GiST trigram index (KNN by word similarity, then similarity; see
 * `rankedNearest`), answer with the planner's estimated total and count facets on the `fuzzySampleRows`
 * (100) nearest names, scaled; a first page with facets takes its candidates and the facet sample from one
 * walk. Below that every match is ranked and counted.
 *
 * PGlite answers one query at a time, in this thread, and converts every value of every row it returns
 * to JavaScript one by one: there, an exact relevance page, its total and its facets are one statement
 * that finds the matches once (`rankedWithCounts`), and pages and facet groups come back as one JSON value
 * (`selectRows`). Each way is tested to answer as the other.
 *
 * Anonymous listings without a query and without a namespace, category or tool_type filter (the browse
 * page, the home page, a type's listing) are the same for every visitor and count nearly every public
 * item: their total and facets are shared for BROWSE_COUNTS_TTL_MS (5 s) per process, so they may lag a
 * publish by that much; the results themselves are always read live. Signed-in callers, queries and
 * narrower listings always count live.
 */
import { createHash } from "node:crypto";
import type { RegistryItemType as ItemType, SearchFacets, SearchResponse, SearchResult, SearchSort } from "@rye/core";
import { RyeError } from "@rye/core";
import type { Database } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { QUALITY_SCORE_SQL } from "./quality.ts";

export type { SearchResponse, SearchResult } from "@rye/core";

export const SEARCH_MAX_QUERY_CHARS = 256;
export const SEARCH_MAX_LIMIT = 100;
/** Largest namespace and category facet lists. */
export const FACET_TOP = 20;
/** Above this many estimated matches, totals and facets are estimates (see the top of this module). */
export const SEARCH_EXACT_COUNT_MAX = 5_000;
/** How many matches estimated facets are counted on. */
export const FACET_SAMPLE_ROWS = 2_000;
/** A broad query of several words ranks the items among each word's this many best (see the top). */
export const CANDIDATES_PER_TERM = 1_000;
/** … of which the first this many holding every word of the query are ranked (at least a page's worth). */
export const CANDIDATE_MATCHES_PER_TERM = 100;
/** Above this many estimated trigram matches, a typo query pages its nearest names (see the top). */
export const FUZZY_EXACT_COUNT_MAX = 1_000;
/** How many nearest trigram matches estimated typo facets are counted on. */
export const FUZZY_SAMPLE_ROWS = 100;

/** The thresholds above, overridable so tests can reach the estimated path with a few items. */
export interface SearchTuning {
  exactCountMax: number;
  facetSampleRows: number;
  candidatesPerTerm: number;
  candidateMatchesPerTerm: number;
  fuzzyExactCountMax: number;
  fuzzySampleRows: number;
  /**
   * An exact relevance page with its count and facets in one statement (`rankedWithCounts`). "auto": on
   * PGlite, which answers one query at a time (the statement finds and scores the matches once); PostgreSQL
   * answers the separate queries at once, on its own cores. Tests choose each way to compare them.
   */
  oneStatement: boolean | "auto";
  /** Rows of a page or of facet groups as one JSON value (`selectRows`). "auto": on PGlite. */
  jsonRows: boolean | "auto";
}
const DEFAULT_TUNING: SearchTuning = {
  exactCountMax: SEARCH_EXACT_COUNT_MAX,
  facetSampleRows: FACET_SAMPLE_ROWS,
  candidatesPerTerm: CANDIDATES_PER_TERM,
  candidateMatchesPerTerm: CANDIDATE_MATCHES_PER_TERM,
  fuzzyExactCountMax: FUZZY_EXACT_COUNT_MAX,
  fuzzySampleRows: FUZZY_SAMPLE_ROWS,
  oneStatement: "auto",
  jsonRows: "auto",
};

/** The database as the search queries use it: the engine, its SQL, and the shape multi-row results take. */
interface SearchDb {
  kind: Database["kind"];
  raw: Database["raw"];
  jsonRows: boolean;
}

export interface SearchInput {
  query: string;
  itemType?: ItemType | undefined;
  namespace?: string | undefined;
  /** Prefix on whole segments: `rye/core` matches `rye/core` and `rye/core/x`, not `rye/corex`. */
  category?: string | undefined;
  toolType?: string | undefined;
  /** Only items whose quality score (docs/quality.md) is at least this, 0 … 100. */
  minQuality?: number | undefined;
  /** Default: relevance for a non-empty query, recent for an empty one. */
  sort?: SearchSort | undefined;
  /** Add facet counts to the answer. */
  facets?: boolean | undefined;
  limit: number;
  /** The original API's offset; not combinable with `cursor`. */
  offset?: number | undefined;
  cursor?: string | undefined;
}

/** Which items match: every visible one, full-text matches, or full-text plus trigram matches. */
type Match = "all" | "text" | "fuzzy";
/** The sort key column of the page query. */
type Order = "score" | "updated_at" | "download_count" | "quality";
const ORDER_OF: Record<SearchSort, Order> = { relevance: "score", recent: "updated_at", downloads: "download_count", quality: "quality" };
const KEY_TYPE: Record<Order, string> = { score: "float8", updated_at: "timestamptz", download_count: "int8", quality: "int4" };

interface Cursor {
  match: Match;
  order: Order;
  /** The last row's sort key: its score, its download count, or its updated_at (ISO). */
  key: number | string;
  id: string;
  /** Binds the cursor to one query + filters + sort. */
  fingerprint: string;
}

interface Row {
  id: string;
  type: ItemType;
  namespace: string;
  category: string;
  name: string;
  description: string;
  latest_version: string | null;
  download_count: number;
  created_at: Date;
  updated_at: Date;
  tool_type: string | null;
  deprecated: boolean;
  visibility: "public" | "private";
  score: number | null;
  quality: number;
}

/** Collects bind parameters; `add` returns the placeholder. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

// Control characters cannot help a search and NUL is not even storable in a PostgreSQL text value.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

export function normalizeQuery(raw: string): string {
  const query = raw.replace(CONTROL_CHARS, " ").trim();
  if ([...query].length > SEARCH_MAX_QUERY_CHARS) {
    throw new RyeError("BAD_REQUEST", `The search query is longer than ${SEARCH_MAX_QUERY_CHARS} characters`, { hint: "Search with fewer, more specific words." });
  }
  return query;
}

export async function searchItems(database: Database, principal: Principal | null, input: SearchInput, tuning: SearchTuning = DEFAULT_TUNING): Promise<SearchResponse> {
  const db: SearchDb = { kind: database.kind, raw: database.raw, jsonRows: tuning.jsonRows === "auto" ? database.kind === "pglite" : tuning.jsonRows };
  const query = normalizeQuery(input.query);
  const filters: Filters = { query, itemType: input.itemType, namespace: input.namespace?.toLowerCase(), category: input.category?.replace(/^\/+|\/+$/g, "") || undefined, toolType: input.toolType, minQuality: input.minQuality || undefined, remoteMcp: principal?.remoteMcp === true };
  if (input.minQuality !== undefined && !(Number.isInteger(input.minQuality) && input.minQuality >= 0 && input.minQuality <= 100)) {
    throw new RyeError("BAD_REQUEST", "min_quality must be a whole number from 0 to 100", { hint: "Quality scores are 0 … 100; see docs/quality.md." });
  }
  if (input.limit < 1 || input.limit > SEARCH_MAX_LIMIT) throw new RyeError("BAD_REQUEST", `limit must be between 1 and ${SEARCH_MAX_LIMIT}`);
  if (input.cursor !== undefined && input.offset !== undefined) throw new RyeError("BAD_REQUEST", "Pass either cursor or offset, not both", { hint: "Follow next_cursor from the previous page." });
  // An empty query has no relevance: it is listed by recency, whatever was asked.
  const sort: SearchSort = query === "" && (input.sort === undefined || input.sort === "relevance") ? "recent" : (input.sort ?? "relevance");
  const order = ORDER_OF[sort];
  const fingerprint = fingerprintOf(filters, sort);
  const cursor = input.cursor === undefined ? null : decodeCursor(input.cursor, fingerprint);
  if (cursor && cursor.order !== order) throw invalidCursor();
  const userId = principal?.userId ?? null;

  const offset = input.offset ?? 0;
  // With facets, the facet query counts the match set too (its grand-total grouping set): no separate count.
  // The trigram fallback's estimate, asked for early on PostgreSQL (see below).
  let fuzzyEstimate: Promise<number> | null = null;
  const run = async (match: Match): Promise<Found> => {
    if (match !== "all") {
      const max = match === "fuzzy" ? tuning.fuzzyExactCountMax : tuning.exactCountMax;
      const wantsLexemes = order === "score" && match === "text" && !filters.namespace && !filters.category && !filters.toolType;
      // PostgreSQL answers both at once; PGlite answers one query at a time, so it asks for the lexemes only
      // when the query is broad.
      if (db.kind === "pglite") {
        const estimate = await estimateMatches(db, filters, userId, match);
        if (estimate > max) return broad(match, estimate, wantsLexemes ? await andedLexemes(db, query) : null);
      } else {
        const [estimate, lexemes] = await Promise.all([(match === "fuzzy" && fuzzyEstimate) || estimateMatches(db, filters, userId, match), wantsLexemes ? andedLexemes(db, query) : null]);
        if (estimate > max) return broad(match, estimate, lexemes);
        // Full text expects less than a page: the trigram fallback will most likely run, and planning its
        // estimate (the trigram selectivity is computed on the column's statistics) took 1–4 ms at 100 000
        // items. Ask now, beside the text page, instead of after it.
        if (match === "text" && !cursor && estimate < input.limit) {
          fuzzyEstimate = estimateMatches(db, filters, userId, "fuzzy");
          fuzzyEstimate.catch(() => {}); // awaited by the fallback when it runs; unused otherwise
        }
      }
      // Every facet counts the match set itself (no type, namespace or tool_type filter): one statement.
      const oneStatement = tuning.oneStatement === "auto" ? db.kind === "pglite" : tuning.oneStatement;
      if (oneStatement && order === "score" && (!input.facets || sharedFacetFields(filters).length === FACET_FIELDS.length)) {
        const counted = await rankedWithCounts(db, filters, userId, match, cursor, input.limit + 1, offset, input.facets === true);
        return { match, ...counted };
      }
    }
    const page = pageOf(db, filters, userId, match, order, cursor, input.limit + 1, offset);
    // Anonymous listings of everything (or of one type) are the same for every visitor and count most of
    // the table: their counts are shared briefly. Narrower listings (a namespace, a category) count live.
    const shared = match === "all" && userId === null && !filters.namespace && !filters.category && !filters.toolType && !filters.minQuality ? browseCounts(database) : null;
    if (input.facets) {
      const counting = shared ? shared.get(`f${fingerprintOf(filters, "recent")}`, () => facetCounts(db, filters, userId, match)) : facetCounts(db, filters, userId, match);
      const [rows, counted] = await Promise.all([page, counting]);
      return { match, rows, total: counted.total, facets: counted.facets ?? emptyFacets() };
    }
    const counting = shared ? shared.get(`c${fingerprintOf(filters, "recent")}`, async () => ({ total: await countMatches(db, filters, userId, match) })) : countMatches(db, filters, userId, match).then((total) => ({ total }));
    const [rows, { total }] = await Promise.all([page, counting]);
    return { match, rows, total };
  };
  /** A match set too large to count: estimated total and facets, and a walk of precomputed ranks for one word. */
  const broad = async (match: Match, estimate: number, lexemes: string[] | null): Promise<Found> => {
    const exactPage = () => pageOf(db, filters, userId, match, order, cursor, input.limit + 1, offset);
    // A typo's first page with facets: one walk of the nearest names gives the page's candidates and the facet
    // sample (the walk's first rows reach the page; its start, about the whole cost, is paid once).
    if (match === "fuzzy" && order === "score" && input.facets && !cursor && sharedFacetFields(filters).length === FACET_FIELDS.length) {
      const near = await rankedNearest(db, filters, userId, null, input.limit + 1, offset, tuning.fuzzySampleRows);
      const [rows, counted] = await Promise.all([
        near.rows ?? exactPage(),
        // Fewer names than the sample leave out text and similarity-only matches: counted exactly instead.
        near.sample!.size < tuning.fuzzySampleRows ? facetCounts(db, filters, userId, match) : Promise.resolve(scaledFacets(filters, near.sample!.groups, estimate)),
      ]);
      return { match, rows, ...counted };
    }
    const page =
      match === "fuzzy" && order === "score"
        ? rankedNearest(db, filters, userId, cursor, input.limit + 1, offset).then(({ rows }) => rows ?? exactPage())
        : lexemes?.length === 1
          ? rankedByTerm(db, filters, userId, lexemes[0]!, cursor, input.limit + 1, offset)
          : lexemes && lexemes.length > 1
            ? rankedAmongCandidates(db, filters, userId, lexemes, { walk: tuning.candidatesPerTerm, matches: tuning.candidateMatchesPerTerm }, cursor, input.limit + 1, offset).then((rows) => rows ?? exactPage())
            : exactPage();
    // Trigram matches are sampled nearest first (the GiST index's order): a plain LIMIT makes the planner
    // trade the trigram index for a sequential scan that computes similarity on every row.
    const sample = match === "fuzzy" ? { estimate, rows: tuning.fuzzySampleRows, nearest: true } : { estimate, rows: tuning.facetSampleRows };
    const counting = input.facets ? facetCounts(db, filters, userId, match, sample) : Promise.resolve({ total: estimate, estimated: true });
    const [rows, counted] = await Promise.all([page, counting]);
    return { match, rows, total: counted.total, estimated: counted.estimated, ...("facets" in counted ? { facets: counted.facets } : {}) };
  };
  let found: Found;
  if (cursor) found = await run(cursor.match);
  else if (query === "") found = await run("all");
  else if (!HAS_WORD.test(query)) found = { match: "text", rows: [], total: 0, facets: emptyFacets() };
  else {
    // Page and count in one round trip for the common case; fall back when full text finds too little.
    found = await run("text");
    if (found.total < input.limit) found = await run("fuzzy");
  }
  const { match, rows, total } = found;
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  const next = rows.length > input.limit && last ? encodeCursor({ match, order, key: sortKeyOf(last, order), id: last.id, fingerprint }) : null;
  const response: SearchResponse = { results: page.map(toResult), total, ...(found.estimated ? { total_estimated: true } : {}), limit: input.limit, offset, next_cursor: next, query, sort };
  if (input.facets) response.facets = found.facets ?? emptyFacets();
  return response;
}

interface Found {
  match: Match;
  rows: Row[];
  total: number;
  /** total (and facets) are estimates. */
  estimated?: boolean;
  facets?: SearchFacets;
}

/** Neither a lexeme nor a trigram can come from a query without a letter or digit. */
const HAS_WORD = /[\p{L}\p{N}]/u;

type Filters = Pick<SearchInput, "query" | "itemType" | "namespace" | "category" | "toolType" | "minQuality"> & {
  /** The caller is a remote MCP client (Principal.remoteMcp): organizations that forbid those count no members. */
  remoteMcp?: boolean;
};

/** The keyset condition of a page after `cursor` (sort key descending, then id ascending); TRUE for the first page. */
function afterCursor(p: Params, cursor: Cursor | null, sortKey: string, id: string, keyType = "float8"): string {
  if (!cursor) return "TRUE";
  const key = `${p.add(cursor.key)}::${keyType}`;
  return `(${sortKey} < ${key} OR (${sortKey} = ${key} AND ${id} > ${p.add(cursor.id)}::uuid))`;
}

function sortKeyOf(row: Row, order: Order): number | string {
  if (order === "updated_at") return new Date(row.updated_at).toISOString();
  if (order === "quality") return Number(row.quality);
  return order === "score" ? Number(row.score) : Number(row.download_count);
}

/** The membership test's extra condition for a remote MCP client (services/access.ts namespaceAccess). */
const REMOTE_MCP_ALLOWED = " AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = m.org_id AND o.allow_remote_mcp)";

/** WHERE clauses shared by the page, the count and the facets: visibility, filters and the match. */
function whereClause(p: Params, f: Filters, userId: string | null, match: Match): string {
  // Anonymous callers see public items only; the membership test is left out of their SQL altogether (a
  // subquery less to plan, on every query).
  const uid = userId === null ? null : `${p.add(userId)}::uuid`;
  const where = [
    uid === null
      ? "i.visibility = 'public'"
      : `(i.visibility = 'public' OR (i.visibility = 'private' AND (n.user_id = ${uid}
       OR EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = n.org_id AND m.user_id = ${uid}${f.remoteMcp ? REMOTE_MCP_ALLOWED : ""}))))`,
    // An item none of whose versions is approved yet is in no search (services/approval.ts).
    "NOT i.held",
  ];
  if (f.itemType) where.push(`i.type = ${p.add(f.itemType)}::item_type`);
  if (f.namespace) where.push(`n.name = ${p.add(f.namespace)}::text`);
  if (f.category) {
    const c = `${p.add(f.category)}::text`;
    where.push(`(i.category = ${c} OR starts_with(i.category, ${c} || '/'))`);
  }
  if (f.toolType) where.push(`i.tool_type = ${p.add(f.toolType)}::text`);
  if (f.minQuality) where.push(`${QUALITY_SCORE_SQL} >= ${p.add(f.minQuality)}::int`);
  if (match !== "all") {
    const m = matchExpressions(p, f.query);
    where.push(match === "text" ? m.text : `(${m.text} OR ${m.fuzzy})`);
  }
  return where.join(" AND ");
}

/** The full-text and trigram conditions and the score (see the top of this module) for `query`. */
function matchExpressions(p: Params, query: string) {
  const q = `${p.add(query)}::text`;
  const tsq = `websearch_to_tsquery('simple', ${q})`;
  const text = `i.search_document @@ ${tsq}`;
  const exact = `lower(i.name) = lower(${q})`;
  const textScore = `(CASE WHEN ${exact} THEN 2 ELSE 1 END + ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', i.search_document, ${tsq}, 32)::float8)`;
  // Ties of the first term (names holding the same word, say) go to the name closest as a whole.
  const similarityOf = (sim: string, wordSim: string) => `(0.999 * GREATEST(${sim}, ${wordSim}) + 0.001 * ${sim})::float8`;
  const trigramScore = (similarity: string) => `CASE WHEN ${text} THEN ${textScore} WHEN ${exact} THEN 2 ELSE ${similarity} END`;
  return {
    text,
    fuzzy: `(i.name % ${q} OR ${q} <% i.name)`,
    score: (match: Match) => (match === "text" ? textScore : trigramScore(similarityOf(`similarity(i.name, ${q})`, `word_similarity(${q}, i.name)`))),
    /**
     * The trigram score from `similarities`' columns (s.sim, s.word_sim), each function computed once a row
     * instead of three times: a lateral join for queries that score every match (the same values).
     */
    similarities: `CROSS JOIN LATERAL (SELECT similarity(i.name, ${q}) AS sim, word_similarity(${q}, i.name) AS word_sim OFFSET 0) s`,
    lateralScore: () => trigramScore(similarityOf("s.sim", "s.word_sim")),
  };
}

const FROM = "FROM items i JOIN namespaces n ON n.id = i.namespace_id";
/**
 * `FROM` without the namespaces join when no condition of `whereClause` reads the namespace (anonymous, no
 * namespace filter), for queries that need no namespace column. Every item has its namespace (foreign key),
 * so the rows and the planner's estimates are the same (measured equal at 100 000 items).
 */
const fromItems = (f: Filters, userId: string | null): string => (userId === null && !f.namespace ? "FROM items i" : FROM);

/**
 * The planner's estimate of the match set's size (EXPLAIN, no execution: about a millisecond), without the
 * namespaces join where it can (`fromItems`; a quarter of the statement's time on PGlite).
 */
async function estimateMatches(db: SearchDb, f: Filters, userId: string | null, match: Match): Promise<number> {
  const p = new Params();
  const { rows } = await db.raw.query<Record<string, unknown>>(`EXPLAIN (FORMAT JSON) SELECT 1 ${fromItems(f, userId)} WHERE ${whereClause(p, f, userId, match)}`, p.values);
  const raw = Object.values(rows[0] ?? {})[0];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan?: { "Plan Rows"?: unknown } }] | undefined;
  const estimate = Number(plan?.[0]?.Plan?.["Plan Rows"]);
  return Number.isFinite(estimate) && estimate >= 0 ? Math.round(estimate) : 0;
}

/** Most words a query may have for the candidate-bounded ranking; longer queries rank every match. */
const MAX_CANDIDATE_WORDS = 8;

/** The query's lexemes when its full-text query is one lexeme or several ANDed (no OR, NOT, phrase); else null. */
async function andedLexemes(db: SearchDb, query: string): Promise<string[] | null> {
  const { rows } = await db.raw.query<{ nodes: number; operators: boolean; lexemes: string[] | null }>(
    `SELECT numnode(q) AS nodes, q::text ~ '[|!<]' AS operators, tsvector_to_array(to_tsvector('simple', $1::text)) AS lexemes FROM websearch_to_tsquery('simple', $1::text) q`,
    [query],
  );
  const row = rows[0];
  const lexemes = row?.lexemes ?? [];
  if (!row || row.operators || lexemes.length === 0 || lexemes.length > MAX_CANDIDATE_WORDS) return null;
  // n lexemes ANDed are 2n - 1 nodes; a repeated word makes fewer distinct lexemes than nodes say.
  return Number(row.nodes) === 2 * lexemes.length - 1 ? lexemes : null;
}

/**
 * A relevance page ranked with the full expression among each lexeme's best items that hold every other
 * lexeme too: per lexeme, its `walk` best postings by that lexeme's rank (item_search_terms), kept when
 * the item's postings hold the other lexemes (index probes, no heap read), the first `matches` kept. The
 * candidates are then read and ranked. Null when they cannot fill the page (the caller ranks every match).
 */
async function rankedAmongCandidates(db: SearchDb, f: Filters, userId: string | null, lexemes: string[], bounds: { walk: number; matches: number }, cursor: Cursor | null, limit: number, offset: number): Promise<Row[] | null> {
  const p = new Params();
  const walk = p.add(bounds.walk);
  const matches = p.add(Math.max(bounds.matches, offset + limit));
  // A scalar subquery per posting keeps the probe a nested index lookup; as EXISTS the planner may hash
  // the other lexeme's whole posting list instead.
  const perLexeme = lexemes.map((lexeme, k) => {
    const others = lexemes.filter((_, j) => j !== k);
    return `(SELECT s.item_id FROM (SELECT t.item_id FROM item_search_terms t WHERE t.term = ${p.add(lexeme)}::text ORDER BY t.rank DESC, t.item_id LIMIT ${walk}::int) s
        WHERE (SELECT count(*) FROM item_search_terms o WHERE o.term = ANY(${p.add(others)}::text[]) AND o.item_id = s.item_id) = ${others.length}
        LIMIT ${matches}::int)`;
  });
  const where = whereClause(p, f, userId, "text");
  const score = matchExpressions(p, f.query).score("text");
  const after = afterCursor(p, cursor, "r.score", "r.id");
  // OFFSET 0 keeps the lateral read per candidate (a join could scan every match of the query instead).
  const sql = `
    WITH candidates AS (${perLexeme.join(" UNION ")})
    SELECT r.* FROM candidates k CROSS JOIN LATERAL (
      SELECT i.id, i.type, n.name AS namespace, i.category, i.name, i.description, i.latest_version, i.download_count,
             i.created_at, i.updated_at, i.tool_type, i.deprecated, i.visibility, ${QUALITY_SCORE_SQL} AS quality, ${score} AS score
      ${FROM} WHERE i.id = k.item_id AND ${where} OFFSET 0
    ) r
    WHERE ${after}
    ORDER BY r.score DESC, r.id ASC
    LIMIT ${p.add(limit)}::int OFFSET ${p.add(offset)}::int`;
  const rows = await selectRows<Row>(db, sql, p.values, "x.score DESC, x.id");
  return rows.length >= limit ? rows : null;
}

/**
 * A relevance page of a typo (trigram) query from the names nearest the query by word similarity: the GiST
 * trigram index walks them nearest first (KNN, `<<->`) and stops after the page, instead of computing the
 * similarity of every match. When fewer names pass the word-similarity threshold than the page needs, the
 * names nearest by similarity (`<->`) join them; so do the full-text matches (fewer than a page, or the
 * query would not be fuzzy). The candidates are ranked with the full score, ties by id. Null when the
 * walks cannot fill the page (the caller then ranks every match). The walk orders by word similarity,
 * then similarity (the score's tie-break), but the GiST walk keeps the second order only loosely (its word
 * distances are rechecked on the heap): among many names of equal word similarity, which ones a page shows
 * is the index's choice, so the page can miss the one the exact ranking puts first among them (measured at
 * 100 000 items: "kubernets", 3 720 names of word similarity 0.8).
 */
async function rankedNearest(
  db: SearchDb,
  f: Filters,
  userId: string | null,
  cursor: Cursor | null,
  limit: number,
  offset: number,
  sampleRows?: number,
): Promise<{ rows: Row[] | null; sample?: { groups: FacetRow[]; size: number } }> {
  const p = new Params();
  const m = matchExpressions(p, f.query);
  const q = `${p.add(f.query)}::text`;
  const score = m.score("fuzzy");
  const after = afterCursor(p, cursor, score, "i.id");
  const want = p.add(offset + limit);
  const visible = whereClause(p, f, userId, "all");
  // With a sample, the walk goes on to its size; the page takes the walk's first `want` names either way (a
  // materialized CTE is read back in the order it was written).
  const walk = sampleRows === undefined ? want : `GREATEST(${want}::int, ${p.add(sampleRows)}::int)`;
  // Word similarity first (a word of the name close to the query); names close as a whole (similarity,
  // `%`) only when those are too few to fill the page: a full name with a typo is often below the word
  // similarity threshold.
  const ctes = `
    WITH near_word AS MATERIALIZED (
      SELECT i.id, i.type, i.namespace_id, i.category, i.tool_type ${fromItems(f, userId)} WHERE ${visible} AND ${q} <% i.name AND ${after}
      ORDER BY ${q} <<-> i.name, i.name <-> ${q} LIMIT ${walk}::int
    ), near_whole AS (
      SELECT i.id ${FROM} WHERE ${visible} AND i.name % ${q} AND ${after}
      ORDER BY i.name <-> ${q} LIMIT ${want}::int
    ), textual AS (
      SELECT i.id ${FROM} WHERE ${whereClause(p, f, userId, "text")} AND ${after} LIMIT ${want}::int
    ), candidates AS (
      SELECT id FROM (SELECT id FROM near_word LIMIT ${want}::int) w
      UNION SELECT id FROM near_whole WHERE (SELECT count(*) FROM near_word) < ${want}::int
      UNION SELECT id FROM textual
    )`;
  const page = `
    SELECT i.id, i.type, n.name AS namespace, i.category, i.name, i.description, i.latest_version, i.download_count,
           i.created_at, i.updated_at, i.tool_type, i.deprecated, i.visibility, ${QUALITY_SCORE_SQL} AS quality, ${score} AS score
    FROM candidates k JOIN items i ON i.id = k.id JOIN namespaces n ON n.id = i.namespace_id
    ORDER BY score DESC, i.id ASC
    LIMIT ${p.add(limit)}::int OFFSET ${p.add(offset)}::int`;
  if (sampleRows === undefined) {
    const rows = await selectRows<Row>(db, `${ctes} ${page}`, p.values, "x.score DESC, x.id");
    return { rows: rows.length >= limit ? rows : null };
  }
  const groupsSql = facetGroupsSql(f, FACET_FIELDS, true, `(SELECT * FROM near_word LIMIT ${p.add(sampleRows)}::int) m`);
  const sql = `${ctes}
    SELECT (SELECT json_agg(x ORDER BY x.score DESC, x.id) FROM (${page}) x) AS rows,
           (SELECT json_agg(g) FROM (${groupsSql}) g) AS groups`;
  const result = (await db.raw.query<{ rows: Row[] | string | null; groups: FacetRow[] | string | null }>(sql, p.values)).rows[0];
  const rows = parseJson<Row>(result?.rows);
  const groups = parseJson<FacetRow>(result?.groups);
  return { rows: rows.length >= limit ? rows : null, sample: { groups, size: Number(groups.find(isTotalRow)?.count ?? 0) } };
}

/**
 * A relevance page of a one-word query from `item_search_terms`: items named exactly like the query first
 * (score 2 + rank, from the index on lower(name)), then the term's items by precomputed rank (score
 * 1 + rank), ties by id, as `pageOf` orders them, reading only about the rows the page needs.
 */
async function rankedByTerm(db: SearchDb, f: Filters, userId: string | null, lexeme: string, cursor: Cursor | null, limit: number, offset: number): Promise<Row[]> {
  const columns = `i.id, i.type, n.name AS namespace, i.category, i.name, i.description, i.latest_version, i.download_count,
                   i.created_at, i.updated_at, i.tool_type, i.deprecated, i.visibility, ${QUALITY_SCORE_SQL} AS quality`;
  const key = cursor ? Number(cursor.key) : Number.POSITIVE_INFINITY;
  const after = (row: Row) => !cursor || Number(row.score) < key || (Number(row.score) === key && row.id > cursor.id);

  const p = new Params();
  const q = `${p.add(f.query)}::text`;
  const exactSql = `
    SELECT ${columns}, 2 + ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', i.search_document, websearch_to_tsquery('simple', ${q}), 32)::float8 AS score
    ${FROM} WHERE ${whereClause(p, f, userId, "text")} AND lower(i.name) = lower(${q})`;
  const where = [`t.term = ${p.add(lexeme)}::text`, whereClause(p, f, userId, "all")];
  if (cursor && key < 2) {
    const k = `${p.add(key)}::float8`;
    // The first test can use the (term, rank DESC) index; the second is the exact keyset condition.
    where.push(`t.rank <= (${k} - 1 + 1e-6)::real`, `(1 + t.rank::float8 < ${k} OR (1 + t.rank::float8 = ${k} AND t.item_id > ${p.add(cursor.id)}::uuid))`);
  }
  // One statement: the exact-name rows, then the walk, which skips them (a constant LIMIT keeps the
  // planner on the index walk).
  where.push(`lower(i.name) <> lower(${q})`);
  const sql = `
    (SELECT true AS exact, * FROM (${exactSql}) e)
    UNION ALL (
      SELECT false, ${columns}, 1 + t.rank::float8 AS score
      FROM item_search_terms t JOIN items i ON i.id = t.item_id JOIN namespaces n ON n.id = i.namespace_id
      WHERE ${where.join(" AND ")}
      ORDER BY t.rank DESC, t.item_id ASC
      LIMIT ${p.add(offset + limit)}::int
    )`;
  const found = (await selectRows<Row & { exact: boolean }>(db, sql, p.values)).map(({ exact, ...row }) => ({ row: row as Row, exact }));
  const byScore = (a: Row, b: Row) => Number(b.score) - Number(a.score) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const exact = found.filter((r) => r.exact).map((r) => r.row).sort(byScore);
  const exactIds = new Set(exact.map((r) => r.id));
  const out = exact.filter(after);
  // The walk's order (rank DESC, id), restated: UNION ALL does not promise to keep it.
  for (const row of found.filter((r) => !r.exact).map((r) => r.row).sort(byScore)) {
    if (exactIds.has(row.id)) continue;
    if (!after(row)) continue;
    out.push(row);
  }
  return out.slice(offset, offset + limit);
}

async function countMatches(db: SearchDb, f: Filters, userId: string | null, match: Match): Promise<number> {
  const p = new Params();
  const sql = `SELECT count(*) AS total ${FROM} WHERE ${whereClause(p, f, userId, match)}`;
  const { rows } = await db.raw.query<{ total: bigint }>(sql, p.values);
  return Number(rows[0]?.total ?? 0);
}

async function pageOf(db: SearchDb, f: Filters, userId: string | null, match: Match, order: Order, cursor: Cursor | null, limit: number, offset: number): Promise<Row[]> {
  const p = new Params();
  const where = whereClause(p, f, userId, match);
  // The score is computed only when it orders the page: ranking every match is the expensive part.
  const score = match === "all" || order !== "score" ? "NULL::float8" : matchExpressions(p, f.query).score(match);
  const sortKey = `r.${order}`;
  const after = afterCursor(p, cursor, sortKey, "r.id", KEY_TYPE[order]);
  const sql = `
    SELECT * FROM (
      SELECT i.id, i.type, n.name AS namespace, i.category, i.name, i.description, i.latest_version, i.download_count,
             i.created_at, i.updated_at, i.tool_type, i.deprecated, i.visibility, ${QUALITY_SCORE_SQL} AS quality, ${score} AS score
      ${FROM} WHERE ${where}
    ) r
    WHERE ${after}
    ORDER BY ${sortKey} DESC, r.id ASC
    LIMIT ${p.add(limit)}::int OFFSET ${p.add(offset)}::int`;
  return selectRows<Row>(db, sql, p.values, `x.${order} DESC, x.id`);
}

/**
 * An exact relevance page and the size of its match set — with `facets`, the facet counts too — in one
 * statement: the matches are read and scored once, into a set the page, the total and the facet groupings
 * share (the page, count and facet queries otherwise each find and test every match again; on PGlite,
 * which answers one query at a time, also one after the other). Only for facets that all count the query's
 * own match set. The page is `pageOf`'s: the same score, keyset and order.
 */
async function rankedWithCounts(
  db: SearchDb,
  f: Filters,
  userId: string | null,
  match: "text" | "fuzzy",
  cursor: Cursor | null,
  limit: number,
  offset: number,
  facets: boolean,
): Promise<{ rows: Row[]; total: number; facets?: SearchFacets }> {
  const p = new Params();
  const where = whereClause(p, f, userId, match);
  const m = matchExpressions(p, f.query);
  // Trigram matches: each similarity computed once a row (the score uses them up to three times).
  const [score, similarities] = match === "fuzzy" ? [m.lateralScore(), m.similarities] : [m.score(match), ""];
  const after = afterCursor(p, cursor, "m.score", "m.id");
  const groupsSql = facetGroupsSql(f, facets ? FACET_FIELDS : [], true, "m");
  const sql = `
    WITH m AS MATERIALIZED (
      SELECT i.id, i.type, i.namespace_id, i.category, i.tool_type, ${score} AS score ${fromItems(f, userId)} ${similarities} WHERE ${where}
    ), top AS (
      SELECT m.id, m.score FROM m WHERE ${after} ORDER BY m.score DESC, m.id ASC LIMIT ${p.add(limit)}::int OFFSET ${p.add(offset)}::int
    ), counts AS (
      SELECT json_agg(g) AS groups FROM (${groupsSql}) g
    )
    SELECT (SELECT groups FROM counts) AS groups, (
      SELECT json_agg(r ORDER BY r.score DESC, r.id ASC) FROM (
        SELECT i.id, i.type, n.name AS namespace, i.category, i.name, i.description, i.latest_version, i.download_count,
               i.created_at, i.updated_at, i.tool_type, i.deprecated, i.visibility, ${QUALITY_SCORE_SQL} AS quality, t.score
        FROM top t JOIN items i ON i.id = t.id JOIN namespaces n ON n.id = i.namespace_id
      ) r
    ) AS rows`;
  // One row of two JSON values (the page's rows and the groups), whichever the engine: see selectRows.
  const result = (await db.raw.query<{ groups: FacetRow[] | string | null; rows: Row[] | string | null }>(sql, p.values)).rows[0];
  const groups = parseJson<FacetRow>(result?.groups);
  const rows = parseJson<Row>(result?.rows);
  const total = Number(groups.find(isTotalRow)?.count ?? 0);
  return { rows, total, ...(facets ? { facets: facetsOf(f, groups) } : {}) };
}

/** A JSON array as the driver returns it (PGlite parses json values, pg too; text when cast): [] for NULL. */
function parseJson<T>(value: T[] | string | null | undefined): T[] {
  if (value === null || value === undefined) return [];
  return typeof value === "string" ? (JSON.parse(value) as T[]) : value;
}

/**
 * The rows of a query. With `jsonRows` (PGlite), as one JSON array: PGlite turns every value of every row
 * into JavaScript one by one, about 2.5 µs a value (measured: 786 rows of 4 columns took 8 ms to convert and
 * 2 ms to find), and one JSON value costs a single JSON.parse. `order` restates the query's own order
 * (an aggregate does not promise its input's); the values are those the rows would carry (timestamps as
 * ISO text, which the callers read through Date either way).
 */
async function selectRows<R>(db: SearchDb, sql: string, params: unknown[], order?: string): Promise<R[]> {
  if (!db.jsonRows) return (await db.raw.query<R>(sql, params)).rows;
  const wrapped = `SELECT json_agg(x${order ? ` ORDER BY ${order}` : ""}) AS rows FROM (${sql}) x`;
  return parseJson<R>((await db.raw.query<{ rows: R[] | string | null }>(wrapped, params)).rows[0]?.rows);
}

/** How long anonymous, query-less counts (total and facets of a browse listing) are shared. */
export const BROWSE_COUNTS_TTL_MS = 5_000;
const BROWSE_COUNTS_MAX = 500;

/** Short-lived shared results per key; concurrent callers share one computation; failures are not kept. */
class SharedCounts<T> {
  private readonly entries = new Map<string, { expires: number; value: Promise<T> }>();
  get(key: string, compute: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (this.entries.size >= BROWSE_COUNTS_MAX) {
      for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
      if (this.entries.size >= BROWSE_COUNTS_MAX) this.entries.delete(this.entries.keys().next().value!);
    }
    const value = compute();
    this.entries.set(key, { expires: now + BROWSE_COUNTS_TTL_MS, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

type Counted = { total: number; facets?: SearchFacets };
const browseCaches = new WeakMap<Database, SharedCounts<Counted>>();
function browseCounts(db: Database): SharedCounts<Counted> {
  let cache = browseCaches.get(db);
  if (!cache) browseCaches.set(db, (cache = new SharedCounts<Counted>()));
  return cache;
}

const emptyFacets = (): SearchFacets => ({ item_type: [], namespace: [], category: [], tool_type: [] });

type FacetField = "type" | "namespace" | "category" | "tool_type";
const FACET_FIELDS: FacetField[] = ["type", "namespace", "category", "tool_type"];

/** One group: its field's value, and per field whether the group is over it (0) or not (1, GROUPING()). */
type FacetRow = { count: bigint | number } & { [F in FacetField]: string | null } & { [F in FacetField as `g_${F}`]: number };

/** The facet fields that a query with filters `f` counts on its own match set (the others ignore their own filter). */
const sharedFacetFields = (f: Filters): FacetField[] => FACET_FIELDS.filter((field) => OWN_FILTER[field] === null || !f[OWN_FILTER[field]!]);
const OWN_FILTER: Record<FacetField, keyof Filters | null> = { type: "itemType", namespace: "namespace", category: null, tool_type: "toolType" };

/**
 * SQL counting `fields` (and the grand total when `total`) over `source`: rows (type, namespace_id, category,
 * tool_type) named m. Groups on the stored values (the enum, the namespace's id) and names them after
 * grouping, a cast and a join per group instead of per row (a fifth of grouping a 2 000-row sample on PGlite).
 */
function facetGroupsSql(f: Filters, fields: FacetField[], total: boolean, source: string): string {
  // The next category level under the filter: segment depth+1 of the categories inside it.
  const depth = f.category ? f.category.split("/").length : 0;
  const expressions: Record<FacetField, string> = {
    type: "m.type",
    namespace: "m.namespace_id",
    category: `split_part(m.category, '/', ${depth + 1})`,
    tool_type: "m.tool_type",
  };
  const none: Record<FacetField, string> = { type: "NULL::item_type", namespace: "NULL::uuid", category: "NULL::text", tool_type: "NULL::text" };
  const sets = [...(total ? ["()"] : []), ...fields.map((field) => `(${expressions[field]})`)].join(", ");
  // GROUPING() only takes expressions of the grouping sets: the other fields are constants here.
  const columns = FACET_FIELDS.map((field) => (fields.includes(field) ? `GROUPING(${expressions[field]})::int AS g_${field}, ${expressions[field]} AS ${field}` : `1 AS g_${field}, ${none[field]} AS ${field}`));
  return `SELECT g.g_type, g.type::text AS type, g.g_namespace, ns.name AS namespace, g.g_category, g.category, g.g_tool_type, g.tool_type, g.count
    FROM (SELECT ${columns.join(", ")}, count(*) AS count FROM ${source} GROUP BY GROUPING SETS (${sets})) g
    LEFT JOIN namespaces ns ON ns.id = g.namespace`;
}

const isTotalRow = (r: FacetRow) => FACET_FIELDS.every((field) => Number(r[`g_${field}`]) === 1);

/** The facet lists of grouped rows (the grand-total rows are skipped). */
function facetsOf(f: Filters, grouped: FacetRow[]): SearchFacets {
  const rows = grouped.filter((r) => !isTotalRow(r));
  const values = (field: FacetField, top: number | null, prefix = "") => {
    const list = rows
      .filter((r) => Number(r[`g_${field}`]) === 0 && r[field] !== null && r[field] !== "")
      .map((r) => ({ value: `${prefix}${r[field]}`, count: Number(r.count) }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    return top === null ? list : list.slice(0, top);
  };
  return {
    item_type: values("type", null),
    namespace: values("namespace", FACET_TOP),
    category: values("category", FACET_TOP, f.category ? `${f.category}/` : ""),
    tool_type: values("tool_type", FACET_TOP),
  };
}

/**
 * Facet counts and the total of the match set. Facets that share the full filter set come from one
 * scan with GROUPING SETS (plus the grand total); a facet whose own filter is set is counted without
 * it, in its own query (at most three more).
 */
async function facetCounts(
  db: SearchDb,
  f: Filters,
  userId: string | null,
  match: Match,
  sample?: { estimate: number; rows: number; nearest?: boolean },
): Promise<{ total: number; facets: SearchFacets; estimated?: boolean }> {
  // Sampled: every grouping also counts its sample (the grand total), to scale by.
  const grouped = async (filters: Filters, fields: FacetField[], total: boolean, sample: { estimate: number; rows: number; nearest?: boolean } | undefined): Promise<{ rows: FacetRow[]; exact: boolean; size?: number }> => {
    const p = new Params();
    let source: string;
    if (sample?.nearest) {
      // The names nearest the query by word similarity, then similarity (all of them pass `<%`, so all are
      // matches): `rankedNearest`'s walk, which gives the same sample to a first page with facets.
      const q = `${p.add(filters.query)}::text`;
      source = `(SELECT i.type, i.namespace_id, i.category, i.tool_type ${fromItems(filters, userId)} WHERE ${whereClause(p, filters, userId, "all")} AND ${q} <% i.name
                 ORDER BY ${q} <<-> i.name, i.name <-> ${q} LIMIT ${p.add(sample.rows)}::int) m`;
    } else {
      const where = whereClause(p, filters, userId, match);
      const limit = sample ? ` LIMIT ${p.add(sample.rows)}::int` : "";
      source = `(SELECT i.type, i.namespace_id, i.category, i.tool_type ${fromItems(filters, userId)} WHERE ${where}${limit}) m`;
    }
    const sql = facetGroupsSql(f, fields, total || sample !== undefined, source);
    const rows = await selectRows<FacetRow>(db, sql, p.values);
    if (!sample) return { rows, exact: true };
    const sampled = Number(rows.find(isTotalRow)?.count ?? 0);
    // A sample below its limit is the whole match set: its counts are exact. Not so for the nearest names,
    // which leave out text and similarity-only matches: a set that small is counted exactly instead.
    if (sampled < sample.rows) return sample.nearest ? grouped(filters, fields, total, undefined) : { rows, exact: true, size: sampled };
    const estimate = filters === f ? sample.estimate : await estimateMatches(db, filters, userId, match);
    return { rows: scaleCounts(rows, Math.max(estimate, sampled) / sampled), exact: false, size: Math.max(estimate, sampled) };
  };
  const shared = sharedFacetFields(f);
  const separate = FACET_FIELDS.filter((field) => !shared.includes(field));
  const results = await Promise.all([grouped(f, shared, true, sample), ...separate.map((field) => grouped({ ...f, [OWN_FILTER[field]!]: undefined }, [field], false, sample))]);
  const main = results[0]!;
  const estimated = results.some((r) => !r.exact);
  return {
    total: main.size ?? Number(main.rows.find(isTotalRow)?.count ?? 0),
    ...(estimated ? { estimated: true } : {}),
    facets: facetsOf(f, results.flatMap((r) => r.rows)),
  };
}

const scaleCounts = (rows: FacetRow[], scale: number): FacetRow[] => rows.map((r) => ({ ...r, count: Math.round(Number(r.count) * scale) }));

/** A sample's facet groups (every field and the sample's size) scaled to the match set's estimated size. */
function scaledFacets(f: Filters, groups: FacetRow[], estimate: number): { total: number; facets: SearchFacets; estimated: true } {
  const sampled = Number(groups.find(isTotalRow)?.count ?? 0);
  const size = Math.max(estimate, sampled);
  return { total: size, estimated: true, facets: facetsOf(f, scaleCounts(groups, size / sampled)) };
}

function toResult(row: Row): SearchResult {
  return {
    item_type: row.type,
    item_id: [row.namespace, row.category, row.name].filter(Boolean).join("/"),
    namespace: row.namespace,
    category: row.category,
    name: row.name,
    description: row.description,
    version: row.latest_version,
    author: row.namespace,
    download_count: row.download_count,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    tool_type: row.tool_type,
    deprecated: row.deprecated,
    visibility: row.visibility,
    score: row.score === null ? null : Number(row.score),
    quality_score: Number(row.quality ?? 0),
  };
}

function fingerprintOf(f: Filters, sort: SearchSort): string {
  const key = JSON.stringify([f.query, f.itemType ?? null, f.namespace ?? null, f.category ?? null, f.toolType ?? null, ...(f.minQuality ? [f.minQuality] : []), sort]);
  return createHash("sha256").update(key).digest("base64url").slice(0, 16);
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.match, c.order, c.key, c.id, c.fingerprint])).toString("base64url");
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MATCHES: readonly unknown[] = ["all", "text", "fuzzy"] satisfies Match[];

const invalidCursor = () => new RyeError("BAD_REQUEST", "The cursor is invalid", { hint: "Pass next_cursor exactly as the previous page returned it, with the same query, filters and sort." });

function decodeCursor(text: string, fingerprint: string): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw invalidCursor();
  const [match, order, key, id, fp] = parsed as unknown[];
  if (fp !== fingerprint || !MATCHES.includes(match)) throw invalidCursor();
  if (typeof id !== "string" || !UUID_RE.test(id)) throw invalidCursor();
  const m = match as Match;
  // Relevance needs a score, so it never walks every item.
  if (order === "score" && m !== "all" && typeof key === "number" && Number.isFinite(key)) return { match: m, order, key, id, fingerprint };
  if (order === "download_count" && typeof key === "number" && Number.isSafeInteger(key) && key >= 0) return { match: m, order, key, id, fingerprint };
  if (order === "updated_at" && typeof key === "string" && !Number.isNaN(Date.parse(key))) return { match: m, order, key, id, fingerprint };
  if (order === "quality" && typeof key === "number" && Number.isInteger(key) && key >= 0 && key <= 100) return { match: m, order, key, id, fingerprint };
  throw invalidCursor();
}
