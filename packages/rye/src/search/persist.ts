/**
 * The on-disk form of a space's search index (its three segments, one per item type), so a new process
 * starts from the last process's index instead of reading every item file again.
 *
 *   bytes 0–7     magic "RYESIX03"
 *   8–11          header length in bytes (a multiple of 4)
 *   12–15         display section length in bytes (a multiple of 4)
 *   16–19         data length in int32 words
 *   20–23         CRC-32 of everything after byte 24
 *   header        JSON (StoredHeader), padded with spaces
 *   displays      each document's DocumentDisplay as JSON, back to back (parsed only for the hits shown)
 *   data          each document's field data (field-data.ts) back to back, then each segment's postings
 *                 (term, n, n ascending document numbers)…; term ids numbered by `terms`
 *
 * One term table per space, so the first space a process loads needs no renumbering (term ids are
 * handed out in the file's order) and its field data is used in place.
 *
 * The file is a cache, never a source of truth: a document is used only while its file's (mtime, size,
 * ctime, inode) are unchanged (index.ts), a hit's signature is checked against the file's bytes
 * (search.ts `verify`), and a file that is truncated, fails its checksum, has another layout version,
 * describes another space or has field data out of bounds is ignored and rebuilt. Writers replace the
 * file by rename (readers see a whole old or whole new file); between processes the last writer wins,
 * which is safe because every entry is re-validated against the disk when it is used.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { crc32 } from "node:zlib";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import type { SpaceName } from "../spaces/spaces.ts";
import { termId, termOf } from "./dictionary.ts";
import type { DocumentDisplay, IndexedDocument } from "./document.ts";
import type { FieldData } from "./field-data.ts";
import type { PostingList } from "./index.ts";
import { mapFieldTerms, wellFormedFieldData } from "./field-data.ts";

const MAGIC = "RYESIX03";
const PREFIX_BYTES = 24;
/** Refuses absurd files before reading them (10 000 items take about 10 MB). */
export const MAX_STORED_INDEX_BYTES = 512 * 1024 * 1024;

export interface SpaceKey {
  space: SpaceName;
  root: string;
}

/** One document: where it came from, where its display and field data lie. */
type StoredDoc = [
  /** Relative to the space root when under it. */
  path: string,
  mtimeMs: number,
  size: number,
  ctimeMs: number,
  ino: number,
  id: string,
  category: string,
  displayOffset: number,
  displayLength: number,
  dataOffset: number,
  dataLength: number,
];

interface StoredHeader extends SpaceKey {
  /** Term of each term id of the file. */
  terms: string[];
  segments: Partial<Record<ItemType, { docs: StoredDoc[]; racy: string[]; postings: [offset: number, length: number] }>>;
}

export interface StoredSegment {
  /** In the order that numbers them 1…n. */
  docs: IndexedDocument[];
  /** Paths read so soon after their last change that they must be read again (index.ts). */
  racy: string[];
  /** term id → ascending document numbers (1-based positions in `docs`). */
  postings: Map<number, PostingList>;
}

export type StoredSpace = Partial<Record<ItemType, StoredSegment>>;

const padded = (bytes: Buffer): Buffer => (bytes.length % 4 === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(4 - (bytes.length % 4), " ")]));

