/**
 * The index of one (space, item type), cached per process and, when a store directory is given, on
 * disk (persist.ts) so the next process starts from it. Each refresh re-scans the folder and re-reads
 * only files whose (mtime, size, ctime, inode) changed, were added, or were read so soon after a change
 * that a second change could hide behind the same mtime; removed files disappear.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, RyeError, sha256HexPortable } from "@rye/core";
import type { Space } from "../spaces/spaces.ts";
import type { IndexedDocument } from "./document.ts";
import { fieldLength, fieldTermCount, fieldTermsStart, termCount } from "./field-data.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { SegmentToStore, StoredFile, StoredSegment, StoredSpace } from "./persist.ts";
import type { PostingList } from "./postings.ts";
import { appendPosting, postingEntry, Postings } from "./postings.ts";
import { encodeSpace, readStoredSpace, StoredIndexUnusable, storedForWriting, writeStoredSpace } from "./persist.ts";
import type { StoredDocs } from "./doc-table.ts";
import { DocTable } from "./doc-table.ts";
import type { ScanCounters, ScannedFile, ScanTable } from "./scan.ts";
import { isRacy, TypeDirScanner } from "./scan.ts";
import { TreeWatcher } from "./watch.ts";

export type FileReader = (path: string) => Promise<Uint8Array>;

export interface VerifyOutcome {
  signed: boolean;
  verified: boolean;
  code: string;
}

export type VerifyFunction = (doc: {
  path: string;
  type: ItemType;
  space: "project" | "user" | "system";
  content: string;
}) => Promise<VerifyOutcome>;

export interface IndexCounters extends ScanCounters {
  /** Item files whose bytes were read (indexing or verification). */
  filesRead: number;
  documentsIndexed: number;
  documentsRemoved: number;
  verifyCalls: number;
  /** Documents taken from a stored index instead of their files. */
  documentsLoaded: number;
  /** Stored documents built as objects (only candidates, hits and listings are). */
  documentsBuilt: number;
  storedIndexesRejected: number;
  storedIndexesWritten: number;
  /** Refreshes a quiet file-system watcher let skip (watch mode). */
  scansSkipped: number;
}

const counters: IndexCounters = {
  filesRead: 0,
  documentsIndexed: 0,
  documentsRemoved: 0,
  verifyCalls: 0,
  documentsLoaded: 0,
  documentsBuilt: 0,
  storedIndexesRejected: 0,
  storedIndexesWritten: 0,
  scansSkipped: 0,
  dirsListed: 0,
  dirsStatted: 0,
  filesStatted: 0,
};

/** A snapshot of the process-wide counters (tests compare two snapshots). */
export function searchIndexCounters(): IndexCounters {
  return { ...counters };
}

// Synchronous reads are several times faster than fs/promises for many small files; builds yield
// to the event loop between batches instead.
const defaultReader: FileReader = async (path) => readFileSync(path);
let reader: FileReader = defaultReader;

/** Replaces how item files are read (tests); null restores the default. */
export function setSearchFileReader(replacement: FileReader | null): void {
  reader = replacement ?? defaultReader;
}

const READ_BATCH = 64;

// Imported when a file has to be (re)indexed: a search whose stored index is current builds no document and so
// never loads the item parsers (YAML, XML) and schemas they use.
let documentModule: Promise<typeof import("./document.ts")> | undefined;
const documents = () => (documentModule ??= import("./document.ts"));

export type { PostingList } from "./postings.ts";

/** Postings of documents that will take ids 1…n in this order (how a stored segment is written). */
function postingsOf(docs: IndexedDocument[]): Map<number, PostingList> {
  const postings = new Map<number, PostingList>();
  docs.forEach((doc, i) => {
    for (const [term, mask] of termFields(doc)) postings.set(term, appendPosting(postings.get(term), i + 1, mask));
  });
  return postings;
}

/** Each distinct term of a document with its posting entry: the fields holding it and its count in each (postings.ts). */
function termFields(doc: IndexedDocument): Map<number, number> {
  const found = new Map<number, { fields: number; counts: number[] }>();
  // Fields in ascending order, so each term's counts come lowest field first (what postingEntry expects).
  INDEX_FIELDS.forEach((_, f) => {
    const start = fieldTermsStart(doc.data, f);
    const n = fieldTermCount(doc.data, f);
    for (let i = 0; i < n; i++) {
      const term = doc.data[start + i]!;
      const seen = found.get(term);
      if (seen) {
        seen.fields |= 1 << f;
        seen.counts.push(termCount(doc.data, f, i));
      } else found.set(term, { fields: 1 << f, counts: [termCount(doc.data, f, i)] });
    }
  });
  const entries = new Map<number, number>();
  for (const [term, { fields, counts }] of found) entries.set(term, postingEntry(fields, counts));
  return entries;
}

