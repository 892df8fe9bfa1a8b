/**
 * The on-disk form of a space's search index (its three segments, one per item type), so a new process
 * starts from the last process's index instead of reading every item file again.
 *
 *   bytes 0–7     magic "RYESIX10"
 *   8–11          header length in bytes (a multiple of 8)
 *   12–15         term strings length in bytes (before their padding to a multiple of 8)
 *   16–19         CRC-32 of bytes 40 to the end of the terms' padding (the common head)
 *   20–23         segment blocks' length in bytes (a multiple of 8)
 *   24–27         field data length in int32 words
 *   28–39         zero
 *   header        JSON (StoredHeader): per segment its document count, racy paths, field length totals, and where
 *                 its block is (offset after the terms, length and CRC-32) and how long its sections are
 *   terms         the term table: UTF-8, NUL-separated, sorted; padded with NULs to a multiple of 8
 *   blocks        one per segment (item type), each a multiple of 8 bytes long:
 *                   strings   each document's path (relative to the space root when under it), item id and
 *                             category, UTF-8, NUL-separated, padded with NULs to a multiple of 8: one split
 *                             instead of a JSON parse (~4 ms instead of ~19 for 10 000 documents, cold)
 *                   numbers   float64 × 8 per document (NUMBERS_PER_DOC), so loading parses no JSON numbers
 *                   displays  each document's DocumentDisplay as JSON, back to back (parsed only for the hits
 *                             shown), padded with spaces to a multiple of 4
 *                   core      the segment's postings (term, n, n ascending document numbers, n entries: fields
 *                             and counts, postings.ts), then its documents' field lengths (one per field and
 *                             document, INDEX_FIELDS order); term ids are positions in the term table; padded
 *                             with zeros to a multiple of 8
 *                   listings  the type folder's directory listings (scan.ts StoredListing[]) as JSON, padded with
 *                             spaces to a multiple of 8
 *   field data    each document's field data (field-data.ts), every segment's, back to back, then the CRC-32 of
 *                 the field data
 *
 * A process reads the common head, and the block of each item type it searches, each block checked against its
 * CRC-32 (a search of one type does not read the others': in a space holding directives and knowledge, half the
 * bytes). A long-lived process reads every block at once. With the postings' counts and the field lengths, terms
 * are scored without field data, which is read (and checked) only when something needs it — a phrase, a
 * wildcard, a rewrite of the file. A block or field data read later from a file that was replaced since its head
 * was read, or found damaged, throws StoredIndexUnusable: the search runs again from the files.
 *
 * One term table per space, sorted, so the first space a process loads lends it to the dictionary as is
 * (dictionary.ts: no renumbering, no map of its terms) and its field data is used in place.
 *
 * The file is a cache, never a source of truth: a document is used only while its file's (mtime, size,
 * ctime, inode) are unchanged (index.ts), a hit's signature is checked against the file's bytes
 * (search.ts `verify`), and a file that is truncated, fails a checksum, has another layout version,
 * describes another space or has numbers or field data out of bounds is ignored and rebuilt. Writers replace the
 * file by rename (readers see a whole old or whole new file); between processes the last writer wins,
 * which is safe because every entry is re-validated against the disk when it is used.
 */
import { isAscii } from "node:buffer";
import type { Stats } from "node:fs";
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { tempSuffix } from "../fs/atomic.ts";
import { crc32 } from "node:zlib";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import type { SpaceName } from "../spaces/spaces.ts";
import { adoptSortedTerms, termId, termOf } from "./dictionary.ts";
import type { DocumentDisplay, IndexedDocument } from "./document.ts";
import type { FieldData } from "./field-data.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { PostingList } from "./postings.ts";
import { Postings } from "./postings.ts";
import type { StoredListing } from "./scan.ts";
import type { StoredDocs } from "./doc-table.ts";
import { isStoredListing } from "./scan.ts";
import { fieldLength, forEachFieldTerm, mapFieldTerms, wellFormedFieldData } from "./field-data.ts";

const MAGIC = "RYESIX10";
const PREFIX_BYTES = 40;
/** Per document in the numbers section: mtimeMs, size, ctimeMs, ino, display offset and length, data offset and length. */
const NUMBERS_PER_DOC = 8;
/** Refuses absurd files before reading them (10 000 items take about 10 MB). */
export const MAX_STORED_INDEX_BYTES = 512 * 1024 * 1024;

