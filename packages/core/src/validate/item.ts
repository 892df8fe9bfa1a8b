/**
 * Validation of parsed item metadata with the original's rules (rye-format §2): required fields per
 * type, snake_case directive names matching the file stem, semver versions, category equal to the
 * folder path. Issues are returned as a list, never thrown.
 */
import { z } from "zod";
import { RyeError } from "../errors.ts";
import type { ItemType } from "../item-types.ts";
import { categoryOfItemId, locateInAiTree, stemOf, validateItemId } from "../item-types.ts";
import type { ParsedDirective } from "../parsers/directive.ts";
import { parseDirective } from "../parsers/directive.ts";
import type { ParsedKnowledge } from "../parsers/knowledge.ts";
import { parseKnowledge } from "../parsers/knowledge.ts";
import type { ParsedTool } from "../parsers/tool.ts";
import { parseTool } from "../parsers/tool.ts";
import { checkGraph } from "../graphs/graph.ts";
import { isSemver } from "../semver.ts";

export interface ValidationIssue {
  /** Dotted path of the field, e.g. `inputs.0.name`; "" for the whole item. */
  field: string;
  message: string;
}

export interface ItemLocation {
  /** File stem the name must equal. */
  stem?: string;
  /** Folder path (under `.ai/<type folder>/`) the category must equal. */
  category?: string;
}

const nonEmpty = (what: string) => z.string({ error: `${what} is required` }).trim().min(1, `${what} is required`);
const semverString = z
  .string({ error: "version is required (a semantic version string such as 1.0.0)" })
  .refine(isSemver, { message: "version must be a semantic version such as 1.0.0 or 2.1.0-beta.1" });
const category = z.string({ error: "category is required (the folder path; empty at the root)" });
const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const int = z.number().int();

export const directiveMetadataSchema = z.object({
  name: z.string({ error: "name is required" }).regex(SNAKE_CASE, "name must be snake_case: a lowercase letter, then a-z, 0-9 or _"),
  version: semverString,
  description: nonEmpty("description"),
  category,
  author: nonEmpty("author"),
  model: z
    .object({
      tier: z.string().optional(),
      fallback: z.string().optional(),
      id: z.string().optional(),
      parallel: z.enum(["true", "false"]).optional(),
    })
    .passthrough()
    .optional(),
  limits: z
    .object({
      turns: int.optional(),
      tokens: int.optional(),
      spend: z.number().optional(),
      spend_currency: z.string().optional(),
      spawns: int.optional(),
      depth: int.optional(),
      duration_seconds: int.optional(),
    })
    .passthrough()
    .optional(),
  inputs: z.array(
    z.object({
      name: z.string().regex(INPUT_NAME, "input names are identifiers: letters, digits and _"),
      type: nonEmpty("input type"),
      required: z.boolean(),
    }).passthrough(),
  ).optional(),
});

const METADATA_SOURCE_KEYS = /^(@?(config_schema|env_config|config|input_schema)|CONFIG_SCHEMA|ENV_CONFIG|CONFIG|__version__|__tool_type__|__executor_id__|__category__|__tool_description__):/;
const isMetadataWarning = (warning: string): boolean => METADATA_SOURCE_KEYS.test(warning);

export const toolMetadataSchema = z.object({
  name: z.string().refine((n) => validateItemId(n) === null && !n.includes("/"), "tool name (file stem) has invalid characters"),
  version: semverString,
  tool_type: nonEmpty("tool_type"),
  executor_id: z.union([z.null(), z.string().refine((id) => validateItemId(id) === null, "executor_id must be an item id")], {
    error: "executor_id is required (an item id, or null for a primitive)",
  }),
  category,
  description: nonEmpty("description"),
  config_schema: z.record(z.string(), z.unknown(), { error: "config_schema must be a JSON Schema object" }).optional(),
  env_config: z.record(z.string(), z.unknown(), { error: "env_config must be a mapping" }).optional(),
  config: z.record(z.string(), z.unknown(), { error: "config must be a mapping" }).optional(),
});

export const knowledgeMetadataSchema = z.object({
  id: z.string({ error: "id is required" }).min(1, "id is required"),
  title: nonEmpty("title"),
  version: semverString,
  entry_type: nonEmpty("entry_type"),
  category: z.string().optional(),
  tags: z.array(z.string(), { error: "tags must be a list of strings" }).optional(),
});

function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join("."), message: i.message }));
}

function locationIssues(type: ItemType, meta: Record<string, unknown>, location: ItemLocation): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const nameField = type === "knowledge" ? "id" : "name";
  const name = meta[nameField];
  if (location.stem !== undefined && typeof name === "string" && name !== location.stem) {
    issues.push({ field: nameField, message: `${nameField} ${JSON.stringify(name)} must equal the file name ${JSON.stringify(location.stem)}` });
  }
  const cat = meta.category;
  const checkCategory = type !== "knowledge" || cat !== undefined;
  if (location.category !== undefined && checkCategory && typeof cat === "string" && cat !== location.category) {
    issues.push({ field: "category", message: `category ${JSON.stringify(cat)} must equal the folder path ${JSON.stringify(location.category)}` });
  }
  return issues;
}

