/**
 * Registry hits for `search`: the default registry's `/v1/search`, labelled with the registry, merged
 * after local hits (local first; an item already installed locally is not listed twice). Offline, the
 * search still answers with the local hits and a warning.
 */
import type { ItemType } from "@rye/core";
import { RyeError } from "@rye/core";
import { readJson, registryFetch } from "./http.ts";
import { resolveRegistryFor } from "./registries.ts";
import { accessTokenFor } from "./session.ts";

export interface RegistryHit {
  id: string;
  type: ItemType;
  space: "registry";
  registry: string;
  name: string;
  description: string;
  category: string;
  version: string | null;
  score: number;
  deprecated: boolean;
  download_count: number;
}

interface RegistrySearchResponse {
  results: { item_type: ItemType; item_id: string; name: string; description: string; category: string; version: string | null; score?: number; deprecated?: boolean; download_count?: number }[];
  total: number;
}

export interface RegistrySearchResult {
  registry: string;
  hits: RegistryHit[];
  total: number;
  warning?: string;
}

/** At most `limit` hits from the default registry; never throws for network trouble (a warning instead). */
export async function searchRegistry(
  query: { query: string; itemTypes: ItemType[]; category?: string | undefined; limit: number },
  options: { projectPath: string; env: NodeJS.ProcessEnv },
): Promise<RegistrySearchResult> {
  const { url } = await resolveRegistryFor(undefined, { projectPath: options.projectPath, env: options.env });
  const params = new URLSearchParams({ query: query.query.slice(0, 256), limit: String(Math.min(100, Math.max(1, query.limit))) });
  if (query.itemTypes.length === 1) params.set("item_type", query.itemTypes[0]!);
  if (query.category) params.set("category", query.category);
  try {
    const token = await accessTokenFor(url, options.env).catch(() => undefined);
    const body = await readJson<RegistrySearchResponse>(await registryFetch(url, `/v1/search?${params}`, { token, timeoutMs: 10_000 }));
    const hits = body.results
      .filter((r) => query.itemTypes.includes(r.item_type))
      .map((r) => ({
        id: r.item_id,
        type: r.item_type,
        space: "registry" as const,
        registry: url,
        name: r.name,
        description: r.description,
        category: r.category,
        version: r.version,
        score: Math.round((r.score ?? 0) * 10_000) / 10_000,
        deprecated: r.deprecated ?? false,
        download_count: r.download_count ?? 0,
      }));
    return { registry: url, hits, total: body.total };
  } catch (err) {
    const reason = err instanceof RyeError ? err.message : String(err);
    return { registry: url, hits: [], total: 0, warning: `Registry ${url} not searched: ${reason}` };
  }
}
