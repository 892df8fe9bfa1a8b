/** Real item files in temporary spaces, for the search tests and the benchmark. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ItemType } from "@rye/core";
import { TYPE_FOLDERS } from "@rye/core";
import type { Space } from "../spaces/spaces.ts";

export interface TestSpaces {
  base: string;
  projectPath: string;
  project: Space;
  user: Space;
  system: Space;
  /** Precedence order, as resolveSpaces returns them. */
  spaces: Space[];
}

const created: string[] = [];

/** Deletes every directory made by makeSpaces so far (call from an `after` hook). */
export async function removeTestSpaces(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export async function makeSpaces(prefix = "rye-search-"): Promise<TestSpaces> {
  const base = await mkdtemp(join(tmpdir(), prefix));
  created.push(base);
  const projectPath = join(base, "project");
  const project: Space = { name: "project", root: join(projectPath, ".ai") };
  const user: Space = { name: "user", root: join(base, "home", ".ai") };
  const system: Space = { name: "system", root: join(base, "system", ".ai") };
  for (const space of [project, user, system]) await mkdir(space.root, { recursive: true });
  return { base, projectPath, project, user, system, spaces: [project, user, system] };
}

const categoryOf = (itemId: string): string => (itemId.includes("/") ? itemId.slice(0, itemId.lastIndexOf("/")) : "");
const nameOf = (itemId: string): string => itemId.slice(itemId.lastIndexOf("/") + 1);
const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function directiveFile(itemId: string, description: string, body = "", extra: { version?: string } = {}): string {
  return [
    `# ${nameOf(itemId)}`,
    "",
    body,
    "",
    "```xml",
    `<directive name="${nameOf(itemId)}" version="${extra.version ?? "1.0.0"}">`,
    "  <metadata>",
    `    <description>${escapeXml(description)}</description>`,
    `    <category>${categoryOf(itemId)}</category>`,
    "    <author>rye-tests</author>",
    "  </metadata>",
    "</directive>",
    "```",
    "",
  ].join("\n");
}

export function knowledgeFile(itemId: string, title: string, body: string, extra: { tags?: string[]; version?: string } = {}): string {
  const lines = ["---", `id: ${nameOf(itemId)}`, `title: ${JSON.stringify(title)}`, `version: "${extra.version ?? "1.0.0"}"`, "entry_type: reference"];
  if (categoryOf(itemId)) lines.push(`category: ${categoryOf(itemId)}`);
  if (extra.tags) lines.push(`tags: [${extra.tags.join(", ")}]`);
  return [...lines, "---", "", body, ""].join("\n");
}

export function pythonToolFile(itemId: string, description: string, body = "", extra: { toolType?: string; version?: string } = {}): string {
  return [
    "#!/usr/bin/env python3",
    `"""${description}"""`,
    `__version__ = "${extra.version ?? "1.0.0"}"`,
    `__tool_type__ = "${extra.toolType ?? "python"}"`,
    '__executor_id__ = "rye/core/runtimes/python_script"',
    `__category__ = "${categoryOf(itemId)}"`,
    `__tool_description__ = ${JSON.stringify(description)}`,
    "",
    body,
    "",
  ].join("\n");
}

export function yamlToolFile(itemId: string, description: string, extra: { toolType?: string } = {}): string {
  return [
    'version: "1.0.0"',
    `tool_type: ${extra.toolType ?? "http"}`,
    "executor_id: rye/core/primitives/http_client",
    `category: "${categoryOf(itemId)}"`,
    `description: ${JSON.stringify(description)}`,
    "",
  ].join("\n");
}

const EXTENSION: Record<ItemType, string> = { directive: ".md", tool: ".py", knowledge: ".md" };

/**
 * Writes an item file and moves its mtime a minute into the past: a file read right after it was
 * written counts as "racy" and is re-read once (see scan.ts), which would blur read counting.
 */
export async function writeItem(space: Space, type: ItemType, itemId: string, content: string, extension = EXTENSION[type]): Promise<string> {
  const path = join(space.root, TYPE_FOLDERS[type], `${itemId}${extension}`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  await backdate(path);
  return path;
}

export async function backdate(path: string, secondsAgo = 60): Promise<void> {
  const when = new Date(Date.now() - secondsAgo * 1000);
  await utimes(path, when, when);
}