/** Encodes the segments of a space. */
export function encodeSpace(key: SpaceKey, segments: StoredSpace): Buffer {
  const prefix = key.root + sep;
  const localOf = new Map<number, number>();
  const terms: string[] = [];
  const toLocal = (global: number): number => {
    let local = localOf.get(global);
    if (local === undefined) {
      local = terms.length;
      localOf.set(global, local);
      terms.push(termOf(global));
    }
    return local;
  };
  const data: FieldData[] = [];
  const displays: Buffer[] = [];
  let words = 0;
  let displayBytes = 0;
  const header: StoredHeader = { space: key.space, root: key.root, terms, segments: {} };
  for (const type of ITEM_TYPES) {
    const segment = segments[type];
    if (!segment) continue;
    const docs: StoredDoc[] = [];
    for (const doc of segment.docs) {
      const local = mapFieldTerms(doc.data, toLocal);
      const display = Buffer.from(JSON.stringify(doc.display), "utf8");
      const path = doc.path.startsWith(prefix) ? doc.path.slice(prefix.length) : doc.path;
      docs.push([path, doc.mtimeMs, doc.size, doc.ctimeMs, doc.ino, doc.id, doc.category, displayBytes, display.length, words, local.length]);
      data.push(local);
      displays.push(display);
      words += local.length;
      displayBytes += display.length;
    }
    header.segments[type] = { docs, racy: segment.racy.map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : p)), postings: [0, 0] };
  }
  // Postings after all field data, so every term of every segment already has its local id.
  for (const type of ITEM_TYPES) {
    const segment = segments[type];
    if (!segment) continue;
    let length = 0;
    for (const list of segment.postings.values()) length += 2 + list.length;
    const block = new Int32Array(length);
    let at = 0;
    for (const [term, list] of segment.postings) {
      block[at] = toLocal(term);
      block[at + 1] = list.length;
      block.set(list, at + 2);
      at += 2 + list.length;
    }
    header.segments[type]!.postings = [words, length];
    data.push(block);
    words += length;
  }
  const json = padded(Buffer.from(JSON.stringify(header), "utf8"));
  const display = padded(Buffer.concat(displays));
  const out = Buffer.alloc(PREFIX_BYTES + json.length + display.length + words * 4);
  out.write(MAGIC, 0, "latin1");
  out.writeUInt32LE(json.length, 8);
  out.writeUInt32LE(display.length, 12);
  out.writeUInt32LE(words, 16);
  json.copy(out, PREFIX_BYTES);
  display.copy(out, PREFIX_BYTES + json.length);
  let at = PREFIX_BYTES + json.length + display.length;
  for (const part of data) {
    Buffer.from(part.buffer, part.byteOffset, part.byteLength).copy(out, at);
    at += part.byteLength;
  }
  out.writeUInt32LE(crc32(out.subarray(PREFIX_BYTES)), 20);
  return out;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isTime = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function validDoc(d: unknown, displayBytes: number, words: number): d is StoredDoc {
  if (!Array.isArray(d) || d.length !== 11) return false;
  const [path, mtimeMs, size, ctimeMs, ino, id, category, displayOffset, displayLength, dataOffset, dataLength] = d as unknown[];
  return (
    isString(path) && isTime(mtimeMs) && isCount(size) && isTime(ctimeMs) && isCount(ino) && isString(id) && isString(category) &&
    isCount(displayOffset) && isCount(displayLength) && displayOffset + displayLength <= displayBytes &&
    isCount(dataOffset) && isCount(dataLength) && dataOffset + dataLength <= words
  );
}

