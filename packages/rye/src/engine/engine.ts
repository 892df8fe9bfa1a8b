/** The engine facade shared by the CLI and the MCP server: search, load, execute, sign. */
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, RyeError } from "@rye/core";
import type { SearchResult } from "../search/search.ts";
import { searchItems } from "../search/search.ts";
import { explainWithRegistry, withRegistryBudget } from "../registry/budget.ts";
import type { SearchResponse } from "./results.ts";
import { searchIndexDir } from "../spaces/paths.ts";
import type { SpaceName } from "../spaces/spaces.ts";
import type { EngineContext, EngineOptions } from "./context.ts";
import { createEngineContext } from "./context.ts";
import type { ExecuteParams } from "./execute.ts";
import type { LoadParams } from "./load.ts";
import type { SignParams } from "./sign.ts";
// Registry, load, execute and sign are imported when first used: a local search or `--help` does not
// pay for the registry client, the runtime or the MCP code (the bundle splits them into their own chunks).

export interface SearchParams {
  query: string;
  item_type?: ItemType;
  item_types?: ItemType[];
  source?: SpaceName | "all";
  category?: string;
  limit?: number;
  offset?: number;
  fuzzy?: { enabled: boolean; max_distance?: number };
  /** `all` (default: local hits first, then the default registry's), `local` spaces only, or `registry` only. */
  scope?: "local" | "all" | "registry";
  /** Registry items whose quality score (0 … 100, docs/quality.md) is at least this; searches the registries only. */
  min_quality?: number;
  /** `quality`: registry items, highest quality score first (searches the registries only). */
  sort?: "relevance" | "quality";
}

/** What `search` answers; its type comes from the result schemas (engine/results.ts), as the MCP outputSchema does. */
export type { SearchResponse };

export class Engine {
  private constructor(readonly ctx: EngineContext) {}

  static async open(options: EngineOptions = {}): Promise<Engine> {
    return new Engine(await createEngineContext(options));
  }

  /** One registry budget per call (registry/budget.ts): a hung registry costs a call at most that. */
  private budgeted<T>(body: () => Promise<T>): Promise<T> {
    return withRegistryBudget({ env: this.ctx.env, projectPath: this.ctx.projectPath }, async () => {
      try {
        return await body();
      } catch (err) {
        throw explainWithRegistry(err);
      }
    });
  }

  search(params: SearchParams): Promise<SearchResponse> {
    return this.budgeted(() => this.searchAll(params));
  }

  private async searchAll(params: SearchParams): Promise<SearchResponse> {
    const itemTypes = params.item_types ?? (params.item_type ? [params.item_type] : [...ITEM_TYPES]);
    const source = params.source ?? "all";
    // Local and registry hits together by default; RYE_OFFLINE=1 keeps search on this machine.
    // Quality is a registry signal: local items have no score, so asking for it searches the registries only.
    const byQuality = params.min_quality !== undefined || params.sort === "quality";
    if (byQuality && params.scope === "local") throw new RyeError("BAD_REQUEST", "Quality scores exist for registry items only", { hint: "Drop --local, or drop --min-quality / --sort quality." });
    const scope = byQuality ? "registry" : (params.scope ?? (this.ctx.env.RYE_OFFLINE === "1" ? "local" : "all"));
    if (scope === "registry" && this.ctx.env.RYE_OFFLINE === "1") throw new RyeError("UNAVAILABLE", "RYE_OFFLINE=1 forbids registry searches");
    const limit = params.limit ?? 10;
    // The registries are asked while the local spaces are searched: the registry budget runs from the call's start.
    const remoteSearch =
      scope === "local"
        ? undefined
        : import("../registry/remote-search.ts").then(({ searchRegistries }) =>
            searchRegistries(
              { query: params.query, itemTypes, category: params.category, limit, ...(params.min_quality !== undefined ? { minQuality: params.min_quality } : {}), ...(params.sort === "quality" ? { sort: "quality" as const } : {}) },
              { projectPath: this.ctx.projectPath, env: this.ctx.env },
            ),
          );
    remoteSearch?.catch(() => undefined);
    const local = scope === "registry" ? null : await this.searchLocal(params, itemTypes, source);
    const base = { item_type: itemTypes.length === 1 ? itemTypes[0]! : ("all" as const), source, search_type: "keyword" as const };
    if (!remoteSearch) return { ...local!, ...base };
    const remote = await remoteSearch;
    const localIds = new Set((local?.results ?? []).map((h) => `${h.type}:${h.id}`));
    const remoteHits = remote.hits.filter((h) => !localIds.has(`${h.type}:${h.id}`));
    const results = [...(local?.results ?? []), ...remoteHits].slice(0, limit);
    return {
      results,
      total: (local?.total ?? 0) + remote.total,
      query: params.query,
      limit,
      offset: params.offset ?? 0,
      ...base,
      registry: { url: remote.primary.registry, total: remote.primary.total },
      ...(remote.searched.length > 1 ? { registries: remote.searched.map((r) => ({ url: r.registry, total: r.total, ...(r.warning ? { warning: r.warning } : {}) })) } : {}),
      ...(remote.warnings.length ? { warnings: remote.warnings } : {}),
    };
  }

  private async searchLocal(params: SearchParams, itemTypes: ItemType[], source: SpaceName | "all"): Promise<SearchResult> {
    return searchItems({
      query: params.query,
      spaces: this.ctx.spaces,
      itemTypes,
      source,
      projectPath: this.ctx.projectPath,
      indexDir: searchIndexDir(this.ctx.env),
      watch: this.ctx.longLived,
      ...(params.category ? { categoryPrefix: params.category } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
      ...(params.fuzzy ? { fuzzy: { enabled: params.fuzzy.enabled, ...(params.fuzzy.max_distance !== undefined ? { maxDistance: params.fuzzy.max_distance } : {}) } } : {}),
      verify: async (doc) => {
        const v = await this.ctx.verifier.verify(doc.content, doc.type, doc.space);
        return { signed: v.code !== "UNSIGNED" && v.code !== "MALFORMED_SIGNATURE", verified: v.ok, code: v.code };
      },
    });
  }

  load(params: LoadParams) {
    return this.budgeted(async () => {
      const { loadItem } = await import("./load.ts");
      return loadItem(this.ctx, params);
    });
  }

  execute(params: ExecuteParams) {
    return this.budgeted(async () => {
      const { executeItem } = await import("./execute.ts");
      return executeItem(this.ctx, params);
    });
  }

  async sign(params: SignParams) {
    if (!params.item_id) throw new RyeError("BAD_REQUEST", "item_id is required");
    const { signItems } = await import("./sign.ts");
    return signItems(this.ctx, params);
  }
}