export interface SpaceKey {
  space: SpaceName;
  root: string;
}

interface StoredSegmentHeader {
  /** How many documents the segment has. */
  docCount: number;
  racy: string[];
  lengths: number[];
  /** The segment's block: bytes after the terms' padding, its length in bytes, and its CRC-32. */
  block: [offset: number, length: number, crc: number];
  /** Lengths of the block's sections: strings in bytes (before padding), displays in bytes, core in int32 words, listings in bytes. */
  stringBytes: number;
  displayBytes: number;
  coreWords: number;
  listingBytes: number;
  /** Where the postings are in the block's core (int32 words). */
  postings: [offset: number, length: number];
  /** Where the documents' field lengths are in the block's core (INDEX_FIELDS.length per document). */
  fieldLengths: [offset: number, length: number];
}

interface StoredHeader extends SpaceKey {
  /** How many terms the term table holds (term id i is the i-th). */
  termCount: number;
  segments: Partial<Record<ItemType, StoredSegmentHeader>>;
}

/** A segment as it is written. */
export interface SegmentToStore {
  /** In the order that numbers them 1…n. */
  docs: IndexedDocument[];
  /** Paths read so soon after their last change that they must be read again (index.ts). */
  racy: string[];
  /** The type folder's directory listings (scan.ts), so a new process lists no unchanged directory. */
  dirs: StoredListing[];
  /** term id → ascending document numbers (1-based positions in `docs`). */
  postings: Iterable<[number, PostingList]>;
  /** Sum of each field's length over the documents (INDEX_FIELDS order). */
  fieldLengthTotals: ArrayLike<number>;
}

/** A segment as it is read back: its documents are built on demand (doc-table.ts). */
export interface StoredSegment extends Omit<SegmentToStore, "docs"> {
  docs: StoredDocs;
  postings: Postings;
}

/** A stored segment in the shape `encodeSpace` takes (every document built). */
export function storedForWriting(segment: StoredSegment): SegmentToStore {
  return { ...segment, docs: Array.from({ length: segment.docs.count }, (_, i) => segment.docs.build(i + 1)) };
}

export type StoredSpace = Partial<Record<ItemType, SegmentToStore>>;

const paddedTo8 = (n: number): number => Math.ceil(n / 8) * 8;
const padded = (bytes: Buffer, to: number, fill: string | number = " "): Buffer => (bytes.length % to === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(to - (bytes.length % to), fill)]));

/**
 * Encodes the segments of a space (layout at the top of this file); null when a string to store holds a NUL
 * (the separator of the strings section; no path or term can, a category written as "\0" in YAML could):
 * such a space is not stored.
 */
