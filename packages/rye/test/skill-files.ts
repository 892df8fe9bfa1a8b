/** Agent Skills as folders of files, for tests that push, install and compare them byte for byte. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** A skill's files: `/`-separated path → text or bytes. */
export type SkillTree = Record<string, string | Uint8Array>;

export const skillMd = (name: string, version: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\nmetadata:\n  version: "${version}"\n---\n\n${body}`;

export const bytes = (content: string | Uint8Array) => (typeof content === "string" ? new TextEncoder().encode(content) : content);
export const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Writes `files` under `dir`; `.sh` files are made executable. */
export async function writeSkill(dir: string, files: SkillTree): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, ...path.split("/"));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes(content));
    if (path.endsWith(".sh")) await chmod(target, 0o755);
  }
}

/** Every file under `dir` (relative `/` paths) → bytes. */
export async function readTree(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.set(relative(dir, path).split("\\").join("/"), new Uint8Array(await readFile(path)));
    }
  };
  await walk(dir);
  return out;
}

/** `installed` holds exactly `files`, each byte-identical. */
export function assertSameFiles(installed: Map<string, Uint8Array>, files: SkillTree, label: string): void {
  assert.deepEqual([...installed.keys()].sort(), Object.keys(files).sort(), `${label}: exactly the published files`);
  for (const [path, content] of Object.entries(files)) assert.equal(sha(installed.get(path)!), sha(bytes(content)), `${label}: ${path} byte-identical`);
}
