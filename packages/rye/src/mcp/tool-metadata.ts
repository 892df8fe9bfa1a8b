/**
 * What the MCP server says about its four tools besides their inputs: annotations (hints for clients that decide
 * what to confirm), an `outputSchema` for each tool's `structuredContent`, and `_meta`.
 *
 * Every result is one of several exact shapes (a search page; a loaded item; a tool run, a directive or a knowledge
 * entry; one signed item or a batch) or the error envelope, so each output schema is a JSON Schema `anyOf` of exact
 * objects under a top-level `type: "object"` (the MCP spec wants an object schema). The SDK's McpServer only accepts
 * zod object schemas there, so the exact union rides on a loose zod object: its JSON Schema carries the union's
 * branches (`anyOf`, from zod metadata) and its refinement checks the same union on the server before a result
 * leaves.
 */
import { z } from "zod";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { ITEM_TYPES } from "@rye/core";

const itemType = z.enum(ITEM_TYPES);
const space = z.enum(["project", "user", "system"]);
const record = z.record(z.string(), z.unknown());

export const errorResult = z.object({
  status: z.literal("error"),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string(), details: z.unknown().optional() }),
});

const localHit = z.object({
  id: z.string(),
  type: itemType,
  space,
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  category: z.string(),
  version: z.string().nullable(),
  score: z.number(),
  signed: z.boolean(),
  verified: z.boolean().nullable(),
  verifyCode: z.string().nullable(),
  shadowed: z.boolean(),
  path: z.string(),
  preview: z.string(),
  parseError: z.string().optional(),
});

const registryHit = z.object({
  id: z.string(),
  type: itemType,
  space: z.literal("registry"),
  registry: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  version: z.string().nullable(),
  score: z.number(),
  deprecated: z.boolean(),
  download_count: z.number(),
});

export const searchResult = z.object({
  results: z.array(z.union([localHit, registryHit])),
  total: z.number().int(),
  query: z.string(),
  limit: z.number().int(),
  offset: z.number().int(),
  item_type: z.union([itemType, z.literal("all")]),
  source: z.enum(["project", "user", "system", "all"]),
  search_type: z.literal("keyword"),
  registry: z.object({ url: z.string(), total: z.number().int() }).optional(),
  registries: z.array(z.object({ url: z.string(), total: z.number().int(), warning: z.string().optional() })).optional(),
  warnings: z.array(z.string()).optional(),
});

export const loadResult = z.object({
  status: z.literal("success"),
  item_type: itemType,
  item_id: z.string(),
  source: space,
  path: z.string(),
  content: z.string(),
  metadata: record,
  verification: z.object({ ok: z.boolean(), code: z.string(), contentHash: z.string().nullable(), fingerprint: z.string().nullable() }),
  issues: z.array(z.object({ field: z.string(), message: z.string() })),
  copied_to: space.optional(),
  destination_path: z.string().optional(),
  note: z.string().optional(),
  registry_notice: z.string().optional(),
});

const chainElement = z.object({ item_id: z.string(), space: z.string(), tool_type: z.string(), executor_id: z.string().nullable(), integrity: z.string() });
const toolRunMetadata = z.object({
  duration_ms: z.number(),
  lockfile_used: z.boolean(),
  lockfile_created: z.boolean(),
  resolved_env_keys: z.array(z.string()).optional(),
  primitive: z.string(),
  anchor: z.object({ root: z.string(), files_verified: z.number().int() }).optional(),
  security: z.object({ tier: z.string(), effective_tier: z.string(), decision: z.string() }).optional(),
  sandbox: z
    .object({
      applied: z.object({ network: z.boolean().nullable(), filesystem: z.string().nullable(), memory_mb: z.number().nullable(), cpu_seconds: z.number().nullable(), via: z.array(z.string()) }),
      missing: z.array(z.string()),
    })
    .optional(),
});
const notice = { registry_notice: z.string().optional() };
const itemMetadata = z.object({ duration_ms: z.number(), source: z.string() });

/** A tool run (its own `status: "error"` is a tool that ran and failed, not the error envelope). */
const toolRun = z.object({
  status: z.enum(["success", "error", "validation_passed"]),
  type: z.literal("tool"),
  item_id: z.string(),
  data: z.unknown().optional(),
  chain: z.array(chainElement),
  metadata: toolRunMetadata,
  ...notice,
});
const directiveRun = z.object({ status: z.literal("success"), type: z.literal("directive"), item_id: z.string(), data: record, inputs: record, instructions: z.string(), metadata: itemMetadata, ...notice });
const directiveCheck = z.object({ status: z.literal("validation_passed"), type: z.literal("directive"), item_id: z.string(), inputs: record, message: z.string(), metadata: itemMetadata, ...notice });
const knowledgeRun = z.object({ status: z.literal("success"), type: z.literal("knowledge"), item_id: z.string(), data: record, instructions: z.string(), metadata: itemMetadata, ...notice });
const knowledgeCheck = z.object({ status: z.literal("validation_passed"), type: z.literal("knowledge"), item_id: z.string(), metadata: itemMetadata, ...notice });

export const signedOne = z.object({
  status: z.literal("signed"),
  item_id: z.string(),
  path: z.string(),
  location: z.enum(["project", "user"]),
  signature: z.object({ timestamp: z.string(), hash: z.string(), ed25519_sig: z.string(), pubkey_fp: z.string() }),
  warnings: z.array(z.string()),
  message: z.string(),
  key_created: z.boolean().optional(),
});
export const signedBatch = z.object({
  status: z.literal("completed"),
  signed: z.array(z.string()),
  failed: z.array(z.object({ item: z.string(), error: z.object({ code: z.string(), message: z.string() }), details: z.unknown().optional() })),
  total: z.number().int(),
  summary: z.string(),
});

/** Every shape each tool's `structuredContent` can take, the error envelope included. */
export const TOOL_RESULTS = {
  search: [searchResult, errorResult],
  load: [loadResult, errorResult],
  execute: [toolRun, directiveRun, directiveCheck, knowledgeRun, knowledgeCheck, errorResult],
  sign: [signedOne, signedBatch, errorResult],
} as const;

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