export function encodeSpace(key: SpaceKey, segments: StoredSpace): Buffer | null {
  const prefix = key.root + sep;
  const relative = (path: string): string => (path.startsWith(prefix) ? path.slice(prefix.length) : path);
  // The file's term ids number its terms in sorted order: a process that starts from it adopts the table as is
  // (dictionary.ts) and looks terms up by binary search.
  const used = new Set<number>();
  for (const segment of Object.values(segments)) {
    for (const doc of segment.docs) forEachFieldTerm(doc.data, (term) => used.add(term));
    for (const [term] of segment.postings) used.add(term);
  }
  const globals = [...used].map((global) => ({ global, term: termOf(global) })).sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const terms = globals.map(({ term }) => term);
  if (terms.some((term) => term.includes("\0"))) return null;
  const localOf = new Map<number, number>();
  globals.forEach(({ global }, local) => localOf.set(global, local));
  const toLocal = (global: number): number => localOf.get(global)!;
  const fieldData: FieldData[] = [];
  const blocks: Buffer[] = [];
  let fieldWords = 0;
  let blockBytes = 0;
  const header: StoredHeader = { space: key.space, root: key.root, termCount: terms.length, segments: {} };
  for (const type of ITEM_TYPES) {
    const segment = segments[type];
    if (!segment) continue;
    const strings: string[] = [];
    const numbers: number[] = [];
    const displays: Buffer[] = [];
    let displayBytes = 0;
    for (const doc of segment.docs) {
      const local = mapFieldTerms(doc.data, toLocal);
      const display = Buffer.from(JSON.stringify(doc.display), "utf8");
      strings.push(relative(doc.path), doc.id, doc.category);
      numbers.push(doc.mtimeMs, doc.size, doc.ctimeMs, doc.ino, displayBytes, display.length, fieldWords, local.length);
      fieldData.push(local);
      displays.push(display);
      fieldWords += local.length;
      displayBytes += display.length;
    }
    if (strings.some((text) => text.includes("\0"))) return null;
    const lists = [...segment.postings];
    let postingWords = 0;
    for (const [, list] of lists) postingWords += 2 + 2 * list.ids.length;
    const core = new Int32Array(postingWords + segment.docs.length * INDEX_FIELDS.length);
    let at = 0;
    for (const [term, { ids, masks }] of lists) {
      core[at] = toLocal(term);
      core[at + 1] = ids.length;
      core.set(ids, at + 2);
      core.set(masks, at + 2 + ids.length);
      at += 2 + 2 * ids.length;
    }
    segment.docs.forEach((doc, d) => INDEX_FIELDS.forEach((_, f) => (core[postingWords + d * INDEX_FIELDS.length + f] = fieldLength(doc.data, f))));
    const stringBytes = Buffer.from(strings.join("\0"), "utf8");
    const display = padded(Buffer.concat(displays), 4);
    const listings = padded(Buffer.from(JSON.stringify(segment.dirs), "utf8"), 8);
    const sections = padded(Buffer.concat([padded(stringBytes, 8, 0), Buffer.from(Float64Array.from(numbers).buffer), display, Buffer.from(core.buffer, core.byteOffset, core.byteLength)]), 8, 0);
    const block = Buffer.concat([sections, listings]);
    header.segments[type] = {
      docCount: segment.docs.length,
      racy: segment.racy.map(relative),
      lengths: Array.from(segment.fieldLengthTotals),
      block: [blockBytes, block.length, crc32(block)],
      stringBytes: stringBytes.length,
      displayBytes: display.length,
      coreWords: core.length,
      listingBytes: listings.length,
      postings: [0, postingWords],
      fieldLengths: [postingWords, segment.docs.length * INDEX_FIELDS.length],
    };
    blocks.push(block);
    blockBytes += block.length;
  }
  const json = padded(Buffer.from(JSON.stringify(header), "utf8"), 8);
  const termBytes = Buffer.from(terms.join("\0"), "utf8");
  const commonEnd = PREFIX_BYTES + json.length + paddedTo8(termBytes.length);
  const headEnd = commonEnd + blockBytes;
  const out = Buffer.alloc(headEnd + fieldWords * 4 + 4);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, 8);
  out.writeUInt32LE(termBytes.length, 12);
  out.writeUInt32LE(blockBytes, 20);
  out.writeUInt32LE(fieldWords, 24);
  let at = PREFIX_BYTES;
  for (const part of [json, padded(termBytes, 8, 0), ...blocks, ...fieldData]) {
    const bytes = Buffer.isBuffer(part) ? part : Buffer.from(part.buffer, part.byteOffset, part.byteLength);
    bytes.copy(out, at);
    at += bytes.length;
  }
  out.writeUInt32LE(crc32(out.subarray(PREFIX_BYTES, commonEnd)), 16);
  out.writeUInt32LE(crc32(out.subarray(headEnd, at)), at);
  return out;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Where a segment's listings start in its block. */
const listingsAt = (segment: StoredSegmentHeader): number => paddedTo8(paddedTo8(segment.stringBytes) + segment.docCount * NUMBERS_PER_DOC * 8 + segment.displayBytes + segment.coreWords * 4);

function validSegment(v: unknown, blockBytes: number): v is StoredSegmentHeader {
  if (typeof v !== "object" || v === null) return false;
  const { docCount: count, racy, lengths, block, stringBytes, displayBytes, coreWords, listingBytes, postings, fieldLengths } = v as Record<string, unknown>;
  if (!Array.isArray(lengths) || lengths.length !== INDEX_FIELDS.length || !lengths.every(isCount)) return false;
  if (!isCount(count) || !isCount(stringBytes) || !isCount(displayBytes) || displayBytes % 4 !== 0 || !isCount(coreWords) || !isCount(listingBytes) || listingBytes % 8 !== 0) return false;
  if (!Array.isArray(racy) || !racy.every(isString)) return false;
  if (!Array.isArray(block) || block.length !== 3 || !block.every(isCount)) return false;
  const [offset, length] = block as [number, number, number];
  if (offset % 8 !== 0 || offset + length > blockBytes) return false;
  if (length !== listingsAt(v as StoredSegmentHeader) + listingBytes) return false;
  const withinCore = (range: unknown): range is [number, number] => Array.isArray(range) && range.length === 2 && isCount(range[0]) && isCount(range[1]) && range[0] + range[1] <= coreWords;
  return withinCore(postings) && withinCore(fieldLengths) && fieldLengths[1] === count * INDEX_FIELDS.length;
}

