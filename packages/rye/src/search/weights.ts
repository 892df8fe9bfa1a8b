/**
 * Ranking data: field weights per item type and match factors, `weights.default.ts`, overridden by
 * `<project>/.ai/config/search.yaml` (validated with zod).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, RyeError } from "@rye/core";
import { INDEX_FIELDS } from "./fields.ts";
import { DEFAULT_SEARCH_WEIGHTS } from "./weights.default.ts";

export interface MatchFactors {
  phrase: number;
  plural: number;
  fuzzy: number;
  wildcard: number;
}

export interface SearchConfig {
  /** Per item type, the weight of each field in INDEX_FIELDS order. */
  weights: Record<ItemType, Float64Array>;
  factors: MatchFactors;
}

const weight = z.number().finite().min(0).max(1000);
const factor = z.number().finite().min(0).max(100);
const fieldWeights = z.object(Object.fromEntries(INDEX_FIELDS.map((f) => [f, weight.optional()]))).strict();
const overrideSchema = z
  .object({
    weights: z.object(Object.fromEntries(ITEM_TYPES.map((t) => [t, fieldWeights.optional()]))).strict().optional(),
    factors: z.object({ phrase: factor, plural: factor, fuzzy: factor, wildcard: factor }).partial().strict().optional(),
  })
  .strict();
type Override = z.infer<typeof overrideSchema>;

function invalid(path: string, problem: string, details?: unknown): RyeError {
  return new RyeError("VALIDATION_FAILED", `Invalid search configuration ${path}: ${problem}`, {
    hint: "Fix the file: weights: { <directive|tool|knowledge>: { <field>: <number ≥ 0> } }, factors: { phrase|plural|fuzzy|wildcard: <number> }.",
    details: { path, ...(details === undefined ? {} : { issues: details }) },
  });
}

/** Validates data shaped like `search.yaml` (exported for the test of the defaults). */
export function checkOverride(data: unknown, path: string): Override {
  if (data === null || data === undefined) return {};
  const result = overrideSchema.safeParse(data);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ field: i.path.map(String).join("."), message: i.message }));
    throw invalid(path, issues.map((i) => `${i.field || "(root)"}: ${i.message}`).join("; "), issues);
  }
  return result.data;
}

function parseOverride(text: string, path: string): Override {
  let data: unknown;
  try {
    data = parseYaml(text, { schema: "core", maxAliasCount: 16 });
  } catch (err) {
    throw invalid(path, `not valid YAML (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
  }
  return checkOverride(data, path);
}

function apply(base: SearchConfig, override: Override): SearchConfig {
  const weights = Object.fromEntries(
    ITEM_TYPES.map((type) => {
      const row = Float64Array.from(base.weights[type]);
      const given = override.weights?.[type] as Partial<Record<string, number>> | undefined;
      INDEX_FIELDS.forEach((field, i) => {
        const value = given?.[field];
        if (value !== undefined) row[i] = value;
      });
      return [type, row];
    }),
  ) as Record<ItemType, Float64Array>;
  return { weights, factors: { ...base.factors, ...override.factors } };
}

let defaults: SearchConfig | undefined;

export function defaultSearchConfig(): SearchConfig {
  if (!defaults) {
    // The defaults applied as an override of an all-zero configuration (a test validates them with `overrideSchema`).
    const override = DEFAULT_SEARCH_WEIGHTS as unknown as Override;
    const empty: SearchConfig = {
      weights: Object.fromEntries(ITEM_TYPES.map((t) => [t, new Float64Array(INDEX_FIELDS.length)])) as Record<ItemType, Float64Array>,
      factors: { phrase: 1, plural: 1, fuzzy: 1, wildcard: 1 },
    };
    defaults = apply(empty, override);
  }
  return defaults;
}

/** `<project>/.ai/config/search.yaml` */
export function projectConfigPath(projectPath: string): string {
  return join(projectPath, ".ai", "config", "search.yaml");
}

const cache = new Map<string, { text: string; config: SearchConfig }>();

/**
 * The defaults with the file at `path` applied; no file → defaults. The file is small, so it is read
 * on every call (no stale mtime cache) and only re-validated when its text changed.
 */
export async function loadSearchConfig(path: string | undefined): Promise<SearchConfig> {
  if (!path) return defaultSearchConfig();
  let text: string;
  try {
    // Synchronous: a file of a few hundred bytes, read on every search; a cold process then needs no thread-pool hop.
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      cache.delete(path);
      return defaultSearchConfig();
    }
    throw invalid(path, `cannot be read (${code ?? String(err)})`);
  }
  const hit = cache.get(path);
  if (hit && hit.text === text) return hit.config;
  const config = apply(defaultSearchConfig(), parseOverride(text, path));
  cache.set(path, { text, config });
  return config;
}
