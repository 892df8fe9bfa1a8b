/**
 * Inputs and answers of the registry's MCP tools (`/mcp`), as zod schemas: the one definition both the answers'
 * TypeScript types (`z.infer`) and the tools' `outputSchema` (JSON Schema, `z.toJSONSchema` in the SDK) come from.
 * Item, search and relation shapes are the HTTP API's own contracts (@rye/core contracts/), so a tool answers what
 * the matching route answers. Every object converts to `additionalProperties: false`: the schema is exact, and each
 * answer is parsed with its schema before it leaves (tools.ts), so a client's validator never meets a field the
 * schema does not list.
 */
import { z } from "zod";
import {
  isSemver,
  itemDetailsSchema,
  itemRelationsSchema,
  pullResponseSchema,
  REGISTRY_ITEM_TYPES,
  searchResponseSchema,
  searchSortSchema,
  sha256HexSchema,
} from "@rye/core";
import { SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_CHARS } from "../services/search.ts";

/** Most bytes of file contents one `skill_files` answer carries; other requested files are listed as omitted. */
export const SKILL_FILES_MAX_BYTES = 1024 * 1024;
/** Most file paths one `skill_files` call may ask for. */
export const SKILL_FILES_MAX_PATHS = 50;

// Filters are compared verbatim: control characters are refused, as GET /v1/search refuses them.
// eslint-disable-next-line no-control-regex
const text = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");
const itemType = z.enum(REGISTRY_ITEM_TYPES).describe("directive | tool | knowledge | skill");
const itemId = text(256).min(3).describe("The registry id: namespace/category/name (a skill: namespace/name)");
const version = z.string().max(256).refine(isSemver, "a semantic version such as 1.2.0");

// Tool inputs are z.object schemas built once (the SDK would build an object from a raw shape on every request).
export const searchInput = z.object({
  query: text(SEARCH_MAX_QUERY_CHARS).default("").describe("Words to search for (ranked full-text, typo tolerant); empty lists everything visible, newest first"),
  item_type: itemType.optional().describe("Only this item type"),
  namespace: text(64).optional().describe("Only items of this namespace (a user or an organization)"),
  category: text(256).optional().describe("Category prefix on whole segments: rye/core matches rye/core and rye/core/x"),
  tool_type: text(64).optional().describe("Tools only: python, node, bash, …"),
  min_quality: z.number().int().min(0).max(100).optional().describe("Only items whose quality score is at least this (0 … 100)"),
  sort: searchSortSchema.optional().describe("relevance (default with a query), recent, downloads or quality"),
  limit: z.number().int().min(1).max(SEARCH_MAX_LIMIT).default(20).describe(`Results per page, 1 … ${SEARCH_MAX_LIMIT}`),
  offset: z.number().int().min(0).max(10_000).optional().describe("Results to skip (not with cursor)"),
  cursor: z.string().max(512).optional().describe("next_cursor of the previous page"),
  facets: z.boolean().optional().describe("Add counts per item type, namespace, category and tool type"),
});

export const getItemInput = z.object({
  item_type: itemType,
  item_id: itemId,
  version: version.optional().describe("The version; default the latest installable one"),
});

export const listVersionsInput = z.object({
  item_type: itemType,
  item_id: itemId,
});

export const relationsInput = z.object({
  item_type: itemType,
  item_id: itemId,
  version: version.optional().describe("The version whose uses are listed; default the latest"),
});

export const skillFilesInput = z.object({
  skill_id: text(200).min(3).describe("The skill's id: namespace/name"),
  version: version.optional().describe("The version; default the latest installable one"),
  paths: z
    .array(text(1024))
    .max(SKILL_FILES_MAX_PATHS)
    .optional()
    .describe(`Files whose contents to return (default SKILL.md only; [] for none); at most ${SKILL_FILES_MAX_BYTES} bytes of contents per call`),
});

/** `search`: GET /v1/search's answer (a mirror's upstream merge aside). */
export const searchOutput = searchResponseSchema.omit({ upstream: true });
export type SearchOutput = z.infer<typeof searchOutput>;

const publicKey = z.object({
  fingerprint: z.string(),
  public_key: z.string().nullable().describe("SPKI PEM; null when the registry does not hold it"),
});

/** `get_item`: GET /v1/pull's answer plus the keys that verify it and how to verify it offline. */
export const getItemOutput = z.object({
  item: pullResponseSchema.omit({ mirrored: true }).describe("The version as GET /v1/pull/{type}/{id}?version= answers it: content with its registry signature line, the signed attestation, the log index"),
  registry_key: publicKey.describe("The registry key that signed the content and the attestation (GET /v1/keys)"),
  publisher_key: publicKey
    .extend({ revoked: z.boolean() })
    .nullable()
    .describe("The publisher's own key whose signature the registry checked at publish (item.author_key); null when the publisher did not sign"),
  verify_offline: z.string().describe("How to check this answer without trusting the connection"),
});
export type GetItemOutput = z.infer<typeof getItemOutput>;

/** `list_versions`: GET /v1/items/{type}/{id}'s answer. */
export const listVersionsOutput = itemDetailsSchema.omit({ mirrored_from: true, upstream_unavailable: true });
export type ListVersionsOutput = z.infer<typeof listVersionsOutput>;

/** `relations`: GET /v1/relations/{type}/{id}'s answer. */
export const relationsOutput = itemRelationsSchema;

const skillFile = z.object({ path: z.string(), sha256: sha256HexSchema, size: z.number().int(), executable: z.boolean() });

/** `skill_files`: the skill's signed manifest, its file list, and the contents asked for. */
export const skillFilesOutput = z.object({
  item_id: z.string(),
  namespace: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  manifest: z.string().describe("The registry-signed .rye/manifest.yaml: every file's path, size and sha256"),
  manifest_sha256: sha256HexSchema,
  files: z.array(skillFile).describe("Every file of the skill, by path"),
  contents: z
    .array(z.object({ path: z.string(), encoding: z.enum(["utf-8", "base64"]), text: z.string() }))
    .describe("The requested files' bytes: UTF-8 text, or base64 for binary files"),
  omitted: z
    .array(z.object({ path: z.string(), reason: z.enum(["not_in_skill", "too_large"]) }))
    .describe(`Requested files not returned: not part of the skill, or past the ${SKILL_FILES_MAX_BYTES}-byte budget of one answer`),
});
export type SkillFilesOutput = z.infer<typeof skillFilesOutput>;
