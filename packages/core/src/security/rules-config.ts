/**
 * The dangerous-pattern rules as the signed system item `rye/security/dangerous_patterns` holds them: one reader for
 * the client's security gate and the registry's publish-time safety report, so both apply the same rules.
 */
import { parse as parseYaml } from "yaml";
import { RyeError } from "../errors.ts";
import { shippedYamlValue } from "../parsers/shipped-readings.ts";
import { canonicalJson } from "../canonical-json.ts";
import { sha256Hex } from "../hash.ts";
import { compileRules, type CompiledRule } from "./gate.ts";

/** The body of a signed YAML config item (its signature line is a YAML comment) as a mapping. */
export function configItemBody(content: string, what: string): Record<string, unknown> {
  let data: unknown = shippedYamlValue(content);
  try {
    data ??= parseYaml(content) as unknown;
  } catch (err) {
    throw new RyeError("VALIDATION_FAILED", `${what} is not valid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new RyeError("VALIDATION_FAILED", `${what} is not a YAML mapping`);
  return data as Record<string, unknown>;
}

/** The compiled rules of a `dangerous_patterns` item's content. */
export function dangerRulesFromConfig(content: string, what = "rye/security/dangerous_patterns"): CompiledRule[] {
  return compileRules(configItemBody(content, what).rules ?? []);
}

/** A short digest of what the rules match (id, pattern, flags, tier): changes whenever a rule changes. */
export function dangerRulesDigest(rules: readonly CompiledRule[]): string {
  return sha256Hex(canonicalJson(rules.map(({ id, pattern, flags, tier }) => ({ id, pattern, flags, tier })))).slice(0, 16);
}
