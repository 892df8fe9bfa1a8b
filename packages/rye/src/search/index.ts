/**
 * The in-memory index of one (space, item type), cached per process. Each refresh re-scans the
 * folder and re-reads only files whose (mtime, size) changed, were added, or were read so soon after
 * a change that a second change could hide behind the same mtime; removed files disappear.
 */
import { readFileSync } from "node:fs";
import type { ItemType } from "@rye/core";
import { RyeError } from "@rye/core";
import type { ListedItemFile, Space } from "../spaces/spaces.ts";
import type { IndexedDocument } from "./document.ts";
import { buildDocument, MAX_FILE_BYTES } from "./document.ts";
import { fieldLength, fieldTermCount, fieldTermsStart } from "./field-data.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { ScanCounters } from "./scan.ts";
import { isRacy, TypeDirScanner } from "./scan.ts";

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
}

const counters: IndexCounters = {
  filesRead: 0,
  documentsIndexed: 0,
  documentsRemoved: 0,
  verifyCalls: 0,
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
let nextDocId = 1;

function distinctTerms(doc: IndexedDocument): Set<number> {
  const terms = new Set<number>();
  INDEX_FIELDS.forEach((_, f) => {
    const start = fieldTermsStart(doc.data, f);
    const n = fieldTermCount(doc.data, f);
    for (let i = 0; i < n; i++) terms.add(doc.data[start + i]!);
  });
  return terms;
}

export class SegmentIndex {
  readonly docs = new Map<number, IndexedDocument>();
  readonly byId = new Map<string, IndexedDocument>();
  /**
   * term id → ascending ids of the documents holding it in any field. Removal is lazy: ids of removed
   * documents stay until they make up a third of all entries, then every list is compacted.
   */
  readonly postings = new Map<number, number[]>();
  private liveEntries = 0;
  private staleEntries = 0;
  /** Sum of field lengths over all documents, per INDEX_FIELDS position. */
  readonly fieldLengthTotals = new Float64Array(INDEX_FIELDS.length);
  private readonly byPath = new Map<string, IndexedDocument>();
  /** Paths read within the racy window of their mtime: re-read on the next refresh. */
  private readonly racyPaths = new Set<string>();
  private readonly verified = new Map<string, { mtimeMs: number; size: number; outcome: VerifyOutcome }>();
  private readonly scanner: TypeDirScanner;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly space: Space,
    readonly type: ItemType,
  ) {
    this.scanner = new TypeDirScanner(space, type, counters);
  }

  /** Brings the index up to date with the disk; concurrent calls run one after the other. */
  refresh(): Promise<void> {
    const run = this.queue.then(() => this.update());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async update(): Promise<void> {
    const files = this.scanner.scan();
    const present = new Set<string>();
    const stale: ListedItemFile[] = [];
    for (const file of files) {
      present.add(file.path);
      const doc = this.byPath.get(file.path);
      if (!doc || doc.mtimeMs !== file.mtimeMs || doc.size !== file.size || this.racyPaths.has(file.path)) stale.push(file);
    }
    const fresh: (IndexedDocument | null)[] = [];
    for (let i = 0; i < stale.length; i += READ_BATCH) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      fresh.push(...(await Promise.all(stale.slice(i, i + READ_BATCH).map((file) => this.load(file)))));
    }
    // Applied in one synchronous step, so a concurrent search never sees a half-updated segment.
    for (const [path, doc] of this.byPath) if (!present.has(path)) this.remove(doc);
    stale.forEach((file, i) => {
      const previous = this.byPath.get(file.path);
      if (previous) this.remove(previous);
      const doc = fresh[i];
      if (doc) this.add(doc);
    });
  }

  /** The file's document; null when it vanished since the scan. */
  private async load(file: ListedItemFile): Promise<IndexedDocument | null> {
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
    // Ids only grow, so appending keeps every posting list ascending.
    doc.docId = nextDocId++;
    this.docs.set(doc.docId, doc);
    this.byPath.set(doc.path, doc);
    this.byId.set(doc.id, doc);
    const terms = distinctTerms(doc);
    for (const term of terms) {
      const list = this.postings.get(term);
      if (list) list.push(doc.docId);
      else this.postings.set(term, [doc.docId]);
    }
    this.liveEntries += terms.size;
    INDEX_FIELDS.forEach((_, f) => (this.fieldLengthTotals[f]! += fieldLength(doc.data, f)));
  }

  private remove(doc: IndexedDocument): void {
    counters.documentsRemoved++;
    this.docs.delete(doc.docId);
    this.byPath.delete(doc.path);
    if (this.byId.get(doc.id) === doc) this.byId.delete(doc.id);
    this.racyPaths.delete(doc.path);
    this.verified.delete(doc.path);
    const count = distinctTerms(doc).size;
    this.liveEntries -= count;
    this.staleEntries += count;
    if (this.staleEntries > 1024 && this.staleEntries * 2 > this.liveEntries) this.compact();
    INDEX_FIELDS.forEach((_, f) => (this.fieldLengthTotals[f]! -= fieldLength(doc.data, f)));
  }

  private compact(): void {
    for (const [term, list] of this.postings) {
      const live = list.filter((id) => this.docs.has(id));
      if (live.length === 0) this.postings.delete(term);
      else this.postings.set(term, live);
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
    if (hit && hit.mtimeMs === doc.mtimeMs && hit.size === doc.size) return hit.outcome;
    try {
      counters.filesRead++;
      const content = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await reader(doc.path));
      counters.verifyCalls++;
      const outcome = await verify({ path: doc.path, type: doc.type, space: doc.space, content });
      // The document may have been replaced meanwhile; only cache against the version we verified.
      if (this.byPath.get(doc.path) === doc) this.verified.set(doc.path, { mtimeMs: doc.mtimeMs, size: doc.size, outcome });
      return outcome;
    } catch (err) {
      return { signed: doc.signed, verified: false, code: err instanceof RyeError ? err.code : "VERIFY_FAILED" };
    }
  }
}

/** Least recently used segments are dropped beyond this many (e.g. a server that saw many projects). */
const MAX_CACHED_SEGMENTS = 48;
const segments = new Map<string, SegmentIndex>();

/** The cached index of (space root, type), created empty on first use; call `refresh()` before reading it. */
export function segmentIndex(space: Space, type: ItemType): SegmentIndex {
  const key = `${space.name}\0${space.root}\0${type}`;
  let segment = segments.get(key);
  if (segment) {
    segments.delete(key);
  } else {
    segment = new SegmentIndex(space, type);
    if (segments.size >= MAX_CACHED_SEGMENTS) segments.delete(segments.keys().next().value!);
  }
  segments.set(key, segment);
  return segment;
}

/** Every cached segment forgets its verification outcomes (after a change of the trusted keys). */
export function forgetSearchVerifications(): void {
  for (const segment of segments.values()) segment.forgetVerifications();
}

export function clearSearchIndexCache(): void {
  segments.clear();
}
