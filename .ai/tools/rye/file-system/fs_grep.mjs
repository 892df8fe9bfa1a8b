// rye:signed:2026-11-29T13:41:57Z:317cb0a27e35fe20f4f1bd78ac9285498678e1fb91f90192c2c349c3ff551126:VfStGUd3vkYQdHs5j8nQX-fbFKHL8w5cJZQrNdKGAojcJOib7Lx7_vkx-6hqzSqnFQZh5JP4oC_jqIy0cJ9FCw==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T0";
export const __category__ = "rye/file-system";
export const __tool_description__ = "Search the project's text files for a regular expression or literal text";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    pattern: { type: "string", maxLength: 1000 },
    literal: { type: "boolean", default: false, description: "Treat the pattern as plain text" },
    ignore_case: { type: "boolean", default: false },
    path: { type: "string", default: ".", description: "Directory to search, relative to the project" },
    max_matches: { type: "integer", minimum: 1, maximum: 10000, default: 500 },
  },
  required: ["pattern"],
  additionalProperties: false,
};

import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

const SKIP = new Set([".git", "node_modules", "__pycache__", ".venv"]);
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export async function main(params, context) {
  const root = await realpath(context.projectPath);
  const start = await realpath(resolve(root, params.path));
  const relStart = relative(root, start);
  if (relStart.startsWith("..") || relStart.startsWith(sep)) throw new Error(`${params.path} is outside the project`);
  const source = params.literal ? params.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : params.pattern;
  const regex = new RegExp(source, params.ignore_case ? "i" : "");
  const matches = [];
  async function walk(dir) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (matches.length >= params.max_matches || SKIP.has(entry.name)) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && (await stat(full)).size <= MAX_FILE_BYTES) {
        const text = await readFile(full, "utf8");
        if (text.includes("\u0000")) continue;
        text.split("\n").forEach((line, i) => {
          if (matches.length < params.max_matches && regex.test(line)) {
            matches.push({ path: relative(root, full).split(sep).join("/"), line: i + 1, text: line.slice(0, 500) });
          }
        });
      }
    }
  }
  await walk(start);
  return { pattern: params.pattern, matches, truncated: matches.length >= params.max_matches };
}
