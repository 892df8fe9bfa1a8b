/**
 * The registry's MCP tools: `search`, `get_item`, `list_versions`, `relations`, `skill_files`. Each only reads this
 * registry (annotations `readOnlyHint: true`, `openWorldHint: false`), answers with `structuredContent` parsed by
 * its exact output schema (schemas.ts) plus the same JSON as text for clients that read text only, and turns a
 * refusal (not found, bad argument) into an `isError` answer carrying the API's error envelope.
 *
 * The tools are one table (TOOLS): registered on the SDK server (server.ts) for tools/list and any call the SDK
 * answers, and run directly by direct-call.ts for a plain tools/call, so both paths answer with the same code.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { parseSkillId, toErrorEnvelope } from "@rye/core";
import { callerError } from "./errors.ts";
import { assertType } from "../services/items.ts";
import { itemRelations } from "../services/relations.ts";
import { searchItems } from "../services/search.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { requiredBlob, storedManifest } from "../services/skills/stored.ts";
import { type McpCaller, type ToolAnswer, parsedAnswer } from "./answer.ts";
import { getItemAnswer } from "./get-item.ts";
import { readItemDetails } from "./reads.ts";
import {
  getItemInput,
  getItemOutput,
  listVersionsInput,
  listVersionsOutput,
  relationsInput,
  relationsOutput,
  searchInput,
  searchOutput,
  SKILL_FILES_MAX_BYTES,
  skillFilesInput,
  skillFilesOutput,
  type SkillFilesOutput,
} from "./schemas.ts";

export type { McpCaller } from "./answer.ts";

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A successful answer as the protocol carries it: structured content, and the same JSON as text. */
export function toolResult(answer: ToolAnswer): CallToolResult {
  return { structuredContent: answer.structured, content: [{ type: "text", text: answer.json }] };
}

/** A failure answers `isError` with the error envelope as text (errors.ts: unexpected ones logged, answered INTERNAL). */
export function toolError(caller: McpCaller, tool: string, err: unknown): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(toErrorEnvelope(callerError(caller, err, `tools/call ${tool}`))) }] };
}

export interface RegistryTool<In extends z.ZodObject = z.ZodObject> {
  title: string;
  description: string;
  inputSchema: In;
  outputSchema: z.ZodObject;
  /** The answer to arguments already parsed by `inputSchema`; a refusal throws (toolError answers it). */
  run(caller: McpCaller, args: z.output<In>): Promise<ToolAnswer>;
}

const tool = <In extends z.ZodObject>(t: RegistryTool<In>) => t as unknown as RegistryTool;

/** The tools by name, in the order tools/list lists them. */
export const TOOLS: Readonly<Record<string, RegistryTool>> = {
  search: tool({
    title: "Search the registry",
    description: "Ranked search over the registry's directives, tools, knowledge and skills you may see, with type, namespace, category, tool type and quality filters and paging (the website's and GET /v1/search's search).",
    inputSchema: searchInput,
    outputSchema: searchOutput,
    run: async ({ deps, principal }, args) =>
      parsedAnswer(
        searchOutput,
        await searchItems(deps.db, principal, {
          query: args.query,
          itemType: args.item_type,
          namespace: args.namespace,
          category: args.category,
          toolType: args.tool_type,
          minQuality: args.min_quality,
          sort: args.sort,
          limit: args.limit,
          offset: args.offset,
          cursor: args.cursor,
          facets: args.facets ?? false,
        }),
      ),
  }),

  get_item: tool({
    title: "Get one signed item version",
    description: "One version of an item: its content with the registry's signature line, the registry's signed attestation, its public log index, the registry's and the publisher's keys, and how to verify it offline with rye verify.",
    inputSchema: getItemInput,
    outputSchema: getItemOutput,
    run: async (caller, args) => await getItemAnswer(caller, args),
  }),

  list_versions: tool({
    title: "List an item's versions",
    description: "An item's metadata and every version you may see (highest first): yanked ones marked, held ones only for their reviewers.",
    inputSchema: listVersionsInput,
    outputSchema: listVersionsOutput,
    run: async ({ deps, principal }, args) => parsedAnswer(listVersionsOutput, await readItemDetails(deps, principal, args.item_type, args.item_id)),
  }),

  relations: tool({
    title: "What an item uses and what uses it",
    description: "What one version of an item uses (tools and directives it executes, knowledge it loads, a tool's executor) resolved against the registry, and the items whose latest version uses it.",
    inputSchema: relationsInput,
    outputSchema: relationsOutput,
    run: async ({ deps, principal }, args) => parsedAnswer(relationsOutput, await itemRelations(deps.db, principal, assertType(args.item_type), args.item_id, args.version)),
  }),

  skill_files: tool({
    title: "A skill's manifest and files",
    description: "An Agent Skill's registry-signed manifest and file list, with the contents of the files asked for (SKILL.md by default).",
    inputSchema: skillFilesInput,
    outputSchema: skillFilesOutput,
    run: async ({ deps, principal }, args) => {
      const ref = parseSkillId(args.skill_id);
      const { item, row } = await findReadableSkillVersion(deps.db, principal, ref.namespace, ref.name, args.version);
      const manifest = storedManifest(row.content);
      const files = Object.entries(manifest.files)
        .map(([path, entry]) => ({ path, sha256: entry.sha256, size: entry.size, executable: entry.executable === true }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const contents: SkillFilesOutput["contents"] = [];
      const omitted: SkillFilesOutput["omitted"] = [];
      let budget = SKILL_FILES_MAX_BYTES;
      for (const path of [...new Set(args.paths ?? ["SKILL.md"])]) {
        const entry = manifest.files[path];
        if (!entry) omitted.push({ path, reason: "not_in_skill" });
        else if (entry.size > budget) omitted.push({ path, reason: "too_large" });
        else {
          budget -= entry.size;
          contents.push(fileContent(path, await requiredBlob(deps.blobs, entry.sha256)));
        }
      }
      return parsedAnswer(skillFilesOutput, {
        item_id: `${item.namespace.name}/${item.name}`,
        namespace: item.namespace.name,
        name: item.name,
        version: row.version,
        description: manifest.skill.description,
        manifest: row.content,
        manifest_sha256: row.fileSha256,
        files,
        contents,
        omitted,
      });
    },
  }),
};

/** The tool of that name, or undefined (never a property every object has, such as `toString`). */
export function toolNamed(name: string): RegistryTool | undefined {
  return Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
}

/** Runs a tool on parsed arguments: its result, or its refusal as an `isError` result. */
export async function runTool(caller: McpCaller, name: string, args: unknown): Promise<{ answer: ToolAnswer } | { refused: CallToolResult }> {
  try {
    return { answer: await toolNamed(name)!.run(caller, args as never) };
  } catch (err) {
    return { refused: toolError(caller, name, err) };
  }
}

export function registerTools(server: McpServer, caller: McpCaller): void {
  for (const [name, t] of Object.entries(TOOLS)) {
    server.registerTool(
      name,
      { title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: { ...READ_ONLY, title: t.title } },
      async (args: unknown) => {
        const ran = await runTool(caller, name, args);
        return "answer" in ran ? toolResult(ran.answer) : ran.refused;
      },
    );
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A file as UTF-8 text when it is valid UTF-8, else base64. */
export function fileContent(path: string, bytes: Uint8Array): SkillFilesOutput["contents"][number] {
  try {
    return { path, encoding: "utf-8", text: utf8.decode(bytes) };
  } catch {
    return { path, encoding: "base64", text: Buffer.from(bytes).toString("base64") };
  }
}
