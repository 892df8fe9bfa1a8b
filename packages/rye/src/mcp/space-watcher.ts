/**
 * Watches the item folders of the project's spaces (`.ai/directives`, `.ai/tools`, `.ai/knowledge` of the project,
 * user and system spaces) and each space's `.ai/` itself (a type folder appearing, `rye.lock` or the trusted keys
 * changing), and reports what changed once per burst of file events (debounced).
 *
 * One non-recursive `fs.watch` per folder (an inotify watch on Linux reports changes to the folder's files), added
 * as folders appear. Explicit limit: at most `maxFolders` folders are watched; beyond it, deeper folders are not
 * watched (`truncated` says so) — their changes are still seen by the next list, just not notified. Folders the
 * listing skips (names starting with `.` or `_`, node_modules, …) and symlinked folders are not watched.
 */
import type { FSWatcher } from "node:fs";
import { watch } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, TYPE_FOLDERS } from "@rye/core";
import type { Space } from "../spaces/spaces.ts";
import { MAX_LIST_DEPTH } from "../spaces/spaces.ts";

/** Folders watched per server; a project with more item folders than this is watched partially. */
export const MAX_WATCHED_FOLDERS = 4096;
/** Events within this window are reported together (an editor's save or `rye sign` writes in bursts). */
export const WATCH_DEBOUNCE_MS = 50;

const SKIP_DIRS = new Set(["node_modules", "__pycache__", ".venv", ".git", "lockfiles", "dist", "build"]);
/** Entries of a space's `.ai/` whose change can change what verifies: the project lock (pins) and the trust store. */
const LOCK_FILE = "rye.lock";
const KEYS_FOLDER = "trusted_keys";

export interface SpaceChange {
  /** Item types with a file or folder added, removed or changed in some space. */
  types: Set<ItemType>;
  /** The trusted keys changed (any signature may verify differently now). */
  keys: boolean;
  /** A project lock changed (pinned registry items may verify differently now). */
  lock: boolean;
}

export interface SpaceWatcherOptions {
  maxFolders?: number;
  debounceMs?: number;
}

const TYPE_BY_FOLDER = new Map<string, ItemType>(ITEM_TYPES.map((t) => [TYPE_FOLDERS[t], t]));

export class SpaceWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private pending: SpaceChange = { types: new Set(), keys: false, lock: false };
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Some folder was not watched because of the limit. */
  truncated = false;
  readonly maxFolders: number;
  private readonly debounceMs: number;

  constructor(
    private readonly spaces: readonly Space[],
    private readonly onChange: (change: SpaceChange) => void,
    options: SpaceWatcherOptions = {},
  ) {
    this.maxFolders = options.maxFolders ?? MAX_WATCHED_FOLDERS;
    this.debounceMs = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  }

  /** Starts watching; resolves once the existing folders are watched. */
  async start(): Promise<void> {
    for (const space of this.spaces) await this.watchSpaceRoot(space);
  }

  get watchedFolders(): number {
    return this.watchers.size;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private report(change: { type?: ItemType; keys?: boolean; lock?: boolean }): void {
    if (this.closed) return;
    if (change.type) this.pending.types.add(change.type);
    if (change.keys) this.pending.keys = true;
    if (change.lock) this.pending.lock = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const batch = this.pending;
      this.pending = { types: new Set(), keys: false, lock: false };
      this.onChange(batch);
    }, this.debounceMs);
    this.timer.unref();
  }

  /** Watches `folder`; false when it does not exist, is already watched or the limit is reached. */
  private add(folder: string, listener: (file: string | null) => void): boolean {
    if (this.closed || this.watchers.has(folder)) return false;
    if (this.watchers.size >= this.maxFolders) {
      this.truncated = true;
      return false;
    }
    try {
      const watcher = watch(folder, { persistent: false }, (_event, file) => listener(file === null ? null : String(file)));
      watcher.on("error", () => {
        watcher.close();
        this.watchers.delete(folder);
      });
      this.watchers.set(folder, watcher);
      return true;
    } catch {
      return false;
    }
  }

  /** A space's `.ai/`; when it does not exist yet, its parent, to start once it appears. */
  private async watchSpaceRoot(space: Space): Promise<void> {
    const watched = this.add(space.root, (file) => {
      if (file === null) {
        void this.rescanSpace(space);
        return;
      }
      if (file === LOCK_FILE) this.report({ lock: true });
      if (file === KEYS_FOLDER) {
        this.report({ keys: true });
        this.watchKeys(space);
      }
      const type = TYPE_BY_FOLDER.get(file);
      if (type) {
        this.report({ type });
        void this.watchTree(join(space.root, file), type, 0, true);
      }
    });
    if (!watched) {
      if (this.watchers.has(space.root)) return;
      const parent = dirname(space.root);
      this.add(parent, (file) => {
        if (file !== null && file !== ".ai") return;
        // Items may have been written before the new folders were watched: report every type.
        void this.watchSpaceRoot(space).then(() => {
          for (const type of ITEM_TYPES) this.report({ type });
          this.report({ keys: true, lock: true });
        });
      });
      return;
    }
    await this.rescanSpace(space);
    this.watchKeys(space);
  }

  private watchKeys(space: Space): void {
    this.add(join(space.root, KEYS_FOLDER), () => this.report({ keys: true }));
  }

  private forget(folder: string): void {
    for (const [path, watcher] of this.watchers) {
      if (path === folder || path.startsWith(`${folder}${sep}`)) {
        watcher.close();
        this.watchers.delete(path);
      }
    }
  }

  private async rescanSpace(space: Space): Promise<void> {
    for (const type of ITEM_TYPES) await this.watchTree(join(space.root, TYPE_FOLDERS[type]), type, 0);
  }

  /** Watches `folder` and the folders below it (those the listing walks). */
  /** `announce`: the folder appeared after start — report its type once watched, for files written before the watch. */
  private async watchTree(folder: string, type: ItemType, depth: number, announce = false): Promise<void> {
    if (depth > MAX_LIST_DEPTH || this.closed) return;
    const info = await lstat(folder).catch(() => undefined);
    if (!info?.isDirectory()) {
      // Gone (or a file): drop the watches of a removed folder, so one created again under that name is watched.
      if (!info) this.forget(folder);
      return;
    }
    const added = this.add(folder, (file) => {
      this.report({ type });
      // A new folder (or one renamed into place) is watched with everything already in it.
      if (file !== null && !file.startsWith(".") && !file.startsWith("_") && !SKIP_DIRS.has(file)) void this.watchTree(join(folder, file), type, depth + 1, true);
    });
    if (!added) return;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name.startsWith("_") || SKIP_DIRS.has(entry.name)) continue;
      await this.watchTree(join(folder, entry.name), type, depth + 1, announce);
    }
    if (announce) this.report({ type });
  }
}
