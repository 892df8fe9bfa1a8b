// rye:signed:2026-11-29T13:41:57Z:41962200756bac69b552936d077fcf9855846ced92b21fed2b6a5063d2ce196f:u5Q5TjqDXvppcdhUkZyENNDp8wu6iIuaECal7uBOzztEzc70hK4C2RMUisV8-pOeLzae7E3cTgWHOoCejiVKBQ==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T0";
export const __category__ = "rye/file-system";
export const __tool_description__ = "Find files in the project by glob pattern (*, **, ?)";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    pattern: { type: "string", description: "Glob relative to the project, e.g. src/**/*.ts" },
    max_results: { type: "integer", minimum: 1, maximum: 10000, default: 1000 },
  },
  required: ["pattern"],
  additionalProperties: false,
};

import { readdir, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";

const SKIP = new Set([".git", "node_modules", "__pycache__", ".venv"]);

function globToRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

export async function main(params, context) {
  if (params.pattern.includes("..")) throw new Error("patterns may not contain '..'");
  const root = await realpath(context.projectPath);
  const matcher = globToRegExp(params.pattern.replace(/^\.\//, ""));
  const matches = [];
  async function walk(dir) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (matches.length >= params.max_results) return;
      if (SKIP.has(entry.name)) continue;
      const full = join(dir, entry.name);
      const rel = relative(root, full).split(sep).join("/");
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && matcher.test(rel)) matches.push(rel);
    }
  }
  await walk(root);
  return { pattern: params.pattern, matches: matches.sort(), truncated: matches.length >= params.max_results };
}
