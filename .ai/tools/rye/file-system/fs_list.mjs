// rye:signed:2026-11-25T12:35:28Z:c350deaf71eebc02cbd6dd8601faabeddc07ec62905edcfe109f57cf8558ae47:hF3o76twtqcqCGFHxKBODXsze-v6jhf0Qlcmyxm9_m5aah7-XTmSfwzfayLSpA8kiNbeZAhNjzIubDK0QpQ1Bw==:d0cfc94e6739114a
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __category__ = "rye/file-system";
export const __tool_description__ = "List a directory inside the project";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string", default: ".", description: "Directory, relative to the project" },
    include_hidden: { type: "boolean", default: false },
  },
  additionalProperties: false,
};

import { readdir, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";

const MAX_ENTRIES = 5000;

export async function main(params, context) {
  const root = await realpath(context.projectPath);
  const dir = await realpath(resolve(root, params.path));
  const rel = relative(root, dir);
  if (rel.startsWith("..") || rel.startsWith(sep)) throw new Error(`${params.path} is outside the project`);
  const names = (await readdir(dir)).filter((n) => params.include_hidden || !n.startsWith(".")).sort();
  const entries = [];
  for (const name of names.slice(0, MAX_ENTRIES)) {
    const info = await stat(join(dir, name)).catch(() => null);
    entries.push({ name, type: info?.isDirectory() ? "directory" : info?.isFile() ? "file" : "other", size: info?.size ?? null });
  }
  return { path: params.path, entries, truncated: names.length > MAX_ENTRIES };
}
