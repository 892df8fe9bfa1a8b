/**
 * Local search over the items of the given spaces: parse the query, bring the cached indexes up to
 * date, evaluate and rank, filter, paginate, then (optionally) verify the signatures of the page.
 */
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { assertItemType, ITEM_TYPES, RyeError } from "@rye/core";
import type { Space, SpaceName } from "../spaces/spaces.ts";
import { SPACE_PRECEDENCE } from "../spaces/spaces.ts";
import type { IndexedDocument } from "./document.ts";
import { docIdOfKey, evaluateQuery, segmentOfKey } from "./evaluate.ts";
import type { SegmentIndex, VerifyFunction } from "./index.ts";
import { distrustStoredIndex, segmentIndex } from "./index.ts";
import { StoredIndexUnusable } from "./persist.ts";
import { parseQuery, QUERY_LIMITS } from "./query.ts";
import { compareRanked, firstK, normaliseScore } from "./rank.ts";
import { loadSearchConfig, projectConfigPath } from "./weights.ts";
import type { LocalSearchPage as SearchResult, SearchHit } from "../engine/results.ts";

export interface SearchOptions {
  query: string;
  /** Precedence order, from resolveSpaces. */
  spaces: Space[];
  /** Default: all three. */
  itemTypes?: ItemType[];
  /** Default "all". */
  source?: SpaceName | "all";
  /** "rye/core" matches category rye/core and rye/core/x, not rye/corex. */
  categoryPrefix?: string;
  /** Default 10, 1..100. */
  limit?: number;
  /** Default 0. */
  offset?: number;
  /** Makes every plain term fuzzy; maxDistance 0..3, default automatic (1 up to 5 characters, else 2). */
  fuzzy?: { enabled: boolean; maxDistance?: number };
  /** Where `.ai/config/search.yaml` is read from; default: the project space's `.ai/config/`. */
  projectPath?: string;
  /** Called only for the hits of the returned page; results are cached by (path, mtimeMs, size). */
  verify?: VerifyFunction;
  /** Keeps the indexes on disk in this directory between processes (persist.ts); default: in memory only. */
  indexDir?: string | null;
  /** A long-lived caller (the MCP server): watch the spaces so unchanged ones are not re-scanned (watch.ts). */
  watch?: boolean;
}

/** A local hit and a page of them: the types come from the result schemas (engine/results.ts). */
export type { SearchHit, SearchResult };

const SOURCES = ["project", "user", "system", "all"] as const;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

function badRequest(message: string, hint: string): RyeError {
  return new RyeError("BAD_REQUEST", message, { hint });
}

interface CheckedOptions {
  types: ItemType[];
  source: SpaceName | "all";
  limit: number;
  offset: number;
  categoryPrefix: string;
  fuzzyAll?: { maxDistance?: number };
}

