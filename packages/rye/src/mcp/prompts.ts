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
import { listItemFiles } from "../spaces/spaces.ts";

/** Prompts per `prompts/list` page (the cursor is the offset). */
export const PROMPTS_PAGE = 100;

async function listDirectivePrompts(engine: Engine): Promise<Prompt[]> {
  const seen = new Set<string>();
  const prompts: Prompt[] = [];
  for (const space of engine.ctx.spaces) {
    for (const file of await listItemFiles(space, "directive")) {
      if (seen.has(file.itemId)) continue;
      seen.add(file.itemId);
      const item = await loadItemFile(file, engine.ctx.verifier).catch(() => null);
      if (!item || !item.verification.ok || item.parsed.type !== "directive" || item.parsed.issues.length > 0) continue;
      const meta = item.parsed.metadata;
      prompts.push({
        name: file.itemId,
        ...(meta.name ? { title: meta.name } : {}),
        description: (meta.description ?? `Directive ${file.itemId}`).replace(/\s+/g, " ").trim().slice(0, 1000),
        arguments: meta.inputs.map((input) => ({ name: input.name, description: input.description || input.type, required: input.required && input.default === undefined })),
      });
    }
  }
  return prompts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function registerDirectivePrompts(server: Server, engine: (projectPath?: string) => Promise<Engine>): void {
  server.registerCapabilities({ prompts: {} });
  server.setRequestHandler(ListPromptsRequestSchema, async (request): Promise<ListPromptsResult> => {
    const offset = request.params?.cursor !== undefined ? Number(request.params.cursor) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new McpError(ErrorCode.InvalidParams, `Not a cursor of this server: ${JSON.stringify(request.params?.cursor)}`);
    const all = await listDirectivePrompts(await engine());
    const page = all.slice(offset, offset + PROMPTS_PAGE);
    return { prompts: page, ...(offset + PROMPTS_PAGE < all.length ? { nextCursor: String(offset + PROMPTS_PAGE) } : {}) };
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
