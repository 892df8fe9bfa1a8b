/**
 * Ranking data: field weights per item type and match factors, `weights.default.ts`, overridden by
 * `<project>/.ai/config/search.yaml` (parsed and validated by weights-override.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import { INDEX_FIELDS } from "./fields.ts";
import { DEFAULT_SEARCH_WEIGHTS } from "./weights.default.ts";
import type { Override } from "./weights-override.ts";

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
    throw (await import("./weights-override.ts")).invalidConfig(path, `cannot be read (${code ?? String(err)})`);
  }
  const hit = cache.get(path);
  if (hit && hit.text === text) return hit.config;
  // The YAML parser and the schema load only when a project has the file.
  const { parseOverride } = await import("./weights-override.ts");
  const config = apply(defaultSearchConfig(), parseOverride(text, path));
  cache.set(path, { text, config });
  return config;
}
