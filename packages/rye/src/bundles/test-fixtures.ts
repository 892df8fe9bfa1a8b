/** Temp directories and item texts shared by the bundle tests (not used by the product code). */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const created: string[] = [];

/** A fresh temp directory, removed by `removeTempDirs` (register it with `after`). */
export async function tempDir(prefix = "rye-bundle-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Writes root-relative `/`-separated paths, creating folders. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, ...path.split("/"));
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

export const directiveText = (name: string, category: string) =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="1.0.0">\n  <metadata>\n    <description>Demo.</description>\n    <category>${category}</category>\n    <author>me</author>\n  </metadata>\n</directive>\n\`\`\`\n`;

export const toolText = (category: string) =>
  `#!/usr/bin/env python3\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = None\n__category__ = "${category}"\nprint("hi")\n`;

export const knowledgeText = (id: string) => `---\nid: ${id}\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nSome notes.\n`;

/** A small bundle `demo`: one directive, two tools (one nested) and one knowledge entry. */
export function demoTree(bundleId = "demo"): Record<string, string> {
  return {
    [`.ai/directives/${bundleId}/hello.md`]: directiveText("hello", bundleId),
    [`.ai/tools/${bundleId}/greet.py`]: toolText(bundleId),
    [`.ai/tools/${bundleId}/lib/util.py`]: toolText(`${bundleId}/lib`),
    [`.ai/knowledge/${bundleId}/notes.md`]: knowledgeText("notes"),
  };
}
