/**
 * What `search`, `load`, `execute` and `sign` return, as zod schemas: the one definition both the engine's result
 * types (`z.infer`) and the MCP tools' `outputSchema`s (tool-metadata.ts, via `z.toJSONSchema`) come from, so the
 * contract a client validates against cannot drift from what the code builds.
 *
 * Every object is strict: a field the code adds without adding it here is refused by the MCP server's own output
 * check (tool-metadata.ts) instead of reaching a client whose validator would refuse it anyway. Open values (a
 * tool's `data`, parsed metadata, directive inputs) are records on purpose.
 *
 * Import the types from here with `import type`: a local search must not pay for loading zod.
 */
import { z } from "zod";
import { ITEM_TYPES } from "@rye/core";

const itemType = z.enum(ITEM_TYPES);
const spaceName = z.enum(["project", "user", "system"]);
const record = z.record(z.string(), z.unknown());

/** The error envelope every tool answers with (`isError: true`). */
export const errorResultSchema = z.strictObject({
  status: z.literal("error"),
  error: z.strictObject({ code: z.string(), message: z.string(), hint: z.string(), details: z.unknown().optional() }),
});

/** A hit in a space on this machine. */
export const localHitSchema = z.strictObject({
  id: z.string(),
  type: itemType,
  space: spaceName,
  name: z.string(),
  title: z.string().optional(),
  description: z.string(),
  category: z.string(),
  version: z.string().nullable(),
  /** 0..1, relative to the best hit, 4 decimals. */
  score: z.number(),
  /** The file carries a well-formed signature line (not necessarily a valid one). */
  signed: z.boolean(),
  /** null when no verifier was given. */
  verified: z.boolean().nullable(),
  verifyCode: z.string().nullable(),
  /** A higher-precedence space has an item of the same type and id. */
  shadowed: z.boolean(),
  path: z.string(),
  preview: z.string(),
  parseError: z.string().optional(),
});

/** A hit on a registry (the default one or a scoped one): `registry` is its URL. */
export const registryHitSchema = z.strictObject({
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
  /** The registry's quality score, 0 … 100 (docs/quality.md); absent from registries that do not score. */
  quality_score: z.number().int().min(0).max(100).optional(),
});