export class SegmentIndex {
  readonly docs = new DocTable(() => counters.documentsBuilt++);
  /**
   * term id → ascending ids of the documents holding it in any field. Removal is lazy: ids of removed
   * documents stay until they make up a third of all entries, then every list is compacted. Document
   * ids are local to the segment and only grow.
   */
  postings = Postings.empty();
  private nextDocId = 1;
  private liveEntries = 0;
  private staleEntries = 0;
  /** Sum of field lengths over all documents, per INDEX_FIELDS position. */
  fieldLengthTotals = new Float64Array(INDEX_FIELDS.length);
  /** path → document id and item id → document id of the live documents, built when first needed. */
  private pathIndex: Map<string, number> | null = null;
  private idIndex: Map<string, number> | null = null;
  /** The file order of the last full comparison, so the store keeps documents in the order a scan lists them. */
  private scanOrder: string[] | null = null;
  /** Paths read within the racy window of their mtime: re-read on the next refresh. */
  private readonly racyPaths = new Set<string>();
  private readonly verified = new Map<string, { doc: IndexedDocument; outcome: VerifyOutcome }>();
  private readonly scanner: TypeDirScanner;
  private queue: Promise<void> = Promise.resolve();
  /** The stored index was looked at (once per process and segment). */
  private storeRead = false;
  private watcher: TreeWatcher | null = null;
  /** The documents differ from what the store holds. */
  private dirty = false;

  /** `store`: where the segment is kept between processes; null keeps it in memory only. */
  constructor(
    readonly space: Space,
    readonly type: ItemType,
    private readonly store: SpaceStore | null = null,
  ) {
    this.scanner = new TypeDirScanner(space, type, counters);
    store?.attach(this);
  }

  /** The stored index file the segment is kept in, if any. */
  get storeFile(): string | undefined {
    return this.store?.file;
  }

  /** Whether the segment has been brought up to date at least once (its documents are meaningful). */
  get loaded(): boolean {
    return this.storeRead;
  }

  /** What the store should hold for this segment. */
  snapshot(): SegmentToStore {
    const docs = this.docsInScanOrder();
    return { docs, racy: [...this.racyPaths], dirs: this.scanner.storedListings(), postings: postingsOf(docs), fieldLengthTotals: this.fieldLengthTotals };
  }

  /** The live documents, in the order of the last scan when it is known (what lets the next process compare in order). */
  private docsInScanOrder(): IndexedDocument[] {
    if (!this.scanOrder || !this.pathIndex) return [...this.docs.values()];
    const index = this.pathIndex;
    const docs: IndexedDocument[] = [];
    const taken = new Set<number>();
    for (const path of this.scanOrder) {
      const id = index.get(path);
      if (id === undefined || taken.has(id)) continue;
      taken.add(id);
      docs.push(this.docs.get(id)!);
    }
    for (const id of this.docs.keys()) if (!taken.has(id)) docs.push(this.docs.get(id)!);
    return docs;
  }

  /** Whether a live document has item id `id`. */
  hasItem(id: string): boolean {
    this.idIndex ??= this.indexBy((docId) => this.docs.itemIdOf(docId)!);
    return this.idIndex.has(id);
  }

  private paths(): Map<string, number> {
    return (this.pathIndex ??= this.indexBy((docId) => this.docs.pathOf(docId)!));
  }

  /** key → document id of every live document (kept up to date by add and remove once built). */
  private indexBy(keyOf: (docId: number) => string): Map<string, number> {
    const index = new Map<string, number>();
    for (const docId of this.docs.keys()) index.set(keyOf(docId), docId);
    return index;
  }

