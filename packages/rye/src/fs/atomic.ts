import { chmod, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import type { Platform } from "./platform.ts";
import { CURRENT_PLATFORM, isWindows } from "./platform.ts";

/**
 * A random suffix for a temp file's name. node:crypto is loaded on the first write, not when this module is: a
 * command that only reads (a cold `rye search`) does not pay for loading it.
 */
export function tempSuffix(): string {
  const { randomBytes } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return randomBytes(6).toString("hex");
}

/** Errors Windows gives a rename over a file another process has open (an editor, a virus scanner, an indexer). */
const WINDOWS_BUSY = new Set(["EPERM", "EACCES", "EBUSY"]);

/**
 * rename(2) replaces the target atomically on POSIX. On Windows (MoveFileEx with REPLACE_EXISTING) it fails
 * while another process holds the target open; such failures are retried with backoff for up to ~2 s.
 */
export async function renameReplacing(
  from: string,
  to: string,
  platform: Platform = CURRENT_PLATFORM,
  renameFn: (from: string, to: string) => Promise<void> = rename,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  for (let attempt = 0, waited = 0; ; attempt++) {
    try {
      return await renameFn(from, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (!isWindows(platform) || !WINDOWS_BUSY.has(code) || waited >= 2000) throw err;
      const delay = Math.min(20 * 2 ** attempt, 500);
      await sleep(delay);
      waited += delay;
    }
  }
}

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its mode unless this is set. */
  mode?: number;
  /** Mode for created parent directories. */
  dirMode?: number;
}

/**
 * Writes a file atomically: a temp file in the same directory, fsync, then rename over the target,
 * so readers see the old or the new content, never a torn write.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, ...(options.dirMode !== undefined ? { mode: options.dirMode } : {}) });
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = (await stat(path)).mode & 0o777;
    } catch {
      mode = 0o644;
    }
  }
  const temp = join(dir, `.${basename(path)}.${tempSuffix()}.tmp`);
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await chmod(temp, mode); // POSIX modes; on Windows only the read-only bit follows it
    await renameReplacing(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
