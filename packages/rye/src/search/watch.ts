/**
 * Tells a long-lived process (the MCP server) that nothing under a folder changed since its last scan, so
 * a search can skip re-stat-ing every item file. A watcher is trusted only from the first scan that
 * starts SETTLE_MS after it: Linux's recursive fs.watch adds its per-directory watches while it walks
 * the tree, and a change during that walk may go unreported. Any event, an error or a missing folder
 * means "scan again"; one-shot processes (the CLI) never watch.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";

export const SETTLE_MS = 500;

export class TreeWatcher {
  private changed = true;
  private broken = false;
  private scanStartedAt = 0;
  private readonly startedAt = Date.now();
  private handle: FSWatcher | null = null;

  /** A watcher of `dir` and everything under it; null when the platform or the folder cannot be watched. */
  static start(dir: string): TreeWatcher | null {
    const watcher = new TreeWatcher();
    try {
      watcher.handle = watch(dir, { recursive: true, persistent: false }, () => {
        watcher.changed = true;
      });
    } catch {
      return null;
    }
    watcher.handle.on("error", () => watcher.close());
    return watcher;
  }

  /** Nothing changed since the last scan began, and that scan began after the watcher had settled. */
  quiet(): boolean {
    return !this.broken && !this.changed && this.scanStartedAt - this.startedAt >= SETTLE_MS;
  }

  /** Call right before scanning: events from now on make the next `quiet()` false. */
  beginScan(): void {
    this.changed = false;
    this.scanStartedAt = Date.now();
  }

  get alive(): boolean {
    return !this.broken;
  }

  close(): void {
    this.broken = true;
    this.handle?.close();
    this.handle = null;
  }
}