  /**
   * Brings the index up to date with the disk; concurrent calls run one after the other. With `watch`
   * (a long-lived process), a file-system watcher lets a refresh skip the scan when nothing changed.
   */
  refresh(watch = false): Promise<void> {
    const run = this.queue.then(() => this.update(watch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops watching (the segment left the cache). */
  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private async update(watch: boolean): Promise<void> {
    if (!this.storeRead) this.loadStored(watch);
    if (watch) {
      if (!this.watcher?.alive) this.watcher = new TreeWatcher();
      // One turn of the event loop first: a change made before this search was asked for has its event
      // queued by then (the kernel queues it at the write), and it must be seen.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.watcher?.quiet() && !this.scanner.unwatchable && this.racyPaths.size === 0) {
        counters.scansSkipped++;
        return;
      }
      this.watcher?.beginScan();
    }
    const scanned = this.scanner.scanTable();
    if (this.scanner.takeRelisted()) this.dirty = true;
    if (watch) this.watcher?.track(this.scanner.directories());
    // The common case after a start from the stored index: the scan lists exactly the stored files, in the
    // stored order, all unchanged. Then no document is built, no path is hashed and no file object is made.
    const stored = this.docs.pristineStored;
    if (stored && this.racyPaths.size === 0 && scanned.length === stored.count && stored.describesAll(scanned.paths, scanned.identities)) {
      this.saveIfDirty();
      return;
    }
    const files = scanned.files();
    const byPath = this.paths();
    this.scanOrder = files.map((file) => file.path);
    const stale: ScannedFile[] = [];
    let known = 0;
    for (const file of files) {
      const docId = byPath.get(file.path);
      if (docId !== undefined) known++;
      if (docId === undefined || !sameFile(this.docs.get(docId)!, file) || (this.racyPaths.size > 0 && this.racyPaths.has(file.path))) stale.push(file);
    }
    // Every indexed path was listed again (the common case): nothing was removed, no set of paths needed.
    const present = known === byPath.size ? null : new Set(this.scanOrder);
    const fresh: (IndexedDocument | null)[] = [];
    for (let i = 0; i < stale.length; i += READ_BATCH) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      fresh.push(...(await Promise.all(stale.slice(i, i + READ_BATCH).map((file) => this.load(file)))));
    }
    // Applied in one synchronous step, so a concurrent search never sees a half-updated segment.
    if (present) for (const [path, docId] of [...byPath]) if (!present.has(path)) this.remove(this.docs.get(docId)!);
    stale.forEach((file, i) => {
      const previous = byPath.get(file.path);
      if (previous !== undefined) this.remove(this.docs.get(previous)!);
      const doc = fresh[i];
      if (doc) this.add(doc);
    });
    this.saveIfDirty();
  }

  private saveIfDirty(): void {
    if (this.dirty && this.store) {
      this.dirty = false;
      this.store.save();
    }
  }

  /** Starts from the stored index when there is a usable one (`longLived`: a process that will search every type). */
  private loadStored(longLived: boolean): void {
    this.storeRead = true;
    const stored = this.store?.take(this.type, longLived);
    if (!stored || this.docs.size > 0) {
      this.dirty = true;
      return;
    }
    // Stored documents take ids 1…n in their stored order, which is what the stored postings hold.
    this.docs.adopt(stored.docs);
    this.fieldLengthTotals = Float64Array.from(stored.fieldLengthTotals);
    this.nextDocId = stored.docs.count + 1;
    this.postings = stored.postings;
    this.liveEntries = stored.postings.storedEntries;
    if (stored.racy.length > 0) for (const path of stored.racy) if (this.paths().has(path)) this.racyPaths.add(path);
    this.scanner.seedListings(stored.dirs);
    counters.documentsLoaded += stored.docs.count;
    this.dirty = false;
  }

  /** The file's document; null when it vanished since the scan. */
  private async load(file: ScannedFile): Promise<IndexedDocument | null> {
    const { buildDocument, MAX_FILE_BYTES } = await documents();
    if (file.size > MAX_FILE_BYTES) {
      this.racyPaths.delete(file.path);
      return buildDocument(file, null, `the file is larger than ${MAX_FILE_BYTES} bytes and was not read`);
    }
    const readAt = Date.now();
    let bytes: Uint8Array;
    try {
      counters.filesRead++;
      bytes = await reader(file.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      return buildDocument(file, null, `the file could not be read (${code ?? String(err)})`);
    }
    if (isRacy(file.mtimeMs, readAt)) this.racyPaths.add(file.path);
    else this.racyPaths.delete(file.path);
    return buildDocument(file, bytes);
  }

  private add(doc: IndexedDocument): void {
    counters.documentsIndexed++;
    this.dirty = true;
    // Ids only grow, so appending keeps every posting list ascending.
    doc.docId = this.nextDocId++;
    this.docs.add(doc);
    this.pathIndex?.set(doc.path, doc.docId);
    this.idIndex?.set(doc.id, doc.docId);
    const terms = termFields(doc);
    for (const [term, mask] of terms) {
      const list = this.postings.get(term);
      const grown = appendPosting(list, doc.docId, mask);
      if (grown !== list) this.postings.set(term, grown);
    }
    this.liveEntries += terms.size;
    INDEX_FIELDS.forEach((_, f) => (this.fieldLengthTotals[f]! += fieldLength(doc.data, f)));
  }

  private remove(doc: IndexedDocument): void {
    counters.documentsRemoved++;
    this.dirty = true;
    this.docs.delete(doc.docId);
    if (this.pathIndex?.get(doc.path) === doc.docId) this.pathIndex.delete(doc.path);
    if (this.idIndex?.get(doc.id) === doc.docId) this.idIndex.delete(doc.id);
    this.racyPaths.delete(doc.path);
    this.verified.delete(doc.path);
    const count = termFields(doc).size;
    this.liveEntries -= count;
    this.staleEntries += count;
    if (this.staleEntries > 1024 && this.staleEntries * 2 > this.liveEntries) this.compact();
    INDEX_FIELDS.forEach((_, f) => (this.fieldLengthTotals[f]! -= fieldLength(doc.data, f)));
  }

  private compact(): void {
    for (const [term, list] of [...this.postings]) {
      const ids: number[] = [];
      const masks: number[] = [];
      list.ids.forEach((id, i) => {
        if (!this.docs.has(id)) return;
        ids.push(id);
        masks.push(list.masks[i]!);
      });
      if (ids.length === 0) this.postings.delete(term);
      else this.postings.set(term, { ids, masks });
    }
    this.staleEntries = 0;
  }

  /** Drops the cached verification outcomes (the trusted keys changed: the same bytes may verify differently now). */
  forgetVerifications(): void {
    this.verified.clear();
  }

  /**
   * Runs `verify` on a document, cached by (path, mtimeMs, size). A verifier that throws gives
   * `verified: false` with the error's code, and is asked again next time.
   */
  async verify(doc: IndexedDocument, verify: VerifyFunction): Promise<VerifyOutcome> {
    const hit = this.verified.get(doc.path);
    if (hit && sameFile(hit.doc, doc)) return hit.outcome;
    try {
      counters.filesRead++;
      const content = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await reader(doc.path));
      counters.verifyCalls++;
      const outcome = await verify({ path: doc.path, type: doc.type, space: doc.space, content });
      // The document may have been replaced meanwhile; only cache against the version we verified.
      if (this.docs.get(doc.docId) === doc) this.verified.set(doc.path, { doc, outcome });
      return outcome;
    } catch (err) {
      return { signed: doc.display.signed, verified: false, code: err instanceof RyeError ? err.code : "VERIFY_FAILED" };
    }
  }
}

/** Whether a document still describes the file: same path and the same (mtime, size, ctime, inode). */
function sameFile(a: { mtimeMs: number; size: number; ctimeMs: number; ino: number }, b: { mtimeMs: number; size: number; ctimeMs: number; ino: number }): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * Where a space's index is stored under `storeDir`: one file per space, named by a hash of its name and root
 * (pure-JS SHA-256: a search of unsigned items then never loads node:crypto).
 */
export function storedSpaceFile(storeDir: string, space: Space): string {
  return join(storeDir, `${sha256HexPortable(`${space.name}\0${space.root}`).slice(0, 32)}.idx`);
}

/**
 * The stored index of one space, shared by its three segments: read once per process, written whole
 * whenever one of its segments changed (with the stored state of segments this process has not used).
 */
class SpaceStore {
  private stored: StoredFile | null | undefined;
  /** Types whose stored segment a live segment took over (the store then saves the live one). */
  private readonly taken = new Set<ItemType>();
  private readonly members = new Map<ItemType, SegmentIndex>();

