// rye:signed:2026-11-29T13:41:57Z:0ff3ad18a780cabecde5676c1be2154bb8341dca5055c87b72ab962440d233d5:WjMsofz0VHujbNTk4lwCLYSnNKkWiibDyFqi71DghQ27sA2-RzmaTvqzB40ysi8sZVMd70y-RjsOT5DAa3BuCA==:334f126a02990a0c
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T2";
export const __category__ = "rye/file-system";
export const __tool_description__ = "Write, append to or create a text file inside the project (atomic overwrite)";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string", description: "File path, relative to the project" },
    content: { type: "string", maxLength: 5242880 },
    mode: { type: "string", enum: ["overwrite", "append", "create"], default: "overwrite", description: "create fails when the file exists" },
  },
  required: ["path", "content"],
  additionalProperties: false,
};

import { appendFile, mkdir, realpath, rename, writeFile } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";

async function insideProject(projectPath, path) {
  const root = await realpath(projectPath);
  const target = resolve(root, path);
  await mkdir(dirname(target), { recursive: true });
  const realDir = await realpath(dirname(target));
  const rel = relative(root, resolve(realDir, target.slice(dirname(target).length + 1)));
  if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) throw new Error(`${path} is outside the project`);
  return target;
}

export async function main(params, context) {
  const file = await insideProject(context.projectPath, params.path);
  if (params.mode === "append") await appendFile(file, params.content);
  else if (params.mode === "create") await writeFile(file, params.content, { flag: "wx" });
  else {
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, params.content);
    await rename(temp, file);
  }
  return { path: params.path, mode: params.mode, bytes: Buffer.byteLength(params.content) };
}
