/**
 * File access confined to a root directory: a root-relative path is resolved through its symlinks and
 * refused when the result leaves the root (then it is never opened), is not a regular file, or is too
 * large (then it is never read).
 */
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { RyeError, validateBundlePath } from "@rye/core";
import { isPathInside } from "../fs/platform.ts";

export type RefusalKind = "bad-path" | "outside-root" | "not-a-file" | "too-large" | "unreadable";

export interface Missing {
  kind: "missing";
}

export interface Refused {
  kind: "refused";
  refusal: RefusalKind;
  reason: string;
}

export type Resolved = { kind: "found"; realPath: string } | Missing | Refused;
export type ConfinedRead = { kind: "file"; bytes: Uint8Array } | Missing | Refused;
export type ConfinedSize = { kind: "file"; size: number } | Missing | Refused;

export function isInside(parent: string, child: string): boolean {
  return isPathInside(parent, child);
}

/** A root directory with its symlinks resolved once; a missing root holds nothing, so nothing can escape it. */
export class ConfinedRoot {
  private constructor(
    readonly root: string,
    readonly realRoot: string,
  ) {}

  static async open(root: string): Promise<ConfinedRoot> {
    const absolute = resolve(root);
    try {
      return new ConfinedRoot(absolute, await realpath(absolute));
    } catch {
      return new ConfinedRoot(absolute, absolute);
    }
  }

  /** The absolute (unresolved) path of a root-relative `/`-separated path. */
  pathOf(relPath: string): string {
    return join(this.root, ...relPath.split("/"));
  }

  /** Resolves a root-relative path through its symlinks without opening it. */
  async resolve(relPath: string): Promise<Resolved> {
    const problem = validateBundlePath(relPath);
    if (problem) return { kind: "refused", refusal: "bad-path", reason: problem };
    let real: string;
    try {
      real = await realpath(this.pathOf(relPath));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
      return { kind: "refused", refusal: "unreadable", reason: `cannot resolve the path (${code ?? String(err)})` };
    }
    if (!isInside(this.realRoot, real)) {
      return { kind: "refused", refusal: "outside-root", reason: "a symlink leads outside the root" };
    }
    return { kind: "found", realPath: real };
  }

  /** Size of a regular file inside the root, or why there is none. */
  async size(relPath: string): Promise<ConfinedSize> {
    const resolved = await this.resolve(relPath);
    if (resolved.kind !== "found") return resolved;
    return this.withRegularFile(resolved.realPath, Number.POSITIVE_INFINITY, async (_handle, size) => ({ kind: "file", size }));
  }

  /** Reads a regular file inside the root that is at most `maxBytes` long. */
  async read(relPath: string, maxBytes: number): Promise<ConfinedRead> {
    const resolved = await this.resolve(relPath);
    if (resolved.kind !== "found") return resolved;
    return this.withRegularFile(resolved.realPath, maxBytes, async (handle) => ({ kind: "file", bytes: new Uint8Array(await handle.readFile()) }));
  }

  /**
   * Opens the resolved path without following a final symlink (it was resolved already, so one there
   * means the tree changed meanwhile) and non-blocking (a FIFO must not hang us), then checks it is a
   * regular file of acceptable size.
   */
  private async withRegularFile<T>(
    realPath: string,
    maxBytes: number,
    use: (handle: FileHandle, size: number) => Promise<T>,
  ): Promise<T | Missing | Refused> {
    let handle;
    try {
      handle = await open(realPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return { kind: "missing" };
      return { kind: "refused", refusal: "unreadable", reason: `cannot open the file (${code ?? String(err)})` };
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return { kind: "refused", refusal: "not-a-file", reason: "not a regular file" };
      if (info.size > maxBytes) return { kind: "refused", refusal: "too-large", reason: `larger than ${maxBytes} bytes` };
      return await use(handle, info.size);
    } finally {
      await handle.close();
    }
  }

  /**
   * Throws PATH_TRAVERSAL unless the directory `absPath` would be created in (its nearest existing
   * ancestor, symlinks resolved) lies inside the root.
   */
  async assertWritable(absPath: string): Promise<void> {
    // Walk up while still (lexically) inside the root; a root that does not exist yet holds no symlinks.
    for (let dir = dirname(resolve(absPath)); isInside(this.root, dir); dir = dirname(dir)) {
      let real: string;
      try {
        real = await realpath(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw err;
      }
      if (isInside(this.realRoot, real)) return;
      throw new RyeError("PATH_TRAVERSAL", `${absPath} would be written outside ${this.root}`, {
        hint: "A symlink inside .ai/bundles/ leads out of the project or user space; remove it.",
      });
    }
  }
}
