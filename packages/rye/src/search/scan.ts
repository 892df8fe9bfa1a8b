/**
 * Lists the item files of one (space, type) like `listItemFiles` — same skip rules, symlink
 * containment, depth limit and extension precedence — but remembers each directory's listing keyed by
 * the directory's mtime, so a warm scan re-reads only directories whose entries changed. Every listed
 * file is still stat-ed on every scan, because editing a file in place changes the file's mtime and
 * not its directory's (a few µs per file with the synchronous call).
 *
 * Deliberate differences from `listItemFiles`: a symlinked directory that leads back to one of its own
 * ancestors is not followed (no exponential walks through link cycles), and size/mtime are those of the
 * file a symlink points to (what a content change alters).
 */
import type { Dirent, Stats } from "node:fs";
import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, sep } from "node:path";
import type { ItemType } from "@rye/core";
import { extensionOf, extensionsFor } from "@rye/core";
import { isPathInside } from "../fs/platform.ts";
import type { ListedItemFile, Space } from "../spaces/spaces.ts";
import { MAX_LIST_DEPTH, typeDir } from "../spaces/spaces.ts";

/** The directory names `listItemFiles` never enters (kept in step with spaces.ts by a parity test). */
const SKIP_DIRS = new Set(["node_modules", "__pycache__", ".venv", ".git", "lockfiles", "dist", "build"]);

/** A listed item file with what tells a replaced file from the one that was indexed. */
export interface ScannedFile extends ListedItemFile {
  /** Status change time: moves on every write, rename or utimes, and cannot be set back by a user. */
  ctimeMs: number;
  ino: number;
}

export interface ScanCounters {
  dirsListed: number;
  dirsStatted: number;
  filesStatted: number;
}

interface FileCandidate {
  name: string;
  itemId: string;
  rank: number;
}

interface DirListing {
  /** The directory relative to the type folder, as an item id prefix ("" or "a/b/"). */
  prefix: string;
  mtimeMs: number;
  ino: number;
  /** Listed so soon after its last change that a further change could carry the same mtime. */
  racy: boolean;
  subdirs: string[];
  /** Names of the item files, one per item id (the best extension already chosen). */
  files: string[];
  /** Symlink names: re-resolved on every scan, since their targets can change without touching this directory. */
  links: string[];
}

/**
 * A directory listing as the stored index keeps it (persist.ts): the directory relative to the type
 * folder (as a prefix of item ids: "" or "a/b/"), its mtime and inode when listed, whether that was racy,
 * and the names of its subdirectories, item files and symlinks.
 */
export type StoredListing = [prefix: string, mtimeMs: number, ino: number, racy: boolean, subdirs: string[], files: string[], links: string[]];

// indexOf rather than a regular expression: this runs for every stored file name at start-up, and is ~2× faster cold.
const isName = (v: unknown): v is string =>
  typeof v === "string" && v !== "" && v !== "." && v !== ".." && v.indexOf("/") < 0 && v.indexOf("\\") < 0 && v.indexOf("\0") < 0;
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every(isName);

/** Whether `v` is a well-formed StoredListing (a stored index is never trusted blindly). */
export function isStoredListing(v: unknown): v is StoredListing {
  if (!Array.isArray(v) || v.length !== 7) return false;
  const [prefix, mtimeMs, ino, racy, subdirs, files, links] = v as unknown[];
  return (
    typeof prefix === "string" && (prefix === "" || (prefix.endsWith("/") && prefix.slice(0, -1).split("/").every(isName))) &&
    typeof mtimeMs === "number" && Number.isFinite(mtimeMs) && Number.isSafeInteger(ino) && typeof racy === "boolean" &&
    isNames(subdirs) && isNames(files) && isNames(links)
  );
}

/**
 * Whether a change at `mtimeMs` may be followed by another one with the same timestamp, given that we
 * looked at `observedAt`. Whole-second mtimes suggest a coarse file system (FAT, HFS+, some network
 * mounts); fine ones still move in kernel clock ticks of a few milliseconds.
 */
export function isRacy(mtimeMs: number, observedAt: number): boolean {
  const window = mtimeMs % 1000 === 0 ? 2000 : 50;
  return observedAt - mtimeMs < window;
}

const isInside = (parent: string, child: string): boolean => isPathInside(parent, child);

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

export class TypeDirScanner {
  private readonly listings = new Map<string, DirListing>();
  private readonly extensions: readonly string[];
  /** The last scan met a symlink or a directory listed too soon after a change: a watcher cannot vouch for it. */
  unwatchable = true;
  /** A directory was (re-)listed since the last `takeRelisted()`: the stored listings are out of date. */
  private relisted = false;