/** One page of local hits (search/search.ts). */
export const localSearchPageSchema = z.strictObject({
  results: z.array(localHitSchema),
  total: z.number().int(),
  query: z.string(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** A registry asked by a search: its URL, its total, and why it was not searched when it was not. */
const searchedRegistry = z.strictObject({ url: z.string(), total: z.number().int(), warning: z.string().optional() });

/** `search`: local hits first, then registry hits; `registries` when scoped registries were asked too. */
export const searchResponseSchema = localSearchPageSchema.extend({
  results: z.array(z.union([localHitSchema, registryHitSchema])),
  item_type: z.union([itemType, z.literal("all")]),
  source: z.enum(["project", "user", "system", "all"]),
  search_type: z.literal("keyword"),
  /** The default registry's URL and total. */
  registry: z.strictObject({ url: z.string(), total: z.number().int() }).optional(),
  /** Every registry searched (default first), when scoped registries were searched too. */
  registries: z.array(searchedRegistry).optional(),
  /** Registries that could not be searched (the search still answers with what it has). */
  warnings: z.array(z.string()).optional(),
});

/** Registry key notices (first use, rotation) raised while pulling an item. */
const notice = { registry_notice: z.string().optional() };

export const loadResultSchema = z.strictObject({
  status: z.literal("success"),
  item_type: itemType,
  item_id: z.string(),
  source: spaceName,
  path: z.string(),
  content: z.string(),
  metadata: record,
  verification: z.strictObject({ ok: z.boolean(), code: z.string(), contentHash: z.string().nullable(), fingerprint: z.string().nullable() }),
  issues: z.array(z.strictObject({ field: z.string(), message: z.string() })),
  copied_to: spaceName.optional(),
  destination_path: z.string().optional(),
  note: z.string().optional(),
  ...notice,
});

export const chainSummarySchema = z.strictObject({ item_id: z.string(), space: z.string(), tool_type: z.string(), executor_id: z.string().nullable(), integrity: z.string() });

const toolRunMetadata = z.strictObject({
  duration_ms: z.number(),
  lockfile_used: z.boolean(),
  lockfile_created: z.boolean(),
  resolved_env_keys: z.array(z.string()).optional(),
  primitive: z.string(),
  anchor: z.strictObject({ root: z.string(), files_verified: z.number().int() }).optional(),
  security: z.strictObject({ tier: z.string(), effective_tier: z.string(), decision: z.string() }).optional(),
  sandbox: z
    .strictObject({
      applied: z.strictObject({ network: z.boolean().nullable(), filesystem: z.string().nullable(), memory_mb: z.number().nullable(), cpu_seconds: z.number().nullable(), via: z.array(z.string()) }),
      missing: z.array(z.string()),
    })
    .optional(),
});
const itemRunMetadata = z.strictObject({ duration_ms: z.number(), source: z.string() });

/** A tool run (its own `status: "error"` is a tool that ran and failed, not the error envelope). */
export const toolRunSchema = z.strictObject({
  status: z.enum(["success", "error", "validation_passed"]),
  type: z.literal("tool"),
  item_id: z.string(),
  data: z.unknown().optional(),
  chain: z.array(chainSummarySchema),
  metadata: toolRunMetadata,
  ...notice,
});
export const directiveRunSchema = z.strictObject({ status: z.literal("success"), type: z.literal("directive"), item_id: z.string(), data: record, inputs: record, instructions: z.string(), metadata: itemRunMetadata, ...notice });
export const directiveCheckSchema = z.strictObject({ status: z.literal("validation_passed"), type: z.literal("directive"), item_id: z.string(), inputs: record, message: z.string(), metadata: itemRunMetadata, ...notice });
export const knowledgeRunSchema = z.strictObject({ status: z.literal("success"), type: z.literal("knowledge"), item_id: z.string(), data: record, instructions: z.string(), metadata: itemRunMetadata, ...notice });
export const knowledgeCheckSchema = z.strictObject({ status: z.literal("validation_passed"), type: z.literal("knowledge"), item_id: z.string(), metadata: itemRunMetadata, ...notice });

export const signedOneSchema = z.strictObject({
  status: z.literal("signed"),
  item_id: z.string(),
  path: z.string(),
  location: z.enum(["project", "user"]),
  signature: z.strictObject({ timestamp: z.string(), hash: z.string(), ed25519_sig: z.string(), pubkey_fp: z.string() }),
  warnings: z.array(z.string()),
  message: z.string(),
  key_created: z.boolean().optional(),
});
export const signedBatchSchema = z.strictObject({
  status: z.literal("completed"),
  signed: z.array(z.string()),
  failed: z.array(z.strictObject({ item: z.string(), error: z.strictObject({ code: z.string(), message: z.string() }), details: z.unknown().optional() })),
  total: z.number().int(),
  summary: z.string(),
});

/** Every shape each tool's `structuredContent` can take, the error envelope included. */
export const TOOL_RESULTS = {
  search: [searchResponseSchema, errorResultSchema],
  load: [loadResultSchema, errorResultSchema],
  execute: [toolRunSchema, directiveRunSchema, directiveCheckSchema, knowledgeRunSchema, knowledgeCheckSchema, errorResultSchema],
  sign: [signedOneSchema, signedBatchSchema, errorResultSchema],
} as const;

export type ErrorResult = z.infer<typeof errorResultSchema>;
export type SearchHit = z.infer<typeof localHitSchema>;
export type RegistryHit = z.infer<typeof registryHitSchema>;
export type LocalSearchPage = z.infer<typeof localSearchPageSchema>;
export type SearchResponse = z.infer<typeof searchResponseSchema>;
export type LoadResult = z.infer<typeof loadResultSchema>;
export type ChainSummary = z.infer<typeof chainSummarySchema>;
export type ToolExecuteResult = z.infer<typeof toolRunSchema>;
export type DirectiveRun = z.infer<typeof directiveRunSchema>;
export type DirectiveCheck = z.infer<typeof directiveCheckSchema>;
export type KnowledgeRun = z.infer<typeof knowledgeRunSchema>;
export type KnowledgeCheck = z.infer<typeof knowledgeCheckSchema>;
export type ItemExecuteResult = DirectiveRun | DirectiveCheck | KnowledgeRun | KnowledgeCheck;
export type ExecuteResult = ToolExecuteResult | ItemExecuteResult;
export type SignedOne = z.infer<typeof signedOneSchema>;
export type SignedBatch = z.infer<typeof signedBatchSchema>;
