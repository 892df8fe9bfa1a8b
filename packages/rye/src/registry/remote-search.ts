/**
 * Registry hits for `search`: the default registry's `/v1/search` and, for each registry configured with
 * scopes (`rye registry add acme <url> --scope acme`), that registry's search within its scopes. Hits are
 * labelled with their registry and kept only where routing would resolve them (a look-alike `acme/…`
 * on the default registry is dropped when `acme` belongs to another registry), then merged after local
 * hits by the caller. Offline, the search still answers with the local hits and a warning.
 */
import type { ItemType } from "@rye/core";
import type { RegistryHit } from "../engine/results.ts";
import { RyeError, validateItemId } from "@rye/core";
import { searchAnswerSchema } from "./answers.ts";
import { displayText, readJson, registryFetch } from "./http.ts";
import { loadRegistries, routeRegistry } from "./registries.ts";
import { accessTokenFor } from "./session.ts";

/** A registry hit; its type comes from the result schemas (engine/results.ts). */
export type { RegistryHit };

export interface RegistrySearchResult {
  registry: string;
  hits: RegistryHit[];
  total: number;
  warning?: string;
}

export interface RegistrySearchQuery {
  query: string;
  itemTypes: ItemType[];
  category?: string | undefined;
  limit: number;
  /** Only items scoring at least this (0 … 100). */
  minQuality?: number | undefined;
  /** `quality`: highest quality score first (default: relevance). */
  sort?: "quality" | undefined;
}

/** Most scoped searches one `search` fans out to (each is one HTTP request, made in parallel). */
export const MAX_SCOPED_SEARCHES = 8;

/** At most `limit` hits from one registry; never throws for network trouble (a warning instead). */
export async function searchOneRegistry(url: string, query: RegistrySearchQuery & { namespace?: string }, env: NodeJS.ProcessEnv): Promise<RegistrySearchResult> {
  const params = new URLSearchParams({ query: query.query.slice(0, 256), limit: String(Math.min(100, Math.max(1, query.limit))) });
  if (query.itemTypes.length === 1) params.set("item_type", query.itemTypes[0]!);
  if (query.category) params.set("category", query.category);
  if (query.namespace) params.set("namespace", query.namespace);
  if (query.minQuality !== undefined) params.set("min_quality", String(query.minQuality));
  if (query.sort) params.set("sort", query.sort);
  try {
    const token = await accessTokenFor(url, env).catch(() => undefined);
    const body = readJson(await registryFetch(url, `/v1/search?${params}`, { token, env }), searchAnswerSchema);
    const hits = body.results
      .filter((r): r is typeof r & { item_type: ItemType } => (query.itemTypes as string[]).includes(r.item_type) && validateItemId(r.item_id) === null)
      .map((r): RegistryHit => ({
        id: r.item_id,
        type: r.item_type,
        space: "registry" as const,
        registry: url,
        name: displayText(r.name, 200),
        description: displayText(r.description ?? "", 2000),
        category: displayText(r.category ?? "", 300),
        version: r.version ? displayText(r.version, 100) : null,
        score: Math.round((r.score ?? 0) * 10_000) / 10_000,
        deprecated: r.deprecated ?? false,
        download_count: r.download_count ?? 0,
        ...(r.quality_score !== undefined ? { quality_score: r.quality_score } : {}),
      }));
    return { registry: url, hits, total: body.total };
  } catch (err) {
    const reason = err instanceof RyeError ? err.message : String(err);
    return { registry: url, hits: [], total: 0, warning: `Registry ${url} not searched: ${reason}` };
  }
}

export interface MergedRegistrySearch {
  /** The default registry's answer (routing-filtered). */
  primary: RegistrySearchResult;
  /** Every registry asked, default first. */
  searched: RegistrySearchResult[];
  /** All hits, best score first. */
  hits: RegistryHit[];
  total: number;
  warnings: string[];
}

/** The default registry plus every scoped registry (see the module comment). */
export async function searchRegistries(query: RegistrySearchQuery, options: { projectPath: string; env: NodeJS.ProcessEnv }): Promise<MergedRegistrySearch> {
  const config = await loadRegistries({ projectPath: options.projectPath, env: options.env });
  const defaultUrl = routeRegistry(config, undefined, options.env).url;
  const routesTo = (url: string) => (hit: RegistryHit) => routeRegistry(config, hit.id, options.env).url === url;
  const scoped = config.registries
    .filter((r) => r.url !== defaultUrl)
    .flatMap((r) => r.scopes.map((scope) => ({ url: r.url, scope })))
    .slice(0, MAX_SCOPED_SEARCHES);
  const [primaryRaw, ...scopedRaw] = await Promise.all([
    searchOneRegistry(defaultUrl, query, options.env),
    ...scoped.map((s) => searchOneRegistry(s.url, { ...query, namespace: s.scope }, options.env)),
  ]);
  const primary = { ...primaryRaw!, hits: primaryRaw!.hits.filter(routesTo(defaultUrl)) };
  const scopedResults = scopedRaw.map((r) => ({ ...r, hits: r.hits.filter(routesTo(r.registry)) }));
  const searched = [primary, ...scopedResults];
  const hits = searched.flatMap((r) => r.hits).sort(query.sort === "quality" ? (a, b) => (b.quality_score ?? 0) - (a.quality_score ?? 0) : (a, b) => b.score - a.score);
  const warnings = [...new Set(searched.flatMap((r) => (r.warning ? [r.warning] : [])))];
  return { primary, searched, hits, total: searched.reduce((sum, r) => sum + r.total, 0), warnings };
}