  constructor(
    readonly space: Space,
    readonly type: ItemType,
    private readonly counters: ScanCounters,
  ) {
    this.extensions = extensionsFor(type);
  }

  /** Whether a directory was listed since the last call (and resets it). */
  takeRelisted(): boolean {
    const relisted = this.relisted;
    this.relisted = false;
    return relisted;
  }

  /** The directories the last scan walked. */
  directories(): string[] {
    return [...this.listings.keys()];
  }

  /** The current listings, for the stored index. */
  storedListings(): StoredListing[] {
    return [...this.listings.values()].map((l) => [l.prefix, l.mtimeMs, l.ino, l.racy, l.subdirs, l.files, l.links]);
  }

  /**
   * Starts from listings a previous process stored: the next scan re-lists only directories whose
   * (mtime, inode) changed since, or that were racy. Ignored once the scanner has listings of its own.
   */
  seedListings(stored: readonly StoredListing[]): void {
    if (this.listings.size > 0) return;
    const base = typeDir(this.space, this.type);
    for (let l = 0; l < stored.length; l++) {
      const [prefix, mtimeMs, ino, racy, subdirs, names, links] = stored[l]!;
      const dir = prefix === "" ? base : base + sep + (sep === "/" ? prefix.slice(0, -1) : prefix.slice(0, -1).replaceAll("/", sep));
      const files = this.allItemFileNames(names) ? names : names.filter((name) => this.isItemFileName(name));
      this.listings.set(dir, { prefix, mtimeMs, ino, racy, subdirs, files, links });
    }
  }

  /** The item files, in no particular order. */
  scan(): ScannedFile[] {
    return this.scanTable().files();
  }

  /**
   * The item files, in no particular order, as a table: a fresh start compares them with the stored
   * documents without making an object per file (ScanTable.file makes one when it is needed).
   */
  scanTable(): ScanTable {
    const base = typeDir(this.space, this.type);
    let realRoot: string;
    let realBase: string;
    try {
      realRoot = realpathSync.native(this.space.root);
      realBase = realpathSync.native(base);
    } catch {
      this.listings.clear();
      return new ScanTable(this.space, this.type, [], [], [], new Float64Array(0));
    }
    const visited = new Set<string>();
    // The candidates: path, name and item id prefix of each.
    const paths: string[] = [];
    const names: string[] = [];
    const prefixes: string[] = [];
    let unwatchable = false;
    const add = (dir: string, prefix: string, name: string): void => {
      // `dir` is already normalised and `name` is one path segment: no join (a measurable cost per file).
      paths.push(dir + sep + name);
      names.push(name);
      prefixes.push(prefix);
    };

    const walk = (dir: string, realDir: string, prefix: string, depth: number): void => {
      if (depth > MAX_LIST_DEPTH) return;
      const listing = this.listing(dir, prefix);
      if (!listing) return;
      visited.add(dir);
      if (listing.racy || listing.links.length > 0) unwatchable = true;
      // Indexed loops and concatenation rather than for…of and join: this runs cold, once per stored name.
      const { subdirs, files } = listing;
      for (let i = 0; i < subdirs.length; i++) walk(dir + sep + subdirs[i]!, realDir + sep + subdirs[i]!, `${prefix}${subdirs[i]!}/`, depth + 1);
      if (listing.links.length === 0) {
        for (let i = 0; i < files.length; i++) add(dir, prefix, files[i]!);
        return;
      }
      // Rare: symlinked files compete with regular files of the same stem for the item id.
      const best = new Map<string, FileCandidate>();
      for (const name of listing.files) {
        const candidate = this.fileCandidate(prefix, name);
        if (candidate) best.set(candidate.itemId, candidate);
      }
      for (const name of listing.links) {
        const path = join(dir, name);
        let real: string;
        try {
          real = realpathSync.native(path);
        } catch {
          continue;
        }
        if (!isInside(realRoot, real)) continue;
        const info = statOrNull(real);
        if (info?.isDirectory()) {
          if (!SKIP_DIRS.has(name) && !isInside(real, realDir)) walk(path, real, `${prefix}${name}/`, depth + 1);
        } else if (info?.isFile()) {
          const candidate = this.fileCandidate(prefix, name);
          const existing = candidate && best.get(candidate.itemId);
          if (candidate && (!existing || candidate.rank < existing.rank)) best.set(candidate.itemId, candidate);
        }
      }
      for (const { name } of best.values()) add(dir, prefix, name);
    };
    walk(base, realBase, "", 0);
    for (const dir of this.listings.keys()) if (!visited.has(dir)) this.listings.delete(dir);
    this.unwatchable = unwatchable;

    // Stat every candidate; the table keeps the regular files (through symlinks), in listing order.
    this.counters.filesStatted += paths.length;
    const identities = new Float64Array(4 * paths.length);
    let kept = 0;
    for (let i = 0; i < paths.length; i++) {
      const info = statOrNull(paths[i]!);
      if (!info?.isFile()) continue;
      if (kept !== i) {
        paths[kept] = paths[i]!;
        names[kept] = names[i]!;
        prefixes[kept] = prefixes[i]!;
      }
      identities[4 * kept] = info.mtimeMs;
      identities[4 * kept + 1] = info.size;
      identities[4 * kept + 2] = info.ctimeMs;
      identities[4 * kept + 3] = info.ino;
      kept++;
    }
    paths.length = names.length = prefixes.length = kept;
    return new ScanTable(this.space, this.type, paths, names, prefixes, identities);
  }

