/**
 * Directives as MCP prompts: every directive of the project's spaces (project > user > system, a project item
 * shadowing the others) that verifies is a prompt named by its id, with its `<inputs>` as arguments;
 * `prompts/get` returns the directive with the inputs applied — what `execute` of the directive returns. Clients
 * show prompts as slash commands. An unverified directive is never listed or returned.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { GetPromptResult, ListPromptsResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { GetPromptRequestSchema, ListPromptsRequestSchema, McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { RyeError, toErrorEnvelope } from "@rye/core";
import type { Engine } from "../engine/engine.ts";
import { loadItemFile } from "../engine/read.ts";
import type { VerifiedItem } from "./item-listing.ts";
import { listVerifiedItems } from "./item-listing.ts";
import { ListPages } from "./list-pages.ts";

/** Prompts per `prompts/list` page (see list-pages.ts for the cursor). */
export const PROMPTS_PAGE = 100;

/** Prompts kept parsed, by directive file (path, mtime, size): a warm prompts/list reads no file. */
const MAX_CACHED_PROMPTS = 50_000;
const promptCache = new Map<string, { mtimeMs: number; size: number; prompt: Prompt | null }>();

/** The prompt of a verified directive file; null when the directive has validation issues. */
async function directivePrompt(item: VerifiedItem, engine: Engine): Promise<Prompt | null> {
  const { doc } = item;
  const hit = promptCache.get(doc.path);
  if (hit && hit.mtimeMs === doc.mtimeMs && hit.size === doc.size) return hit.prompt;
  const file = { space: engine.ctx.spaces.find((s) => s.name === item.space)!, type: "directive" as const, itemId: item.id, path: doc.path, extension: item.extension };
  const loaded = await loadItemFile(file, engine.ctx.verifier).catch(() => null);
  let prompt: Prompt | null = null;
  if (loaded && loaded.verification.ok && loaded.parsed.type === "directive" && loaded.parsed.issues.length === 0) {
    const meta = loaded.parsed.metadata;
    prompt = {
      name: item.id,
      ...(meta.name ? { title: meta.name } : {}),
      description: (meta.description ?? `Directive ${item.id}`).replace(/\s+/g, " ").trim().slice(0, 1000),
      arguments: meta.inputs.map((input) => ({ name: input.name, description: input.description || input.type, required: input.required && input.default === undefined })),
    };
  }
  // Cached against the version the index saw; a file changed meanwhile is re-read on the next listing.
  if (promptCache.size >= MAX_CACHED_PROMPTS) promptCache.delete(promptCache.keys().next().value!);
  promptCache.set(doc.path, { mtimeMs: doc.mtimeMs, size: doc.size, prompt });
  return prompt;
}

/** Every verified directive of the project's spaces (a project directive shadowing the others), sorted by name. */
async function listDirectivePrompts(engine: Engine): Promise<Prompt[]> {
  const prompts: Prompt[] = [];
  for (const item of await listVerifiedItems(engine.ctx, ["directive"])) {
    const prompt = await directivePrompt(item, engine);
    if (prompt) prompts.push(prompt);
  }
  return prompts;
}

export function registerDirectivePrompts(server: Server, engine: (projectPath?: string) => Promise<Engine>): void {
  server.registerCapabilities({ prompts: {} });
  const pages = new ListPages<Prompt>(PROMPTS_PAGE, "prompts/list");
  server.setRequestHandler(ListPromptsRequestSchema, async (request): Promise<ListPromptsResult> => {
    const { entries, nextCursor } = await pages.page(request.params?.cursor, async () => listDirectivePrompts(await engine()));
    return { prompts: entries, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
    try {
      // Arguments arrive as strings; a value that parses as JSON keeps its type (as `rye thread run --input` does).
      const inputs: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(request.params.arguments ?? {})) {
        try {
          inputs[key] = JSON.parse(value);
        } catch {
          inputs[key] = value;
        }
      }
      const result = (await (await engine()).execute({ item_type: "directive", item_id: request.params.name, parameters: { inputs } })) as Record<string, unknown>;
      const data = (result.data ?? {}) as { content?: string; body?: string; description?: string };
      const text = [typeof result.instructions === "string" ? result.instructions : "", data.content ?? data.body ?? ""].filter(Boolean).join("\n\n");
      return {
        description: data.description ?? `Directive ${request.params.name}`,
        messages: [{ role: "user", content: { type: "text", text } }],
        _meta: { "rye/execute": result },
      };
    } catch (err) {
      const envelope = toErrorEnvelope(err);
      const notFound = err instanceof RyeError && ["ITEM_NOT_FOUND", "INVALID_ITEM_ID", "MISSING_INPUTS", "INPUT_INVALID"].includes(err.code);
      throw new McpError(notFound ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${envelope.error.code}: ${envelope.error.message}`, envelope.error);
    }
  });
}
