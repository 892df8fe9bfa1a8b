/**
 * Every published directive the caller may see is an MCP prompt named by its registry id (`alice/flows/greet`),
 * with its declared `<inputs>` as arguments. `prompts/get` renders the latest version as `rye execute` (and the local
 * MCP server's prompts) render a directive: the inputs checked and defaulted, `{input:…}` interpolated, the directive
 * instructions and the interpolated XML as one user message. Listing pages follow the registry's search (newest
 * first): the cursor is the search's own, so any replica can serve the next page.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { GetPromptResult, ListPromptsResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { DIRECTIVE_INSTRUCTIONS, interpolateDirective, type ParsedDirective, parseDirective, registryIdOf, resolveDirectiveInputs } from "@rye/core";
import { mcpError } from "./errors.ts";
import type { AppDeps } from "../services/deps.ts";
import { searchItems } from "../services/search.ts";
import { readPull } from "./reads.ts";
import type { McpCaller } from "./tools.ts";

/** Prompts per `prompts/list` page. */
export const PROMPTS_PAGE = 50;

/** The MCP prompt of a parsed directive (arguments as the local server lists them). */
export function directivePrompt(id: string, directive: ParsedDirective): Prompt {
  return {
    name: id,
    ...(directive.name ? { title: directive.name } : {}),
    description: (directive.description ?? `Directive ${id}`).replace(/\s+/g, " ").trim().slice(0, 1000),
    arguments: directive.inputs.map((input) => ({ name: input.name, description: input.description || input.type, required: input.required && input.default === undefined })),
  };
}

/** The directive with `args` applied, as `rye execute` hands it to the model. Throws MISSING_INPUTS / INPUT_INVALID. */
export function renderDirective(id: string, directive: ParsedDirective, args: Record<string, string>): GetPromptResult {
  // Arguments arrive as strings; one that parses as JSON keeps its type (as `rye thread run --input` does).
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    try {
      given[key] = JSON.parse(value);
    } catch {
      given[key] = value;
    }
  }
  const inputs = resolveDirectiveInputs(directive, { inputs: given });
  const data = interpolateDirective(directive, inputs);
  return {
    description: data.description ?? `Directive ${id}`,
    messages: [{ role: "user", content: { type: "text", text: [DIRECTIVE_INSTRUCTIONS, data.content ?? data.body].filter(Boolean).join("\n\n") } }],
  };
}

/** The latest versions' contents of the listed directives (one query for the items, one for their versions). */
async function latestContents(deps: AppDeps, hits: { namespace: string; category: string; name: string; item_id: string }[]): Promise<Map<string, string>> {
  if (hits.length === 0) return new Map();
  const items = await deps.db.prisma.item.findMany({
    where: { type: "directive", OR: hits.map((h) => ({ namespace: { name: h.namespace }, category: h.category, name: h.name })) },
    select: { id: true, category: true, name: true, latestVersion: true, namespace: { select: { name: true } } },
  });
  const wanted = items.filter((i) => i.latestVersion !== null);
  if (wanted.length === 0) return new Map();
  const rows = await deps.db.prisma.itemVersion.findMany({ where: { OR: wanted.map((i) => ({ itemId: i.id, version: i.latestVersion! })) }, select: { itemId: true, content: true } });
  const idOf = new Map(wanted.map((i) => [i.id, registryIdOf(i.namespace.name, i.category, i.name)]));
  return new Map(rows.map((r) => [idOf.get(r.itemId)!, r.content]));
}

export function registerDirectivePrompts(server: Server, caller: McpCaller): void {
  const { deps, principal } = caller;
  server.registerCapabilities({ prompts: {} });
  server.setRequestHandler(ListPromptsRequestSchema, async (request): Promise<ListPromptsResult> => {
    try {
      const page = await searchItems(deps.db, principal, { query: "", itemType: "directive", limit: PROMPTS_PAGE, cursor: request.params?.cursor });
      const contents = await latestContents(deps, page.results);
      const prompts: Prompt[] = [];
      for (const hit of page.results) {
        const content = contents.get(hit.item_id);
        if (content !== undefined) prompts.push(directivePrompt(hit.item_id, parseDirective(content)));
      }
      return { prompts, ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}) };
    } catch (err) {
      throw mcpError(caller, err, "prompts/list");
    }
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    try {
      const pulled = await readPull(deps, principal, "directive", request.params.name, undefined);
      const { content, version } = JSON.parse(Buffer.from(pulled.body).toString("utf8")) as { content: string; version: string };
      const rendered = renderDirective(request.params.name, parseDirective(content), request.params.arguments ?? {});
      return { ...rendered, _meta: { "rye/item_id": request.params.name, "rye/version": version } };
    } catch (err) {
      throw mcpError(caller, err, "prompts/get");
    }
  });
}