export function validateMetadata(type: ItemType, meta: Record<string, unknown>, location: ItemLocation = {}): ValidationIssue[] {
  const schema = type === "directive" ? directiveMetadataSchema : type === "tool" ? toolMetadataSchema : knowledgeMetadataSchema;
  const result = schema.safeParse(meta);
  const issues = result.success ? [] : zodIssues(result.error);
  return [...issues, ...locationIssues(type, meta, location)];
}

/** The fields every item type shares, for search, listings and the registry. */
export interface ItemSummary {
  type: ItemType;
  name: string;
  version: string | undefined;
  description: string | undefined;
  category: string | undefined;
  /** Directive title, knowledge title. */
  title?: string;
  tags?: string[];
  toolType?: string;
  executorId?: string | null;
  author?: string;
}

export type ParsedItem =
  | { type: "directive"; summary: ItemSummary; metadata: ParsedDirective; issues: ValidationIssue[]; warnings: string[] }
  | { type: "tool"; summary: ItemSummary; metadata: ParsedTool; issues: ValidationIssue[]; warnings: string[] }
  | { type: "knowledge"; summary: ItemSummary; metadata: ParsedKnowledge; issues: ValidationIssue[]; warnings: string[] };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : v === undefined || v === null ? undefined : String(v));

/** Location rules for a file path: stem and, inside `.ai/<type folder>/`, the category. */
export function locationFromPath(type: ItemType, path: string): ItemLocation {
  const located = locateInAiTree(path, type);
  const stem = stemOf(path.replace(/\\/g, "/"));
  return located ? { stem, category: categoryOfItemId(located.itemId) } : { stem };
}

export interface ParseItemOptions {
  /** The file path (gives the tool format and the name/category rules). Required for tools. */
  path?: string;
  /** Overrides what the path implies. */
  location?: ItemLocation;
}

/**
 * Parses and validates an item. Throws PARSE_FAILED only when the file cannot be read as its type at
 * all; metadata problems come back as `issues`.
 */
export function parseItem(rawContent: string, type: ItemType, options: ParseItemOptions = {}): ParsedItem {
  const location = options.location ?? (options.path ? locationFromPath(type, options.path) : {});
  if (type === "directive") {
    const metadata = parseDirective(rawContent);
    const meta = { ...metadata } as unknown as Record<string, unknown>;
    return {
      type,
      metadata,
      summary: {
        type,
        name: metadata.name ?? "",
        version: metadata.version,
        description: metadata.description,
        category: metadata.category,
        ...(metadata.author ? { author: metadata.author } : {}),
      },
      issues: validateMetadata(type, meta, location),
      warnings: [],
    };
  }
  if (type === "tool") {
    if (!options.path) throw new RyeError("PARSE_FAILED", "A tool's file name is needed to know its format");
    const metadata = parseTool(rawContent, options.path);
    const meta: Record<string, unknown> = { ...metadata.extras, ...metadata };
    return {
      type,
      metadata,
      summary: {
        type,
        name: metadata.name,
        version: str(metadata.version),
        description: str(metadata.description),
        category: str(metadata.category),
        toolType: str(metadata.tool_type),
        executorId: metadata.executor_id === null ? null : str(metadata.executor_id),
      },
      // Metadata that could not be read (a schema that is not a literal, invalid JSON) would otherwise be
      // silently absent, e.g. a tool run without its parameter schema: an issue, not a warning.
      issues: [
        ...validateMetadata(type, meta, location),
        ...metadata.warnings.filter(isMetadataWarning).map((w) => ({ field: w.slice(0, w.indexOf(":")).replace(/^@/, ""), message: w })),
        // A state graph (docs/state-graphs.md) is checked as a graph too: every edge to a node, valid actions.
        ...(metadata.tool_type === "graph" ? checkGraph(metadata, metadata.name).issues.map((message) => ({ field: "nodes", message })) : []),
      ],
      warnings: metadata.warnings.filter((w) => !isMetadataWarning(w)),
    };
  }
  const metadata = parseKnowledge(rawContent);
  const fm = metadata.frontmatter;
  const tags = Array.isArray(fm.tags) ? fm.tags.map(String) : undefined;
  return {
    type,
    metadata,
    summary: {
      type,
      name: str(fm.id) ?? "",
      version: str(fm.version),
      description: str(fm.description) ?? str(fm.title),
      category: str(fm.category),
      ...(str(fm.title) ? { title: str(fm.title)! } : {}),
      ...(tags ? { tags } : {}),
      ...(str(fm.author) ? { author: str(fm.author)! } : {}),
    },
    issues: validateMetadata(type, fm, location),
    warnings: metadata.warning ? [metadata.warning] : [],
  };
}
