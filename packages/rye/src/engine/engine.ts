/** The engine facade shared by the CLI and the MCP server: search, load, execute, sign. */
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, RyeError } from "@rye/core";
import type { SearchResult } from "../search/search.ts";
import { searchItems } from "../search/search.ts";
import type { SpaceName } from "../spaces/spaces.ts";
import type { EngineContext, EngineOptions } from "./context.ts";
import { createEngineContext } from "./context.ts";
import type { ExecuteParams } from "./execute.ts";
import { executeItem } from "./execute.ts";
import type { LoadParams } from "./load.ts";
import { loadItem } from "./load.ts";
import type { SignParams } from "./sign.ts";
import { signItems } from "./sign.ts";

export interface SearchParams {
  query: string;
  item_type?: ItemType;
  item_types?: ItemType[];
  source?: SpaceName | "all";
  category?: string;
  limit?: number;
  offset?: number;
  fuzzy?: { enabled: boolean; max_distance?: number };
}

export type SearchResponse = SearchResult & { item_type: ItemType | "all"; source: SpaceName | "all"; search_type: "keyword" };

export class Engine {
  private constructor(readonly ctx: EngineContext) {}

  static async open(options: EngineOptions = {}): Promise<Engine> {
    return new Engine(await createEngineContext(options));
  }

  async search(params: SearchParams): Promise<SearchResponse> {
    const itemTypes = params.item_types ?? (params.item_type ? [params.item_type] : [...ITEM_TYPES]);
    const source = params.source ?? "all";
    const result = await searchItems({
      query: params.query,
      spaces: this.ctx.spaces,
      itemTypes,
      source,
      projectPath: this.ctx.projectPath,
      ...(params.category ? { categoryPrefix: params.category } : {}),
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.offset !== undefined ? { offset: params.offset } : {}),
      ...(params.fuzzy ? { fuzzy: { enabled: params.fuzzy.enabled, ...(params.fuzzy.max_distance !== undefined ? { maxDistance: params.fuzzy.max_distance } : {}) } } : {}),
      verify: async (doc) => {
        const v = await this.ctx.verifier.verify(doc.content, doc.type, doc.space);
        return { signed: v.code !== "UNSIGNED" && v.code !== "MALFORMED_SIGNATURE", verified: v.ok, code: v.code };
      },
    });
    return { ...result, item_type: itemTypes.length === 1 ? itemTypes[0]! : "all", source, search_type: "keyword" };
  }

  load(params: LoadParams) {
    return loadItem(this.ctx, params);
  }

  execute(params: ExecuteParams) {
    return executeItem(this.ctx, params);
  }

  sign(params: SignParams) {
    if (!params.item_id) throw new RyeError("BAD_REQUEST", "item_id is required");
    return signItems(this.ctx, params);
  }
}
