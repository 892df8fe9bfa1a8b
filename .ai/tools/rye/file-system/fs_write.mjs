// rye:signed:2026-11-25T12:35:28Z:3ccadb9aad33adfcc5ab9a812c3a1b0640a04681cb8eb00de96ea3a2e96b6efe:YMtehFazNQceKZCBmBKyikx8zUAbvSH91HQ1_HEkq0ZsphgAKnA5ZvsKkgpA7MayzgYNQeOWy26khjU5mgxFDQ==:d0cfc94e6739114a
export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
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
