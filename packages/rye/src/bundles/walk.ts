/**
 * Walks the regular files below a root-relative folder in name order. Skips the SKIPPED_DIR_NAMES,
 * symlinks leading outside the root or nowhere, symlink loops, special files and folders nested
 * deeper than MAX_WALK_DEPTH; each skip is reported.
 */
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import type { ConfinedRoot } from "./confined.ts";
import { isInside } from "./confined.ts";
import { MAX_WALK_DEPTH, SKIPPED_DIR_NAMES } from "./limits.ts";

export interface WalkVisitor {
  /** `path` is root-relative with `/` separators. */
  file(path: string, size: number): void;
  skip(path: string, reason: string): void;
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function walkFiles(root: ConfinedRoot, relDir: string, visitor: WalkVisitor): Promise<void> {
  const start = await root.resolve(relDir);
  if (start.kind === "refused") visitor.skip(relDir, start.reason);
  if (start.kind !== "found") return;
  if (!(await stat(start.realPath).catch(() => undefined))?.isDirectory()) return;

  /** `ancestors` are the real paths of the folders being walked, to stop symlink loops. */
  async function walk(dir: string, ancestors: string[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(root.pathOf(dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort(byName)) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory() && SKIPPED_DIR_NAMES.has(entry.name)) continue;
      let real: string;
      try {
        real = await realpath(root.pathOf(rel));
      } catch {
        visitor.skip(rel, "broken symlink");
        continue;
      }
      if (!isInside(root.realRoot, real)) {
        visitor.skip(rel, "symlink leads outside the root");
        continue;
      }
      const info = await stat(real).catch(() => undefined);
      if (!info) visitor.skip(rel, "vanished while being read");
      else if (info.isFile()) visitor.file(rel, info.size);
      else if (!info.isDirectory()) visitor.skip(rel, "not a regular file");
      else if (SKIPPED_DIR_NAMES.has(entry.name)) continue;
      else if (ancestors.includes(real)) visitor.skip(rel, "symlink loop");
      else if (ancestors.length > MAX_WALK_DEPTH) visitor.skip(rel, `deeper than ${MAX_WALK_DEPTH} folders`);
      else await walk(rel, [...ancestors, real]);
    }
  }
  await walk(relDir, [start.realPath]);
}
