/**
 * `sdk.parseYaml`: the `yaml` package's `parse`, with the system bundle's YAML files shipped parsed. Every thread
 * process parses the runtime's 5 configuration and 3 provider files after verifying them, and that parse, on a cold
 * process, was the largest piece of its start-up (~100 ms profiled). The build (scripts/build.mjs) writes
 * `dist/system-yaml.json`: for each YAML file of the system bundle, the SHA-256 of its exact text → the JSON of
 * `parse(text)` (checked by the build to round-trip exactly). A text whose hash is in that table gets the table's
 * value, which is by construction what parsing those very bytes gives; any other text (a project's override, an
 * edited file, the sources in a checkout, where there is no table) is parsed. The table decides nothing about
 * trust: callers parse only bytes they have verified, and the table ships inside the package like its code.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { LAYOUT } from "../package-layout.ts";

/** Where the build writes the table, in the built package. */
export const PARSED_YAML_FILE = join(LAYOUT.root, "dist", "system-yaml.json");

export type ParsedYamlTable = ReadonlyMap<string, string>;

/** The hash the table is keyed by: SHA-256 of the text's UTF-8 bytes, hex. */
export function yamlTextHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The table in `file` (`{ "<sha256>": "<JSON>" }`), or null when there is none (a checkout) or it is unreadable. */
export function readParsedYamlTable(file: string): ParsedYamlTable | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  return new Map(Object.entries(raw as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** A `parse(text, …)` that answers from `table` when called with the text alone and its hash is there. */
export function parserWith(table: () => ParsedYamlTable | null): typeof parse {
  return ((text: string, ...rest: unknown[]) => {
    if (rest.length === 0 && typeof text === "string") {
      const json = table()?.get(yamlTextHash(text));
      // A fresh object on every call: callers may change what they get.
      if (json !== undefined) return JSON.parse(json) as unknown;
    }
    return (parse as (...args: unknown[]) => unknown)(text, ...rest);
  }) as typeof parse;
}

let shipped: ParsedYamlTable | null | undefined;

/** The parser `sdk/v1` exports: the built package's table (read on first use), else plain `parse`. */
export const parseYaml = parserWith(() => {
  if (shipped === undefined) shipped = LAYOUT.fromSource ? null : readParsedYamlTable(PARSED_YAML_FILE);
  return shipped;
});