function validHeader(h: unknown, key: SpaceKey, blockBytes: number): h is StoredHeader {
  if (typeof h !== "object" || h === null) return false;
  const v = h as Record<string, unknown>;
  if (v.space !== key.space || v.root !== key.root) return false;
  if (!isCount(v.termCount)) return false;
  if (typeof v.segments !== "object" || v.segments === null) return false;
  for (const [type, segment] of Object.entries(v.segments as Record<string, unknown>)) {
    if (!(ITEM_TYPES as readonly string[]).includes(type) || !validSegment(segment, blockBytes)) return false;
  }
  return true;
}

/** Whether document `i`'s numbers are in range: times finite, counts whole, display and data inside their sections. */
function validNumbers(numbers: Float64Array, i: number, displayBytes: number, words: number): boolean {
  const at = i * NUMBERS_PER_DOC;
  const displayOffset = numbers[at + 4]!;
  const displayLength = numbers[at + 5]!;
  const dataOffset = numbers[at + 6]!;
  const dataLength = numbers[at + 7]!;
  return (
    isTime(numbers[at]) && isCount(numbers[at + 1]) && isTime(numbers[at + 2]) && isCount(numbers[at + 3]) &&
    isCount(displayOffset) && isCount(displayLength) && displayOffset + displayLength <= displayBytes &&
    isCount(dataOffset) && isCount(dataLength) && dataOffset + dataLength <= words
  );
}

function validDisplay(v: unknown): v is DocumentDisplay {
  if (typeof v !== "object" || v === null) return false;
  const d = v as Record<string, unknown>;
  return (
    isString(d.name) && isString(d.description) && (d.version === null || isString(d.version)) && typeof d.signed === "boolean" &&
    isString(d.preview) && (d.title === undefined || isString(d.title)) && (d.parseError === undefined || isString(d.parseError))
  );
}

/** A document whose display is parsed from the stored bytes when first read. */
class StoredDocument implements IndexedDocument {
  docId = 0;
  private parsed: DocumentDisplay | null = null;
  constructor(
    readonly type: ItemType,
    readonly space: SpaceName,
    readonly id: string,
    readonly path: string,
    readonly mtimeMs: number,
    readonly size: number,
    readonly ctimeMs: number,
    readonly ino: number,
    readonly category: string,
    private readonly fieldData: () => FieldData,
    /** The segment's block, which holds the display at displayStart…displayEnd. */
    private readonly block: Buffer,
    private readonly displayStart: number,
    private readonly displayEnd: number,
  ) {}

  private fields: FieldData | null = null;

  /** Read when first asked for (may throw StoredIndexUnusable: the field data section is read then). */
  get data(): FieldData {
    return (this.fields ??= this.fieldData());
  }

  get display(): DocumentDisplay {
    if (!this.parsed) {
      let value: unknown = null;
      try {
        value = JSON.parse(this.block.toString("utf8", this.displayStart, this.displayEnd));
      } catch {
        // Covered by the checksum; a bad entry still shows as an unreadable item rather than failing the search.
      }
      this.parsed = validDisplay(value) ? value : { name: this.id.split("/").pop() ?? this.id, description: "", version: null, signed: false, preview: "", parseError: "the stored search index entry is unreadable" };
    }
    return this.parsed;
  }
}

/** A stored space whose header and checksum were checked; each segment is decoded when first asked for. */
export interface StoredFile {
  types: ItemType[];
  /** The segment of `type`, with term ids of this process; null when absent or not well formed. */
  segment(type: ItemType): StoredSegment | null;
}

/**
 * A part of a stored index read after its common head (a segment's block, the field data) turned out unusable
 * when it was first needed (damaged, or the file was replaced since its head was read). The index built from the
 * file must be dropped and the search run again (index.ts `distrustStoredIndex`).
 */
export class StoredIndexUnusable extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`the stored search index ${file} cannot be used: ${reason}`);
    this.name = "StoredIndexUnusable";
  }
}

