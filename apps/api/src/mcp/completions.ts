/**
 * completion/complete: suggestions while a person types, from the registry's search as the caller may see it.
 *   rye://knowledge/{+id}                 `id` → knowledge ids
 *   skill://{namespace}/{name}/{+path}    `namespace` → namespaces with skills; `name` → that namespace's skills;
 *                                         `path` → the skill's files (latest version)
 *   prompt arguments                      `type`/`item_type`/`<x>_type` → item types; `id`/`item_id`/`<x>_id` → item
 *                                         ids (of type `<x>` when it is one, or of a type argument filled in already)
 * Ids are the search's hits for what was typed (its last segment as the query; a namespace before the first slash
 * as a filter) that start with the typed text, or whose name does. At most MAX_COMPLETIONS values, with hasMore.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CompleteResult } from "@modelcontextprotocol/sdk/types.js";
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { REGISTRY_ITEM_TYPES, type RegistryItemType, RyeError } from "@rye/core";
import { searchItems } from "../services/search.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { storedManifest } from "../services/skills/stored.ts";
import { mcpError } from "./errors.ts";
import { KNOWLEDGE_TEMPLATE, SKILL_TEMPLATE } from "./resources.ts";
import type { McpCaller } from "./tools.ts";

/** Values per completion answer (the MCP specification allows at most 100). */
export const MAX_COMPLETIONS = 20;
/** Typed text longer than this is not searched. */
const MAX_TYPED = 256;

type Completion = CompleteResult["completion"];

function bounded(all: string[]): Completion {
  const unique = [...new Set(all)];
  return { values: unique.slice(0, MAX_COMPLETIONS), total: unique.length, hasMore: unique.length > MAX_COMPLETIONS };
}

const isItemType = (value: unknown): value is RegistryItemType => typeof value === "string" && (REGISTRY_ITEM_TYPES as readonly string[]).includes(value);

/** What a prompt argument's name says it holds. */
export function promptArgumentKind(name: string): { kind: "type" } | { kind: "id"; type?: RegistryItemType } | null {
  const lower = name.toLowerCase();
  const typeMatch = /^(?:(.+)_)?type$/.exec(lower);
  if (typeMatch && (typeMatch[1] === undefined || typeMatch[1] === "item")) return { kind: "type" };
  const idMatch = /^(?:(.+)_)?id$/.exec(lower);
  if (!idMatch) return null;
  const prefix = idMatch[1];
  if (prefix === undefined || prefix === "item") return { kind: "id" };
  return isItemType(prefix) ? { kind: "id", type: prefix } : null;
}

/** Visible item ids for what was typed (see the top of this module). */
export async function completeIds(caller: McpCaller, typed: string, type: RegistryItemType | undefined): Promise<Completion> {
  if (typed.length > MAX_TYPED) return bounded([]);
  const slash = typed.indexOf("/");
  const last = typed.slice(typed.lastIndexOf("/") + 1);
  const search = (namespace: string | undefined) =>
    searchItems(caller.deps.db, caller.principal, { query: last.replace(/[^\p{L}\p{N}_-]+/gu, " ").trim(), itemType: type, namespace, limit: 100 }).catch((err: unknown) => {
      // A namespace or query the search refuses is "nothing to suggest", not an error while typing.
      if (err instanceof RyeError && err.status < 500) return { results: [] };
      throw err;
    });
  const { results } = await search(slash > 0 ? typed.slice(0, slash) : undefined);
  const lower = typed.toLowerCase();
  return bounded(results.filter((hit) => hit.item_id.toLowerCase().startsWith(lower) || hit.name.toLowerCase().startsWith(last.toLowerCase())).map((hit) => hit.item_id));
}

export function registerCompletions(server: Server, caller: McpCaller): void {
  server.registerCapabilities({ completions: {} });
  server.setRequestHandler(CompleteRequestSchema, async (request): Promise<CompleteResult> => {
    const { ref, argument } = request.params;
    const context = request.params.context?.arguments ?? {};
    const typed = argument.value;
    const none = { completion: { values: [], total: 0, hasMore: false } };
    try {
      if (ref.type === "ref/resource") {
        if (ref.uri === KNOWLEDGE_TEMPLATE && argument.name === "id") return { completion: await completeIds(caller, typed, "knowledge") };
        if (ref.uri !== SKILL_TEMPLATE) return none;
        if (argument.name === "namespace") return { completion: bounded((await completeIds(caller, typed, "skill")).values.map((id) => id.split("/")[0]!).filter((ns) => ns.startsWith(typed.toLowerCase()))) };
        if (argument.name === "name" && context.namespace) return { completion: bounded((await completeIds(caller, `${context.namespace}/${typed}`, "skill")).values.map((id) => id.split("/")[1]!)) };
        if (argument.name === "path" && context.namespace && context.name) {
          const { row } = await findReadableSkillVersion(caller.deps.db, caller.principal, context.namespace, context.name);
          return { completion: bounded(Object.keys(storedManifest(row.content).files).sort().filter((p) => p.startsWith(typed))) };
        }
        return none;
      }
      const kind = promptArgumentKind(argument.name);
      if (!kind) return none;
      if (kind.kind === "type") return { completion: bounded(REGISTRY_ITEM_TYPES.filter((t) => t.startsWith(typed.toLowerCase()))) };
      const chosen = Object.entries(context).find(([name, value]) => promptArgumentKind(name)?.kind === "type" && isItemType(value))?.[1];
      return { completion: await completeIds(caller, typed, kind.type ?? (isItemType(chosen) ? chosen : undefined)) };
    } catch (err) {
      // An unknown skill while typing its path: nothing to suggest.
      if (err instanceof RyeError && err.status === 404) return none;
      throw mcpError(caller, err, "completion/complete");
    }
  });
}
