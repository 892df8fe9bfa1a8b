/** The schema and parser of `<project>/.ai/config/search.yaml` overrides (imported only when a project has one). */
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ITEM_TYPES, RyeError } from "@rye/core";
import { INDEX_FIELDS } from "./fields.ts";

const weight = z.number().finite().min(0).max(1000);
const factor = z.number().finite().min(0).max(100);
const fieldWeights = z.object(Object.fromEntries(INDEX_FIELDS.map((f) => [f, weight.optional()]))).strict();
const overrideSchema = z
  .object({
    weights: z.object(Object.fromEntries(ITEM_TYPES.map((t) => [t, fieldWeights.optional()]))).strict().optional(),
    factors: z.object({ phrase: factor, plural: factor, fuzzy: factor, wildcard: factor }).partial().strict().optional(),
  })
  .strict();
export type Override = z.infer<typeof overrideSchema>;

export function invalidConfig(path: string, problem: string, details?: unknown): RyeError {
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
    throw invalidConfig(path, issues.map((i) => `${i.field || "(root)"}: ${i.message}`).join("; "), issues);
  }
  return result.data;
}

export function parseOverride(text: string, path: string): Override {
  let data: unknown;
  try {
    data = parseYaml(text, { schema: "core", maxAliasCount: 16 });
  } catch (err) {
    throw invalidConfig(path, `not valid YAML (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
  }
  return checkOverride(data, path);
}