interface Sections {
  headerBytes: number;
  /** The term strings without their padding. */
  termBytes: number;
  /** Where the blocks start (the end of the common head: prefix, header, terms). */
  commonEnd: number;
  blockBytes: number;
  fieldWords: number;
  /** Where the field data starts. */
  headEnd: number;
  /** The whole file's length. */
  total: number;
}

/** The section lengths of the 40-byte prefix, or null when it is not one of this layout. */
function sectionsOf(prefix: Buffer): Sections | null {
  if (prefix.length < PREFIX_BYTES || prefix.toString("latin1", 0, 8) !== MAGIC) return null;
  const headerBytes = prefix.readUInt32LE(8);
  const termBytes = prefix.readUInt32LE(12);
  const blockBytes = prefix.readUInt32LE(20);
  const fieldWords = prefix.readUInt32LE(24);
  if (headerBytes % 8 !== 0 || blockBytes % 8 !== 0 || prefix.readUInt32LE(28) !== 0 || prefix.readUInt32LE(32) !== 0 || prefix.readUInt32LE(36) !== 0) return null;
  const commonEnd = PREFIX_BYTES + headerBytes + paddedTo8(termBytes);
  const headEnd = commonEnd + blockBytes;
  return { headerBytes, termBytes, commonEnd, blockBytes, fieldWords, headEnd, total: headEnd + fieldWords * 4 + 4 };
}

/** The strings of a NUL-separated section (ASCII, the common case, decodes as Latin-1: no UTF-8 validation). */
function splitStrings(bytes: Buffer): string[] {
  if (bytes.length === 0) return [];
  return bytes.toString(isAscii(bytes) ? "latin1" : "utf8").split("\0");
}

/** The field data section and its trailing CRC (`bytes`), checked; null when it does not match. */
function checkedFieldData(bytes: Buffer, words: number): Int32Array | null {
  if (bytes.length !== words * 4 + 4 || crc32(bytes.subarray(0, words * 4)) !== bytes.readUInt32LE(words * 4)) return null;
  return (bytes.byteOffset & 3) === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset, words) : new Int32Array(new Uint8Array(bytes.subarray(0, words * 4)).buffer);
}

/** Bytes [position, position + length) of the stored file; throws StoredIndexUnusable when they cannot be had. */
type ReadStored = (position: number, length: number) => Buffer;

/**
 * The stored space in `bytes` (a whole file); null when the bytes are not a whole index of `key` with an
 * intact common head (the caller then rebuilds from the files). Blocks and field data are checked when first used.
 */
export function decodeSpace(bytes: Buffer, key: SpaceKey, file = "(in memory)"): StoredFile | null {
  const sections = sectionsOf(bytes);
  if (!sections || sections.total !== bytes.length) return null;
  return decodeFile(file, bytes.subarray(0, sections.commonEnd), sections, key, (position, length) => bytes.subarray(position, position + length));
}

/** Typed views in place when aligned (a whole-file read is); else copied once. */
function view<T>(Type: { new (buffer: ArrayBufferLike, offset: number, length: number): T; BYTES_PER_ELEMENT: number }, bytes: Buffer, start: number, length: number): T {
  return (bytes.byteOffset + start) % Type.BYTES_PER_ELEMENT === 0
    ? new Type(bytes.buffer, bytes.byteOffset + start, length)
    : new Type(new Uint8Array(bytes.subarray(start, start + length * Type.BYTES_PER_ELEMENT)).buffer, 0, length);
}

/**
 * The space whose common head is `common` (bytes 0 to `sections.commonEnd`, checked here); `read` gives the
 * blocks (each checked against its CRC when its segment is first decoded) and the field data (when first used).
 */