  /** `distrusted`: the file is not read (a StoredIndexUnusable came from it): the space is indexed from its files and the file rewritten. */
  constructor(
    readonly file: string,
    readonly space: Space,
    distrusted = false,
  ) {
    if (distrusted) this.stored = null;
  }

  attach(segment: SegmentIndex): void {
    this.members.set(segment.type, segment);
  }

  /**
   * The stored segment of `type`, once; null when there is none or it is unusable (then counted). The first call
   * reads the file's common head, and every segment's block too when `allBlocks` (a long-lived process); otherwise
   * each segment's block is read when it is taken.
   */
  take(type: ItemType, allBlocks = false): StoredSegment | null {
    if (this.stored === undefined) {
      const read = readStoredSpace(this.file, { space: this.space.name, root: this.space.root }, { allBlocks });
      if (read === "invalid") counters.storedIndexesRejected++;
      this.stored = read === "invalid" ? null : read;
    }
    if (!this.stored || this.taken.has(type)) return null;
    this.taken.add(type);
    if (!this.stored.types.includes(type)) return null;
    const segment = this.stored.segment(type);
    if (!segment) counters.storedIndexesRejected++;
    return segment;
  }

  /**
   * The stored segment of a type this process did not load, as it is to be written again; null when there is
   * none, or when it cannot be read now (the file was replaced or damaged since): it is then left out, and the
   * next process indexes that type from its files.
   */
  private untouched(type: ItemType): SegmentToStore | null {
    if (this.taken.has(type) || !this.stored?.types.includes(type)) return null;
    try {
      const segment = this.stored.segment(type);
      return segment ? storedForWriting(segment) : null;
    } catch (err) {
      if (err instanceof StoredIndexUnusable) return null;
      throw err;
    }
  }

