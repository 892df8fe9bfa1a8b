/**
 * Tells a long-lived process (the MCP server, the opt-in search daemon) that nothing under a type folder changed since its last scan,
 * so a search can skip re-stat-ing every item file. It watches exactly the directories the last scan walked,
 * each with a non-recursive `fs.watch` (an inotify watch on Linux reports changes to the files in its folder,
 * including in-place edits). Node's recursive watch is not used: on Linux it is built from one watcher and one
 * kept `Stats` per file, which made the first search of a 10 000-item project slow and its memory grow.
 *
 * A directory watched for the first time may have changed before its watch existed, so adding any watch
 * means "scan again"; only a scan that ran with every watch already in place can vouch for the next one.
 * Any event, an error or more directories than MAX_WATCHED_DIRS means "scan again". One-shot processes (the
 * CLI without the search daemon) never watch.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";

/** Beyond this many directories in one type folder the watcher gives up and every search scans. */
export const MAX_WATCHED_DIRS = 4096;

export class TreeWatcher {
  private changed = true;
  private broken = false;
  private readonly handles = new Map<string, FSWatcher>();

  /** Nothing changed since the last scan began, and every directory of that scan was already watched. */
  quiet(): boolean {
    return !this.broken && !this.changed;
  }

  /** Call right before scanning: events from now on make the next `quiet()` false. */
  beginScan(): void {
    this.changed = false;
  }

  /** After a scan: watch exactly `dirs`, the directories it walked. */
  track(dirs: readonly string[]): void {
    if (this.broken) return;
    // No directory (the type folder does not exist yet): nothing can vouch, so every search scans.
    if (dirs.length === 0) this.changed = true;
    if (dirs.length > MAX_WATCHED_DIRS) {
      this.close();
      return;
    }
    const wanted = new Set(dirs);
    for (const [dir, handle] of this.handles) {
      if (wanted.has(dir)) continue;
      handle.close();
      this.handles.delete(dir);
    }
    for (const dir of dirs) {
      if (this.handles.has(dir)) continue;
      let handle: FSWatcher;
      try {
        handle = watch(dir, { persistent: false }, () => {
          this.changed = true;
        });
      } catch {
        // Gone since the scan, or not watchable: the next search scans (and tries again).
        this.changed = true;
        continue;
      }
      handle.on("error", () => {
        handle.close();
        this.handles.delete(dir);
        this.changed = true;
      });
      this.handles.set(dir, handle);
      this.changed = true;
    }
  }

  get alive(): boolean {
    return !this.broken;
  }

  close(): void {
    this.broken = true;
    for (const handle of this.handles.values()) handle.close();
    this.handles.clear();
  }
}