function decodeFile(file: string, common: Buffer, sections: Sections, key: SpaceKey, read: ReadStored): StoredFile | null {
  const { headerBytes, termBytes, commonEnd, blockBytes, fieldWords, headEnd } = sections;
  if (crc32(common.subarray(PREFIX_BYTES, commonEnd)) !== common.readUInt32LE(16)) return null;
  let header: unknown;
  try {
    header = JSON.parse(common.toString("utf8", PREFIX_BYTES, PREFIX_BYTES + headerBytes));
  } catch {
    return null;
  }
  if (!validHeader(header, key, blockBytes)) return null;
  const stored = header;
  const terms = splitStrings(common.subarray(PREFIX_BYTES + headerBytes, PREFIX_BYTES + headerBytes + termBytes));
  if (terms.length !== stored.termCount) return null;
  let fieldData: Int32Array | null = null;
  const allFieldData = (): Int32Array => {
    fieldData ??= checkedFieldData(read(headEnd, fieldWords * 4 + 4), fieldWords);
    if (!fieldData) throw new StoredIndexUnusable(file, "its field data fails its checksum");
    return fieldData;
  };
  // Local term id → this process's, or null when they are the same (set by the first segment decoded).
  let globalOf: ((local: number) => number) | null | undefined;
  const prefix = key.root + sep;
  const absolute = (path: string): string => (isAbsolute(path) ? path : prefix + path);
  const decoded = new Map<ItemType, StoredSegment | null>();

  const decode = (type: ItemType): StoredSegment | null => {
    const segment = stored.segments[type];
    if (!segment) return null;
    const { docCount: count, stringBytes, displayBytes, coreWords } = segment;
    const [offset, length, crc] = segment.block;
    const block = read(commonEnd + offset, length);
    if (block.length !== length || crc32(block) !== crc) return null;
    // Document n's path, item id and category: strings 3(n − 1) to 3(n − 1) + 2.
    const strings = splitStrings(block.subarray(0, stringBytes));
    if (strings.length !== 3 * count) return null;
    const numbersStart = paddedTo8(stringBytes);
    const displayStart = numbersStart + count * NUMBERS_PER_DOC * 8;
    const numbers = view(Float64Array, block, numbersStart, count * NUMBERS_PER_DOC);
    const core = view(Int32Array, block, displayStart + displayBytes, coreWords);
    let dirs: unknown;
    try {
      dirs = JSON.parse(block.toString("utf8", listingsAt(segment), length));
    } catch {
      return null;
    }
    if (!Array.isArray(dirs) || !dirs.every(isStoredListing)) return null;
    if (globalOf === undefined) {
      // The first index a process loads lends the dictionary its sorted table: no term is looked up. The others
      // map a term when a block they decode first uses it (a typed search of a second space maps that type's terms,
      // not the whole table's), remembered for the file's other blocks.
      if (adoptSortedTerms(terms)) globalOf = null;
      else {
        const known = new Int32Array(stored.termCount).fill(-1);
        globalOf = (local: number) => (known[local] !== -1 ? known[local]! : (known[local] = termId(terms[local]!)));
      }
    }
    const map = globalOf;
    const identity = map === null;
    const lengths = core.subarray(segment.fieldLengths[0], segment.fieldLengths[0] + segment.fieldLengths[1]);
    // Document n (1-based): its numbers at numbersOf(n) in `numbers`.
    const numbersOf = (n: number) => (n - 1) * NUMBERS_PER_DOC;
    const relativePath = (n: number) => strings[3 * (n - 1)]!;
    // A document's numbers are checked when it is built or its field data read (comparing them with a file's
    // in `describesAll` needs no check), its field data the first time it is read (the section's checksum when
    // the section is loaded): loading checks no document.
    const numbersChecked = new Uint8Array(count + 1);
    const checkNumbers = (n: number): void => {
      if (numbersChecked[n]) return;
      if (!validNumbers(numbers, n - 1, displayBytes, fieldWords)) throw new StoredIndexUnusable(file, `document ${n} has numbers out of range`);
      numbersChecked[n] = 1;
    };
    const checked = new Uint8Array(count + 1);
    const storedData = (n: number): FieldData => {
      checkNumbers(n);
      const all = allFieldData();
      const from = numbers[numbersOf(n) + 6]!;
      const to = from + numbers[numbersOf(n) + 7]!;
      if (!checked[n]) {
        if (!wellFormedFieldData(all, stored.termCount, from, to)) throw new StoredIndexUnusable(file, `document ${n} has malformed field data`);
        checked[n] = 1;
      }
      return all.subarray(from, to);
    };
    const docs: StoredDocs = {
      count,
      path: (n) => absolute(relativePath(n)),
      id: (n) => strings[3 * (n - 1) + 1]!,
      category: (n) => strings[3 * (n - 1) + 2]!,
      data: (n) => (identity ? storedData(n) : null),
      // Checked when read (only a scored candidate's are): a loop over every document's at load costs ~1 ms.
      fieldLength(n, field) {
        const length = lengths[(n - 1) * INDEX_FIELDS.length + field]!;
        if (length < 0) throw new StoredIndexUnusable(file, `document ${n} has a negative field length`);
        return length;
      },
      describesAll(paths, identities) {
        for (let i = 0; i < count; i++) {
          // Stored relative to the root when under it: then the path is the root's prefix and that; else equal.
          const relative = strings[3 * i]!;
          const path = paths[i]!;
          if (path.length === prefix.length + relative.length ? !path.endsWith(relative) || !path.startsWith(prefix) : path !== relative) return false;
          const at = i * NUMBERS_PER_DOC;
          const from = 4 * i;
          if (numbers[at] !== identities[from] || numbers[at + 1] !== identities[from + 1] || numbers[at + 2] !== identities[from + 2] || numbers[at + 3] !== identities[from + 3]) return false;
        }
        return true;
      },
      build(n) {
        checkNumbers(n);
        const at = numbersOf(n);
        const data = () => (map === null ? storedData(n) : mapFieldTerms(storedData(n), map));
        const displayOffset = displayStart + numbers[at + 4]!;
        const doc = new StoredDocument(type, key.space, docs.id(n), docs.path(n), numbers[at]!, numbers[at + 1]!, numbers[at + 2]!, numbers[at + 3]!, docs.category(n), data, block, displayOffset, displayOffset + numbers[at + 5]!);
        doc.docId = n;
        return doc;
      },
    };
    const postings = Postings.fromBlock(core.subarray(segment.postings[0], segment.postings[0] + segment.postings[1]), stored.termCount, map, count);
    if (!postings) return null;
    return { docs, racy: segment.racy.map(absolute), dirs: dirs as StoredListing[], postings, fieldLengthTotals: segment.lengths };
  };
  return {
    types: ITEM_TYPES.filter((type) => stored.segments[type] !== undefined),
    segment(type) {
      if (!decoded.has(type)) decoded.set(type, decode(type));
      return decoded.get(type)!;
    },
  };
}