  /** Whether `name` has one of the type's extensions (the case-insensitive test only for unusual names). */
  private isItemFileName(name: string): boolean {
    const { extensions } = this;
    for (let e = 0; e < extensions.length; e++) if (name.length > extensions[e]!.length && name.endsWith(extensions[e]!)) return true;
    return extensions.includes(extensionOf(name));
  }

  private allItemFileNames(names: readonly string[]): boolean {
    for (let i = 0; i < names.length; i++) if (!this.isItemFileName(names[i]!)) return false;
    return true;
  }

  private fileCandidate(prefix: string, name: string): FileCandidate | null {
    const extension = extensionOf(name);
    const rank = this.extensions.indexOf(extension);
    if (rank < 0) return null;
    return { name, itemId: prefix + name.slice(0, -extension.length), rank };
  }

  /** The directory's entries: from the cache when its mtime is unchanged, else read again. */
  private listing(dir: string, prefix: string): DirListing | null {
    this.counters.dirsStatted++;
    const info = statOrNull(dir);
    if (!info?.isDirectory()) {
      this.listings.delete(dir);
      return null;
    }
    const cached = this.listings.get(dir);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.ino === info.ino && cached.prefix === prefix && !cached.racy) return cached;
    const observedAt = Date.now();
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      this.listings.delete(dir);
      return null;
    }
    this.counters.dirsListed++;
    this.relisted = true;
    const listing: DirListing = { prefix, mtimeMs: info.mtimeMs, ino: info.ino, racy: isRacy(info.mtimeMs, observedAt), subdirs: [], files: [], links: [] };
    const best = new Map<string, FileCandidate>();
    for (const entry of entries) {
      if (entry.name.startsWith("_") || entry.name.startsWith(".")) continue;
      if (entry.isSymbolicLink()) listing.links.push(entry.name);
      else if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) listing.subdirs.push(entry.name);
      } else if (entry.isFile()) {
        const candidate = this.fileCandidate(prefix, entry.name);
        const existing = candidate && best.get(candidate.itemId);
        if (candidate && (!existing || candidate.rank < existing.rank)) best.set(candidate.itemId, candidate);
      }
    }
    listing.files = Array.from(best.values(), (c) => c.name);
    this.listings.set(dir, listing);
    return listing;
  }
}

/**
 * The files of one scan: for file i, its absolute path, name and item id prefix, and at identities[4i…4i+3]
 * its mtimeMs, size, ctimeMs and inode (the order of the stored index's numbers).
 */
export class ScanTable {
  constructor(
    readonly space: Space,
    readonly type: ItemType,
    readonly paths: readonly string[],
    private readonly names: readonly string[],
    private readonly prefixes: readonly string[],
    readonly identities: Float64Array,
  ) {}

  get length(): number {
    return this.paths.length;
  }

  /** Every file as an object. */
  files(): ScannedFile[] {
    return this.paths.map((_, i) => this.file(i));
  }

  /** File i as an object. */
  file(i: number): ScannedFile {
    const name = this.names[i]!;
    const extension = extensionOf(name);
    const at = 4 * i;
    const { identities } = this;
    return {
      space: this.space,
      type: this.type,
      itemId: this.prefixes[i]! + name.slice(0, -extension.length),
      path: this.paths[i]!,
      extension,
      size: identities[at + 1]!,
      mtimeMs: identities[at]!,
      ctimeMs: identities[at + 2]!,
      ino: identities[at + 3]!,
    };
  }
}
