// rye:signed:2026-11-29T13:41:57Z:f78b8a96b76f049d56cf214d9e27e5830ced2afeff0c67ca0ee72ecb29300aae:MEeBxn3vQLX4J6HEV1VwdXzx3CQxU6ZNAoQEWqQjIsfAJ6U9xq_KTYREpm3yy8Yi1rMRZpYEKRPxGCNH-wmxAA==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T0";
export const __category__ = "rye/file-system";
export const __tool_description__ = "Read a text file inside the project (optionally a line range)";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string", description: "File path, relative to the project" },
    offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
    limit: { type: "integer", minimum: 1, maximum: 100000, default: 2000, description: "Number of lines" },
  },
  required: ["path"],
  additionalProperties: false,
};

import { readFile, realpath } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";

const MAX_BYTES = 5 * 1024 * 1024;

async function insideProject(projectPath, path) {
  const root = await realpath(projectPath);
  const target = await realpath(resolve(root, path));
  const rel = relative(root, target);
  if (rel.startsWith("..") || rel.startsWith(sep)) throw new Error(`${path} is outside the project`);
  return target;
}

export async function main(params, context) {
  const file = await insideProject(context.projectPath, params.path);
  const bytes = await readFile(file);
  if (bytes.length > MAX_BYTES) throw new Error(`${params.path} is larger than ${MAX_BYTES} bytes`);
  const lines = bytes.toString("utf8").split("\n");
  const start = (params.offset ?? 1) - 1;
  const slice = lines.slice(start, start + params.limit);
  return { path: params.path, content: slice.join("\n"), first_line: start + 1, line_count: slice.length, total_lines: lines.length };
}