/** Reads `length` bytes at `position` of `fd` into a new buffer (an ArrayBuffer of its own, so typed views align). */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafeSlow(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

/**
 * Reads a stored space's common head, and with `allBlocks` every block in the same read (a long-lived process,
 * which will search every type): null when there is none, "invalid" when there is one that cannot be used. The
 * other blocks and the field data are read from the same file when first needed (StoredIndexUnusable if it was
 * replaced since, which writers do by rename).
 */
export function readStoredSpace(file: string, key: SpaceKey, options: { allBlocks?: boolean } = {}): StoredFile | "invalid" | null {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return null;
  }
  let sections: Sections | null;
  let head: Buffer;
  let identity: Stats;
  try {
    identity = fstatSync(fd);
    if (identity.size > MAX_STORED_INDEX_BYTES) return "invalid";
    sections = sectionsOf(readAt(fd, 0, PREFIX_BYTES));
    if (!sections || sections.total !== identity.size) return "invalid";
    head = readAt(fd, 0, options.allBlocks ? sections.headEnd : sections.commonEnd);
  } catch {
    return "invalid";
  } finally {
    closeSync(fd);
  }
  const read: ReadStored = (position, length) => {
    if (position + length <= head.length) return head.subarray(position, position + length);
    try {
      const again = openSync(file, "r");
      try {
        const now = fstatSync(again);
        // Replaced since the head was read (writers rename a new file into place): that head is not these bytes'.
        if (now.ino !== identity.ino || now.dev !== identity.dev || now.size !== identity.size || now.mtimeMs !== identity.mtimeMs) throw new StoredIndexUnusable(file, "it was replaced while in use");
        return readAt(again, position, length);
      } finally {
        closeSync(again);
      }
    } catch (err) {
      if (err instanceof StoredIndexUnusable) throw err;
      throw new StoredIndexUnusable(file, `it cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  return decodeFile(file, head.subarray(0, sections.commonEnd), sections, key, read) ?? "invalid";
}

/**
 * Replaces the stored space atomically (temp file + rename in the same directory). No fsync: after a
 * crash a torn file fails its checksum and is rebuilt. Failures (read-only or full disk) are ignored:
 * the index is only a cache.
 */
export function writeStoredSpace(file: string, bytes: Uint8Array): boolean {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${tempSuffix()}.tmp`);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temp, bytes, { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
    return true;
  } catch {
    rmSync(temp, { force: true });
    return false;
  }
}