function checkOptions(options: SearchOptions): CheckedOptions {
  if (typeof options.query !== "string") throw badRequest("query must be a string", "Pass an empty string to list everything.");
  if (!Array.isArray(options.spaces)) throw badRequest("spaces must be a list of spaces", "Use resolveSpaces() to get them.");
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${String(limit)}`, `Page through more results with offset.`);
  }
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw badRequest(`offset must be an integer ≥ 0, got ${String(offset)}`, "Start at offset 0.");
  const source = options.source ?? "all";
  if (!(SOURCES as readonly string[]).includes(source)) {
    throw badRequest(`source must be one of ${SOURCES.join(", ")}, got ${JSON.stringify(source)}`, "Use all to search every space.");
  }
  const types = options.itemTypes ?? [...ITEM_TYPES];
  if (types.length === 0) throw badRequest("itemTypes must name at least one item type", "Leave it out to search all three.");
  types.forEach(assertItemType);
  const checked: CheckedOptions = {
    types: [...new Set(types)],
    source,
    limit,
    offset,
    categoryPrefix: (options.categoryPrefix ?? "").replace(/^\/+|\/+$/g, ""),
  };
  if (options.fuzzy?.enabled) {
    const distance = options.fuzzy.maxDistance;
    if (distance !== undefined && (!Number.isInteger(distance) || distance < 0 || distance > QUERY_LIMITS.maxFuzzy)) {
      throw badRequest(`fuzzy.maxDistance must be an integer from 0 to ${QUERY_LIMITS.maxFuzzy}`, "Leave it out for the automatic distance.");
    }
    checked.fuzzyAll = distance === undefined ? {} : { maxDistance: distance };
  }
  return checked;
}

function inCategory(category: string, prefix: string): boolean {
  return prefix === "" || category === prefix || category.startsWith(`${prefix}/`);
}

function isShadowed(doc: IndexedDocument, segment: SegmentIndex, all: SegmentIndex[]): boolean {
  const precedence = SPACE_PRECEDENCE[segment.space.name];
  return all.some((s) => s.type === segment.type && SPACE_PRECEDENCE[s.space.name] > precedence && s.hasItem(doc.id));
}

function configPath(options: SearchOptions): string | undefined {
  if (options.projectPath) return projectConfigPath(options.projectPath);
  const project = options.spaces.find((s) => s.name === "project");
  return project ? join(project.root, "config", "search.yaml") : undefined;
}

/** How many times a search starts again after a stored index turned out unusable (one per space, and one spare). */
const MAX_STORED_INDEX_RETRIES = 4;

export async function searchItems(options: SearchOptions): Promise<SearchResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await searchOnce(options);
    } catch (err) {
      // A stored index whose block or field data is damaged or was replaced: searched again without it (from the files).
      if (!(err instanceof StoredIndexUnusable) || attempt >= MAX_STORED_INDEX_RETRIES) throw err;
      distrustStoredIndex(err.file);
    }
  }
}

async function searchOnce(options: SearchOptions): Promise<SearchResult> {
  const checked = checkOptions(options);
  const query = parseQuery(options.query);
  // Every space is refreshed, also those filtered out by `source`, to tell which hits are shadowed.
  const segments = options.spaces.flatMap((space) => checked.types.map((type) => segmentIndex(space, type, options.indexDir ?? null)));
  const [config] = await Promise.all([loadSearchConfig(configPath(options)), ...segments.map((s) => s.refresh(options.watch ?? false))]);
  const searched = segments.filter((s) => checked.source === "all" || s.space.name === checked.source);

  const scores = evaluateQuery(query, {
    segments: searched,
    config,
    ...(checked.fuzzyAll ? { fuzzyAll: checked.fuzzyAll } : {}),
  });
  // Ranked by what the segments say without building a document; only the page's documents are built.
  const inPrefix = new Uint8Array(scores.length);
  let count = 0;
  let top = 0;
  const prefix = checked.categoryPrefix;
  for (let i = 0; i < scores.length; i++) {
    const key = scores.keys[i]!;
    if (prefix !== "" && !inCategory(searched[segmentOfKey(key)]!.docs.categoryOf(docIdOfKey(key))!, prefix)) continue;
    inPrefix[i] = 1;
    count++;
    if (scores.scores[i]! > top) top = scores.scores[i]!;
  }
  // Only matches scoring at least the page's last (after normalising, ties included) can be on the page:
  // they alone become objects for the ranking.
  const wanted = checked.offset + checked.limit;
  const normalised = new Float64Array(count);
  for (let i = 0, j = 0; i < scores.length; i++) if (inPrefix[i]) normalised[j++] = normaliseScore(scores.scores[i]!, top);
  const threshold = count > wanted ? normalised.slice().sort()[count - wanted]! : -Infinity;
  const matches: { segment: SegmentIndex; docId: number; score: number; space: SpaceName; id: string; type: ItemType }[] = [];
  for (let i = 0, j = 0; i < scores.length; i++) {
    if (!inPrefix[i]) continue;
    const score = normalised[j++]!;
    if (score < threshold) continue;
    const key = scores.keys[i]!;
    const segment = searched[segmentOfKey(key)]!;
    const docId = docIdOfKey(key);
    matches.push({ segment, docId, score, space: segment.space.name, id: segment.docs.itemIdOf(docId)!, type: segment.type });
  }
  const page = firstK(matches, wanted, compareRanked).slice(checked.offset);
  const results = await Promise.all(
    page.map(async ({ segment, docId, score }): Promise<SearchHit> => {
      const doc = segment.docs.get(docId)!;
      const outcome = options.verify ? await segment.verify(doc, options.verify) : null;
      const display = doc.display;
      const hit: SearchHit = {
        id: doc.id,
        type: doc.type,
        space: segment.space.name,
        name: display.name,
        description: display.description,
        category: doc.category,
        version: display.version,
        score,
        signed: display.signed,
        verified: outcome ? outcome.verified : null,
        verifyCode: outcome ? outcome.code : null,
        shadowed: isShadowed(doc, segment, segments),
        path: doc.path,
        preview: display.preview,
      };
      if (display.title !== undefined) hit.title = display.title;
      if (display.parseError !== undefined) hit.parseError = display.parseError;
      return hit;
    }),
  );
  return { results, total: count, query: options.query, limit: checked.limit, offset: checked.offset };
}
