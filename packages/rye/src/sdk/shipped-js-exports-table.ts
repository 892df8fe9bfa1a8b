/**
 * The `export const` metadata of the system bundle's JavaScript/TypeScript tools, shipped read
 * (`dist/system-js-exports.json`, written by scripts/build.mjs with @rye/core's own reader): SHA-256 of each file's
 * exact text → the JSON of `extractJsExports` of its body. @rye/core's tool parser takes it once an item is read
 * (`useShippedJsExports`, engine/read.ts); a text the table does not know is tokenized as before.
 */
import { join } from "node:path";
import type { JsExports } from "@rye/core";
import { LAYOUT } from "../package-layout.ts";
import type { ParsedYamlTable } from "./shipped-yaml-table.ts";
import { shippedTableAt, tableValue } from "./shipped-yaml-table.ts";

/** Where the build writes the table, in the built package. */
export const JS_EXPORTS_FILE = join(LAYOUT.root, "dist", "system-js-exports.json");

/** The exports `table` holds for `text` (a fresh object on every call), else undefined; an entry of another shape is none. */
export function jsExportsValue(table: ParsedYamlTable | null, text: string): JsExports | undefined {
  const value = tableValue(table, text) as Partial<JsExports> | undefined;
  if (!value || typeof value.values !== "object" || value.values === null || Array.isArray(value.values) || !Array.isArray(value.errors)) return undefined;
  return value as JsExports;
}

const shippedJsExportsTable = shippedTableAt(JS_EXPORTS_FILE);

/** The shipped exports of `text`, else undefined (what @rye/core's `useShippedJsExports` takes); no table in a checkout. */
export function shippedJsExportsValue(text: string): JsExports | undefined {
  return jsExportsValue(shippedJsExportsTable(), text);
}
