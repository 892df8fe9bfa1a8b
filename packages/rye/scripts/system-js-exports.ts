/**
 * Writes the `export const` metadata of every JavaScript/TypeScript tool in a system bundle, read by @rye/core's own
 * reader (src/sdk/shipped-js-exports-table.ts):
 *   node --import tsx scripts/system-js-exports.ts <tools folder> <out.json>
 * `{ "<SHA-256 of the file's exact text>": "<JSON of extractJsExports(toolBody(text))>" }`. A file whose exports do not
 * survive JSON unchanged fails the build.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { extractJsExports, toolBody, toolFormatOf } from "@rye/core";

const [toolsDir, outFile] = process.argv.slice(2);
if (!toolsDir || !outFile) {
  console.error("usage: system-js-exports.ts <tools folder> <out.json>");
  process.exit(2);
}

const table: Record<string, string> = {};
for (const rel of (await readdir(toolsDir, { recursive: true })).sort()) {
  const format = toolFormatOf(rel);
  if (format !== "javascript" && format !== "typescript") continue;
  const text = await readFile(join(toolsDir, rel), "utf8");
  const value = extractJsExports(toolBody(text));
  const json = JSON.stringify(value);
  if (!isDeepStrictEqual(JSON.parse(json), value)) {
    console.error(`ryeos: the exports of system/.ai/tools/${rel} are not plain JSON data; they cannot be shipped read`);
    process.exit(1);
  }
  table[createHash("sha256").update(text, "utf8").digest("hex")] = json;
}
await writeFile(outFile, JSON.stringify(table));
console.error(`ryeos: ${Object.keys(table).length} system JavaScript tools' exports shipped read`);
