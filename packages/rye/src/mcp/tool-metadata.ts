/**
 * What the MCP server says about its four tools besides their inputs: annotations (hints for clients that decide
 * what to confirm), an `outputSchema` for each tool's `structuredContent`, and `_meta`.
 *
 * Every result is one of several exact shapes (a search page; a loaded item; a tool run, a directive or a knowledge
 * entry; one signed item or a batch) or the error envelope, defined once in engine/results.ts (the engine's result
 * types are inferred from the same zod schemas), so each output schema is a JSON Schema `anyOf` of exact
 * objects under a top-level `type: "object"` (the MCP spec wants an object schema). The SDK's McpServer only accepts
 * zod object schemas there, so the exact union rides on a loose zod object: its JSON Schema carries the union's
 * branches (`anyOf`, from zod metadata) and its refinement checks the same union on the server before a result
 * leaves.
 */
import { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { TOOL_RESULTS } from "../engine/results.ts";

export type ToolName = keyof typeof TOOL_RESULTS;

/**
 * Nullable fields as `anyOf` branches of one `type` each instead of a `type` array: the same contract, but clients
 * that map schemas onto a single-type dialect (the OpenAPI subset some model providers use) keep it.
 */
function portable<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(portable) as T;
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = portable(value);
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out as { type: string[] } & Record<string, unknown>;
    return { anyOf: type.map((t) => ({ type: t })), ...rest } as T;
  }
  return out as T;
}

/** The loose object the SDK accepts, carrying the exact union as JSON Schema and as a server-side check. */
function outputSchemaOf(shapes: readonly z.ZodObject[]): z.ZodObject {
  const union = z.union(shapes as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]]);
  const branches = portable((z.toJSONSchema(union, { target: "draft-7", io: "output" }) as { anyOf: unknown[] }).anyOf);
  return z
    .looseObject({})
    .superRefine((value, ctx) => {
      const parsed = union.safeParse(value);
      if (!parsed.success) ctx.addIssue({ code: "custom", message: z.prettifyError(parsed.error) });
    })
    .meta({ anyOf: branches });
}

export const OUTPUT_SCHEMAS: Record<ToolName, z.ZodObject> = {
  search: outputSchemaOf(TOOL_RESULTS.search),
  load: outputSchemaOf(TOOL_RESULTS.load),
  execute: outputSchemaOf(TOOL_RESULTS.execute),
  sign: outputSchemaOf(TOOL_RESULTS.sign),
};

/**
 * MCP tool annotations. `search` and `load` only read (load's optional copy into a space aside) but reach the
 * registry (search's default scope, load's pull of a registry id); `execute` runs tools, which may do anything
 * and reach anything; `sign` rewrites a local file's signature line: repeating it changes nothing more.
 */
export const TOOL_ANNOTATIONS: Record<ToolName, ToolAnnotations> = {
  search: { title: "Search rye items", readOnlyHint: true, openWorldHint: true },
  load: { title: "Load a rye item", readOnlyHint: true, openWorldHint: true },
  execute: { title: "Execute a rye item", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  sign: { title: "Sign rye items", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/**
 * `_meta` of each tool (keys under the `rye/` prefix, as the spec asks for vendor keys): whether a call may reach a registry, and whether it
 * reports progress when the client passes a progress token (progress.ts).
 */
export const TOOL_META: Record<ToolName, Record<string, unknown>> = {
  search: { "rye/reaches-registry": true, "rye/reports-progress": false },
  load: { "rye/reaches-registry": true, "rye/reports-progress": true },
  execute: { "rye/reaches-registry": true, "rye/reports-progress": true },
  sign: { "rye/reaches-registry": false, "rye/reports-progress": false },
};

/** The metadata fields to spread into a `registerTool` config. */
export function toolMetadata(name: ToolName): { outputSchema: z.ZodObject; annotations: ToolAnnotations; _meta: Record<string, unknown> } {
  return { outputSchema: OUTPUT_SCHEMAS[name], annotations: TOOL_ANNOTATIONS[name], _meta: TOOL_META[name] };
}
