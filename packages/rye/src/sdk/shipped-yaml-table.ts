/**
 * The system bundle's YAML files shipped parsed (`dist/system-yaml.json`, written by scripts/build.mjs): SHA-256 of
 * each file's exact text → the JSON of its parsed value. Read without the `yaml` package (a local search, which
 * opens an engine, must not load it). `sdk.parseYaml` (parsed-yaml.ts) answers from it, and so do @rye/core's tool
 * parser and security configuration reader once an item is read (`useShippedYaml`, engine/read.ts).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

/** The value `table` holds for `text` (a fresh object on every call: callers may change what they get), else undefined. */
export function tableValue(table: ParsedYamlTable | null, text: string): unknown {
  const json = table?.get(yamlTextHash(text));
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
}

/** The built package's table in `file`, read on its first use; null in a checkout (the sources have no tables). */
export function shippedTableAt(file: string): () => ParsedYamlTable | null {
  let table: ParsedYamlTable | null | undefined;
  return () => (table === undefined ? (table = LAYOUT.fromSource ? null : readParsedYamlTable(file)) : table);
}

/** The built package's YAML table (read on first use); null in a checkout. */
export const shippedYamlTable = shippedTableAt(PARSED_YAML_FILE);

/** The shipped value of `text`, else undefined (what @rye/core's `useShippedYaml` takes). */
export function shippedYamlValue(text: string): unknown {
  return tableValue(shippedYamlTable(), text);
}
