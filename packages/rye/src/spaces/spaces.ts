/**
 * The three spaces items live in: project (`<project>/.ai`), user (`$USER_SPACE/.ai`, default home) and
 * system (the bundle shipped with rye). Resolution order is project > user > system, and item ids are
 * the same in every space: the path under `.ai/<type folder>/` without extension.
 */
import { statSync } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import type { ItemType } from "@rye/core";
import { assertItemId, extensionOf, extensionsFor, RyeError, TYPE_FOLDERS } from "@rye/core";
import { isPathInside, toItemPath } from "../fs/platform.ts";
import { LAYOUT } from "../package-layout.ts";
import { userAiDir } from "./paths.ts";

export const SPACE_NAMES = ["project", "user", "system"] as const;
export type SpaceName = (typeof SPACE_NAMES)[number];

/** Higher wins: a chain element may only depend on elements of the same or lower precedence. */
export const SPACE_PRECEDENCE: Readonly<Record<SpaceName, number>> = { project: 3, user: 2, system: 1 };

export function isSpaceName(value: unknown): value is SpaceName {
  return typeof value === "string" && (SPACE_NAMES as readonly string[]).includes(value);
}

export interface Space {
  name: SpaceName;
  /** The `.ai` directory of the space. */
  root: string;
}

/**
 * The system space: `$RYE_SYSTEM_SPACE` (a `.ai` directory) when set, else the bundle shipped inside the
 * published package (`system/.ai`), or the repository's top-level `.ai/` when rye runs from a checkout.
 */
export function systemAiDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RYE_SYSTEM_SPACE) return resolve(env.RYE_SYSTEM_SPACE);
  return LAYOUT.fromSource ? LAYOUT.repoSystemAiDir : LAYOUT.packagedSystemAiDir;
}

/** The repository's `.ai/` (the system bundle's source; meaningful in a checkout only). */
export function repoSystemAiDir(): string {
  return LAYOUT.repoSystemAiDir;
}

export interface SpaceOptions {
  /** Project directory (its `.ai` is the project space); omitted → no project space. */
  projectPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Overrides the system `.ai` directory (tests). */
  systemRoot?: string;
}

/** The spaces in precedence order. */
export async function resolveSpaces(options: SpaceOptions = {}): Promise<Space[]> {
  const env = options.env ?? process.env;
  const spaces: Space[] = [];
  if (options.projectPath) spaces.push({ name: "project", root: join(resolve(options.projectPath), ".ai") });
  spaces.push({ name: "user", root: userAiDir(env) });
  spaces.push({ name: "system", root: options.systemRoot ? resolve(options.systemRoot) : systemAiDir(env) });
  // A project whose .ai is the user's .ai (running in $HOME) is one space, not two.
  return spaces.filter((s, i) => spaces.findIndex((o) => o.root === s.root) === i);
}

export function typeDir(space: Space, type: ItemType): string {
  return join(space.root, TYPE_FOLDERS[type]);
}

const isInside = (parent: string, child: string): boolean => isPathInside(parent, child);

/**
 * Throws PATH_TRAVERSAL when `path` (after resolving symlinks) is outside `root`. Missing paths pass
 * (callers handle ENOENT); a missing root means nothing can escape it.
 */
export async function assertInside(root: string, path: string): Promise<void> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return;
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return;
  }
  if (!isInside(realRoot, real)) {
    throw new RyeError("PATH_TRAVERSAL", `${path} resolves outside its space (${root})`, {
      hint: "Symlinks inside .ai/ must point inside the same .ai/ directory.",
    });
  }
}

/** `realpath` of the deepest existing ancestor, with the missing rest appended (missing parts are no symlinks). */
async function realpathOfPossiblyMissing(path: string): Promise<string> {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing.push(relative(parent, current));
      current = parent;
    }
  }
}

/**
 * Before writing `path`: throws PATH_TRAVERSAL when its folder resolves outside `root` (a symlinked
 * folder on the way), or when `path` itself is a symlink.
 */
export async function assertWritableInside(root: string, path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    throw new RyeError("PATH_TRAVERSAL", `${path} is a symbolic link; not writing through it`, { hint: "Replace the link with a plain file or remove it." });
  }
  const [realRoot, realDir] = await Promise.all([realpathOfPossiblyMissing(root), realpathOfPossiblyMissing(dirname(path))]);
  if (!isInside(realRoot, realDir)) {
    throw new RyeError("PATH_TRAVERSAL", `${path} would be written outside ${root} (its folder resolves to ${realDir})`, {
      hint: "Symlinks inside .ai/ must point inside the same .ai/ directory.",
    });
  }
}

export interface ItemFile {
  space: Space;
  type: ItemType;
  itemId: string;
  path: string;
  extension: string;
}

/** The file of an item in one space (first existing extension in the documented order), or null. */
export async function findItemFile(space: Space, type: ItemType, itemId: string): Promise<ItemFile | null> {
  assertItemId(itemId);
  const base = typeDir(space, type);
  for (const extension of extensionsFor(type)) {
    const path = join(base, `${itemId}${extension}`);
    // A missing candidate is the common case (up to 9 tool extensions in the project and user spaces before the
    // system space), and an awaited stat's ENOENT error costs ~50 µs of CPU to build: ~100 of them per thread start,
    // profiled. A synchronous stat answers "missing" without an error, in microseconds.
    let info;
    try {
      info = statSync(path, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!info?.isFile()) continue;
    await assertInside(space.root, path);
    return { space, type, itemId, path, extension };
  }
  return null;
}

/** Resolves an item across spaces in precedence order; `only` restricts to one space. */
export async function resolveItem(spaces: Space[], type: ItemType, itemId: string, only?: SpaceName): Promise<ItemFile | null> {
  for (const space of spaces) {
    if (only && space.name !== only) continue;
    const found = await findItemFile(space, type, itemId);
    if (found) return found;
  }
  return null;
}

export interface ListedItemFile extends ItemFile {
  size: number;
  mtimeMs: number;
}

const SKIP_DIRS = new Set(["node_modules", "__pycache__", ".venv", ".git", "lockfiles", "dist", "build"]);
export const MAX_LIST_DEPTH = 16;

/**
 * Every item file of a type in a space. Names starting with `_` or `.` are skipped, as are symlinks
 * leading outside the space; when several files share a stem the documented extension order decides.
 */
export async function listItemFiles(space: Space, type: ItemType): Promise<ListedItemFile[]> {
  const base = typeDir(space, type);
  const extensions = extensionsFor(type);
  const byId = new Map<string, ListedItemFile>();
  let realRoot: string;
  try {
    realRoot = await realpath(space.root);
  } catch {
    return [];
  }
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > MAX_LIST_DEPTH) return;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith("_") || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const real = await realpath(path);
          if (!isInside(realRoot, real)) continue;
          const info = await stat(real);
          isDir = info.isDirectory();
          isFile = info.isFile();
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (!SKIP_DIRS.has(entry.name)) await walk(path, depth + 1);
        continue;
      }
      if (!isFile) continue;
      const extension = extensionOf(entry.name);
      const rank = extensions.indexOf(extension);
      if (rank < 0) continue;
      const itemId = toItemPath(relative(base, path)).slice(0, -extension.length);
      const existing = byId.get(itemId);
      if (existing && extensions.indexOf(existing.extension) <= rank) continue;
      let info;
      try {
        info = await lstat(path);
      } catch {
        continue;
      }
      byId.set(itemId, { space, type, itemId, path, extension, size: info.size, mtimeMs: info.mtimeMs });
    }
  }
  await walk(base, 0);
  return [...byId.values()].sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
}

