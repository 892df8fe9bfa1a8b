/**
 * `sdk.parseYaml`: the `yaml` package's `parse`, with the system bundle's YAML files shipped parsed. Every thread
 * process parses the runtime's 5 configuration and 3 provider files after verifying them, and that parse, on a cold
 * process, was the largest piece of its start-up (~100 ms profiled). The build (scripts/build.mjs) writes
 * `dist/system-yaml.json` (shipped-yaml-table.ts): for each YAML file of the system bundle, the SHA-256 of its exact
 * text → the JSON of `parse(text)` (checked by the build to round-trip exactly). A text whose hash is in that table
 * gets the table's value, which is by construction what parsing those very bytes gives; any other text (a project's
 * override, an edited file, the sources in a checkout, where there is no table) is parsed. The table decides nothing
 * about trust: callers parse only bytes they have verified, and the table ships inside the package like its code.
 */
import { parse } from "yaml";
import { type ParsedYamlTable, shippedYamlTable, tableValue } from "./shipped-yaml-table.ts";

export { PARSED_YAML_FILE, type ParsedYamlTable, readParsedYamlTable, yamlTextHash } from "./shipped-yaml-table.ts";

/** A `parse(text, …)` that answers from `table` when called with the text alone and its hash is there. */
export function parserWith(table: () => ParsedYamlTable | null): typeof parse {
  return ((text: string, ...rest: unknown[]) => {
    if (rest.length === 0 && typeof text === "string") {
      const value = tableValue(table(), text);
      if (value !== undefined) return value;
    }
    return (parse as (...args: unknown[]) => unknown)(text, ...rest);
  }) as typeof parse;
}

/** The parser `sdk/v1` exports: the built package's table (read on first use), else plain `parse`. */
export const parseYaml = parserWith(shippedYamlTable);
