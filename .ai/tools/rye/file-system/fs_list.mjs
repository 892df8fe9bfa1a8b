// rye:signed:2026-11-29T13:41:57Z:b36772e4a43834e886c9cf6ca3365896b9edd765995da7dfaa4aaac63b2f4625:rtKcuzfsPdVJ1qfPPH7BrWyOaEXqLErthVxl7v-K0QPEmulige_aH11B7EOizWZu-I8f4jbYhFN3Lpi4qUflBg==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T0";
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