  save(): void {
    const segments: StoredSpace = {};
    for (const type of ITEM_TYPES) {
      const member = this.members.get(type);
      const segment = member?.loaded ? member.snapshot() : this.untouched(type);
      if (segment) segments[type] = segment;
    }
    const bytes = encodeSpace({ space: this.space.name, root: this.space.root }, segments);
    // A space that cannot be stored leaves no older file behind.
    if (!bytes) {
      try {
        rmSync(this.file, { force: true });
      } catch {
        // Only a cache: a file that cannot be removed is checked against the disk like any other.
      }
    } else if (writeStoredSpace(this.file, bytes)) counters.storedIndexesWritten++;
  }
}

const stores = new Map<string, SpaceStore>();
/** Stored index files found unusable after their head was used: the next store of each ignores it once. */
const distrusted = new Set<string>();

function spaceStore(storeDir: string, space: Space): SpaceStore {
  const file = storedSpaceFile(storeDir, space);
  let store = stores.get(file);
  if (store) stores.delete(file);
  else {
    store = new SpaceStore(file, space, distrusted.delete(file));
    if (stores.size >= MAX_CACHED_SEGMENTS) stores.delete(stores.keys().next().value!);
  }
  stores.set(file, store);
  return store;
}

/** Least recently used segments are dropped beyond this many (e.g. a server that saw many projects). */
const MAX_CACHED_SEGMENTS = 48;
const segments = new Map<string, SegmentIndex>();

/**
 * The cached index of (space root, type), created empty on first use; call `refresh()` before reading
 * it. With `storeDir`, the index is also kept on disk there between processes.
 */
export function segmentIndex(space: Space, type: ItemType, storeDir: string | null = null): SegmentIndex {
  const key = `${space.name}\0${space.root}\0${type}\0${storeDir ?? ""}`;
  let segment = segments.get(key);
  if (segment) {
    segments.delete(key);
  } else {
    segment = new SegmentIndex(space, type, storeDir === null ? null : spaceStore(storeDir, space));
    if (segments.size >= MAX_CACHED_SEGMENTS) {
      const oldest = segments.keys().next().value!;
      segments.get(oldest)?.close();
      segments.delete(oldest);
    }
  }
  segments.set(key, segment);
  return segment;
}

/**
 * Drops every cached segment built from the stored index `file` (a block or its field data turned out damaged
 * or replaced: StoredIndexUnusable); the next search indexes that space from its files and rewrites the file.
 */
export function distrustStoredIndex(file: string): void {
  counters.storedIndexesRejected++;
  for (const [key, segment] of [...segments]) {
    if (segment.storeFile !== file) continue;
    segment.close();
    segments.delete(key);
  }
  stores.delete(file);
  distrusted.add(file);
}

/** Every cached segment forgets its verification outcomes (after a change of the trusted keys). */
export function forgetSearchVerifications(): void {
  for (const segment of segments.values()) segment.forgetVerifications();
}

export function clearSearchIndexCache(): void {
  for (const segment of segments.values()) segment.close();
  segments.clear();
  stores.clear();
}