function validHeader(h: unknown, key: SpaceKey, displayBytes: number, words: number): h is StoredHeader {
  if (typeof h !== "object" || h === null) return false;
  const v = h as Record<string, unknown>;
  if (v.space !== key.space || v.root !== key.root) return false;
  if (!Array.isArray(v.terms) || !v.terms.every(isString)) return false;
  if (typeof v.segments !== "object" || v.segments === null) return false;
  for (const [type, segment] of Object.entries(v.segments as Record<string, unknown>)) {
    if (!(ITEM_TYPES as readonly string[]).includes(type) || typeof segment !== "object" || segment === null) return false;
    const { docs, racy, postings } = segment as Record<string, unknown>;
    if (!Array.isArray(racy) || !racy.every(isString)) return false;
    if (!Array.isArray(postings) || postings.length !== 2 || !isCount(postings[0]) || !isCount(postings[1]) || postings[0] + postings[1] > words) return false;
    if (!Array.isArray(docs) || !docs.every((d) => validDoc(d, displayBytes, words))) return false;
  }
  return true;
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
    public data: FieldData,
    private readonly displayBytes: Buffer,
  ) {}

  get display(): DocumentDisplay {
    if (!this.parsed) {
      let value: unknown = null;
      try {
        value = JSON.parse(this.displayBytes.toString("utf8"));
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
 * The stored space in `bytes`; null when the bytes are not a whole, intact index of `key` (the caller
 * then rebuilds from the files). Only the header is parsed here: a search of one item type decodes
 * only that type's documents.
 */
export function decodeSpace(bytes: Buffer, key: SpaceKey): StoredFile | null {
  if (bytes.length < PREFIX_BYTES || bytes.toString("latin1", 0, 8) !== MAGIC) return null;
  const headerBytes = bytes.readUInt32LE(8);
  const displayBytes = bytes.readUInt32LE(12);
  const words = bytes.readUInt32LE(16);
  if (headerBytes % 4 !== 0 || displayBytes % 4 !== 0 || PREFIX_BYTES + headerBytes + displayBytes + words * 4 !== bytes.length) return null;
  if (crc32(bytes.subarray(PREFIX_BYTES)) !== bytes.readUInt32LE(20)) return null;
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString("utf8", PREFIX_BYTES, PREFIX_BYTES + headerBytes));
  } catch {
    return null;
  }
  if (!validHeader(header, key, displayBytes, words)) return null;
  const stored = header;
  const displayStart = PREFIX_BYTES + headerBytes;
  const dataStart = displayStart + displayBytes;
  // Used in place when aligned (a whole-file read is); else copied once.
  const all = (bytes.byteOffset + dataStart) % 4 === 0 ? new Int32Array(bytes.buffer, bytes.byteOffset + dataStart, words) : new Int32Array(new Uint8Array(bytes.subarray(dataStart)).buffer);
  let globalOf: Int32Array | null = null;
  let identity = false;
  const prefix = key.root + sep;
  const decoded = new Map<ItemType, StoredSegment | null>();

  const decode = (type: ItemType): StoredSegment | null => {
    const segment = stored.segments[type];
    if (!segment) return null;
    if (!globalOf) {
      globalOf = Int32Array.from(stored.terms, (term) => termId(term));
      identity = globalOf.every((g, local) => g === local);
    }
    const map = globalOf;
    const docs: IndexedDocument[] = [];
    for (const [path, mtimeMs, size, ctimeMs, ino, id, category, displayOffset, displayLength, dataOffset, dataLength] of segment.docs) {
      const local = all.subarray(dataOffset, dataOffset + dataLength);
      if (!wellFormedFieldData(local, map.length)) return null;
      const data = identity ? local : mapFieldTerms(local, (t) => map[t]!);
      const display = bytes.subarray(displayStart + displayOffset, displayStart + displayOffset + displayLength);
      docs.push(new StoredDocument(type, key.space, id, isAbsolute(path) ? path : prefix + path, mtimeMs, size, ctimeMs, ino, category, data, display));
    }
    const postings = readPostings(all.subarray(segment.postings[0], segment.postings[0] + segment.postings[1]), map, docs.length);
    if (!postings) return null;
    return { docs, racy: segment.racy.map((p) => (isAbsolute(p) ? p : prefix + p)), postings };
  };
  return {
    types: ITEM_TYPES.filter((type) => stored.segments[type] !== undefined),
    segment(type) {
      if (!decoded.has(type)) decoded.set(type, decode(type));
      return decoded.get(type)!;
    },
  };
}

/** The postings of a block (views into it), or null when a term or a document number is out of range or out of order. */
function readPostings(block: Int32Array, globalOf: Int32Array, docCount: number): Map<number, PostingList> | null {
  const postings = new Map<number, PostingList>();
  for (let at = 0; at < block.length; ) {
    if (at + 2 > block.length) return null;
    const term = block[at]!;
    const n = block[at + 1]!;
    if (term < 0 || term >= globalOf.length || n < 1 || at + 2 + n > block.length) return null;
    const list = block.subarray(at + 2, at + 2 + n);
    let previous = 0;
    for (let i = 0; i < n; i++) {
      const id = list[i]!;
      if (id <= previous || id > docCount) return null;
      previous = id;
    }
    const global = globalOf[term]!;
    if (postings.has(global)) return null;
    postings.set(global, list);
    at += 2 + n;
  }
  return postings;
}

/** Reads a stored space: null when there is none, "invalid" when there is one that cannot be used. */
export function readStoredSpace(file: string, key: SpaceKey): StoredFile | "invalid" | null {
  let bytes: Buffer;
  try {
    if (statSync(file).size > MAX_STORED_INDEX_BYTES) return "invalid";
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  return decodeSpace(bytes, key) ?? "invalid";
}

/**
 * Replaces the stored space atomically (temp file + rename in the same directory). No fsync: after a
 * crash a torn file fails its checksum and is rebuilt. Failures (read-only or full disk) are ignored:
 * the index is only a cache.
 */
export function writeStoredSpace(file: string, bytes: Uint8Array): boolean {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
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
