/**
 * completion/complete: argument suggestions while the user types.
 *
 *   rye://{type}/{+id}         `type` → the item types; `id` → item ids of that type (all types when none is chosen)
 *   skill://{name}/{+path}     `name` → installed skills; `path` → the files the skill's lock pins
 *   prompt arguments           an argument named `type`/`item_type`/`<x>_type` → item types; `id`/`item_id`/`<x>_id`
 *                              → item ids (typed by `<x>` when it is an item type, or by a type argument already
 *                              filled in); `category` → categories of existing items
 *
 * Ids are ranked by the search the `search` tool uses (BM25 over the cached local indexes, on the id field, the
 * typed text as a prefix), verified items only; never the registry (a completion must answer while the user types).
 * At most MAX_COMPLETIONS values per answer, with the total and hasMore.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ItemType } from "@rye/core";
import { categoryOfItemId, ITEM_TYPES, RyeError } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import type { SkillContext } from "../skills/install.ts";
import { listVerifiedItems } from "./item-listing.ts";
import { ITEM_URI_TEMPLATE } from "./item-uri.ts";
import { installedSkills, mcpError, SKILL_SCHEME } from "./skill-resources.ts";

/** Values per completion answer (the MCP specification allows at most 100). */
export const MAX_COMPLETIONS = 20;
/** Typed text longer than this is not searched (no id is this long in practice). */
const MAX_TYPED = 256;

const SKILL_TEMPLATE = `${SKILL_SCHEME}{name}/{+path}`;

type Completion = CompleteResult["completion"];

function bounded(all: string[]): Completion {
  return { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS };
}

const isItemType = (value: unknown): value is ItemType => typeof value === "string" && (ITEM_TYPES as readonly string[]).includes(value);

export function completeItemTypes(typed: string): Completion {
  return bounded(ITEM_TYPES.filter((t) => t.startsWith(typed.toLowerCase())));
}

/** The search query for ids starting with (or having a word starting with) what was typed. */
export function idQuery(typed: string): string {
  const clean = typed.replace(/@.*$/s, "").replace(/[^\p{L}\p{N}_\-/.]/gu, "");
  return clean === "" ? "" : `id:${clean}*`;
}

/** Item ids ranked by the `search` tool's local search; verified items only, each id once. */
export async function completeItemIds(engine: Engine, typed: string, types: readonly ItemType[]): Promise<Completion> {
  if (typed.length > MAX_TYPED) return bounded([]);
  const result = await engine.search({ query: idQuery(typed), item_types: [...types], scope: "local", limit: 100 });
  const ids: string[] = [];
  for (const hit of result.results) {
    if (!("verified" in hit) || hit.verified !== true || hit.shadowed || ids.includes(hit.id)) continue;
    ids.push(hit.id);
  }
  const more = result.total > result.results.length;
  const completion = bounded(ids);
  return more ? { ...completion, total: Math.max(result.total, ids.length), hasMore: true } : completion;
}

async function completeCategories(engine: Engine, typed: string, types: readonly ItemType[]): Promise<Completion> {
  const counts = new Map<string, number>();
  for (const item of await listVerifiedItems(engine.ctx, types)) {
    const category = categoryOfItemId(item.id);
    if (category && category.startsWith(typed)) counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  // The most used categories first, then by name.
  return bounded([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([c]) => c));
}

/** What a prompt argument's name says it holds: item types, item ids (of some types) or categories. */
export function promptArgumentKind(name: string): { kind: "type" } | { kind: "id"; type?: ItemType } | { kind: "category" } | null {
  const lower = name.toLowerCase();
  if (lower === "category") return { kind: "category" };
  const typeMatch = /^(?:(.+)_)?type$/.exec(lower);
  if (typeMatch && (typeMatch[1] === undefined || typeMatch[1] === "item")) return { kind: "type" };
  const idMatch = /^(?:(.+)_)?id$/.exec(lower);
  if (idMatch) {
    const prefix = idMatch[1];
    if (prefix === undefined || prefix === "item") return { kind: "id" };
    if (isItemType(prefix)) return { kind: "id", type: prefix };
  }
  return null;
}

export interface CompletionOptions {
  engine: () => Promise<Engine>;
  skills: SkillContext;
}

export function registerCompletions(server: Server, options: CompletionOptions): void {
  server.registerCapabilities({ completions: {} });
  server.setRequestHandler(CompleteRequestSchema, async (request): Promise<CompleteResult> => {
    const { ref, argument } = request.params;
    const context = request.params.context?.arguments ?? {};
    const typed = argument.value;
    const none = { completion: { values: [], total: 0, hasMore: false } };
    try {
      if (ref.type === "ref/resource") {
        if (ref.uri === ITEM_URI_TEMPLATE) {
          if (argument.name === "type") return { completion: completeItemTypes(typed) };
          if (argument.name === "id") return { completion: await completeItemIds(await options.engine(), typed, isItemType(context.type) ? [context.type] : ITEM_TYPES) };
          return none;
        }
        if (ref.uri === SKILL_TEMPLATE) {
          const skills = await installedSkills(options.skills);
          if (argument.name === "name") return { completion: bounded(skills.map((s) => s.name).filter((n) => n.startsWith(typed))) };
          const skill = skills.find((s) => s.name === context.name);
          if (argument.name === "path" && skill) return { completion: bounded(Object.keys(skill.entry.files).sort().filter((p) => p.startsWith(typed))) };
        }
        return none;
      }
      const kind = promptArgumentKind(argument.name);
      if (!kind) return none;
      if (kind.kind === "type") return { completion: completeItemTypes(typed) };
      const engine = await options.engine();
      if (kind.kind === "category") return { completion: await completeCategories(engine, typed, ITEM_TYPES) };
      // A type argument filled in already narrows the ids.
      const chosen = Object.entries(context).find(([name, value]) => promptArgumentKind(name)?.kind === "type" && isItemType(value))?.[1];
      const types = kind.type ? [kind.type] : isItemType(chosen) ? [chosen] : ITEM_TYPES;
      return { completion: await completeItemIds(engine, typed, types) };
    } catch (err) {
      // A query the search refuses is "nothing to suggest", not an error while typing.
      if (err instanceof RyeError && err.code === "BAD_REQUEST") return none;
      throw mcpError(err);
    }
  });
}
