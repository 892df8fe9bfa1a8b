/**
 * One indexed item file: display fields, per-field token positions (compact typed arrays keyed by
 * dictionary term ids) and flags. A file that cannot be parsed is still indexed from its id, name and
 * text, with `parseError` set.
 */
import type { ItemType, ParsedItem } from "@rye/core";
import { categoryOfItemId, extractSignature, nameOfItemId, parseItem, stripSignature, utf8Decode } from "@rye/core";
import type { ListedItemFile, SpaceName } from "../spaces/spaces.ts";
import type { IndexField } from "./fields.ts";
import { INDEX_FIELDS } from "./fields.ts";
import { termId } from "./dictionary.ts";
import type { Token } from "./tokenize.ts";
import { tokenize } from "./tokenize.ts";

/** Indexed text per file; the rest of a longer file is not searchable. */
export const MAX_CONTENT_CHARS = 64 * 1024;
/** Larger files are not read at all: indexed by id and name only. */
export const MAX_FILE_BYTES = 1024 * 1024;
const PREVIEW_CHARS = 200;

/**
 * All fields' token positions of one document in a single Int32Array (one allocation per document
 * instead of several per field):
 *
 *   data[f]                   start of field f's block, or -1 when the field is empty (f < FIELD_COUNT)
 *   block: length, n, termIds[n] (sorted), ends[n], positions…
 *
 * Positions of termIds[i] run from `i === 0 ? positionsStart : ends[i - 1]` to ends[i]; each run is sorted.
 */
export type FieldData = Int32Array;

const FIELD_COUNT: number = INDEX_FIELDS.length;

export interface IndexedDocument {
  /** Assigned when the document enters a segment index; unique in the process. */
  docId: number;
  type: ItemType;
  space: SpaceName;
  id: string;
  path: string;
  mtimeMs: number;
  size: number;
  name: string;
  title?: string;
  description: string;
  category: string;
  version: string | null;
  signed: boolean;
  preview: string;
  parseError?: string;
  data: FieldData;
}

/** Word count of a field (its BM25 length). */
export function fieldLength(data: FieldData, field: number): number {
  const block = data[field]!;
  return block < 0 ? 0 : data[block]!;
}

/** Number of distinct terms in a field. */
export function fieldTermCount(data: FieldData, field: number): number {
  const block = data[field]!;
  return block < 0 ? 0 : data[block + 1]!;
}

/** Index in `data` of the field's first term id (term ids follow, then their ends). */
export function fieldTermsStart(data: FieldData, field: number): number {
  return data[field]! + 2;
}

/**
 * Where the positions of `term` in `field` lie: returns the index `i` of the term inside the field, or
 * -1. Use `positionRange` to turn it into bounds.
 */
export function findTerm(data: FieldData, field: number, term: number): number {
  const block = data[field]!;
  if (block < 0) return -1;
  const start = block + 2;
  let lo = 0;
  let hi = data[block + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = data[start + mid]!;
    if (value === term) return mid;
    if (value < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** [from, to) indexes in `data` of the positions of the `i`-th term of a field. */
export function positionRange(data: FieldData, field: number, i: number): [number, number] {
  const block = data[field]!;
  const n = data[block + 1]!;
  const ends = block + 2 + n;
  return [i === 0 ? ends + n : data[ends + i - 1]!, data[ends + i]!];
}

/** Number of positions of the `i`-th term of a field (its term frequency). */
export function termCount(data: FieldData, field: number, i: number): number {
  const block = data[field]!;
  const n = data[block + 1]!;
  const ends = block + 2 + n;
  return data[ends + i]! - (i === 0 ? ends + n : data[ends + i - 1]!);
}

interface FieldTokens {
  tokens: Token[];
  length: number;
}

function isAscending(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > values[i]!) return false;
  return true;
}

/** Packs the fields' tokens into the layout above. */
function pack(fields: (FieldTokens | undefined)[]): FieldData {
  const grouped = fields.map((field) => {
    if (!field || field.tokens.length === 0) return null;
    const byTerm = new Map<number, number[]>();
    for (const token of field.tokens) {
      const id = termId(token.term);
      const list = byTerm.get(id);
      if (list) list.push(token.position);
      else byTerm.set(id, [token.position]);
    }
    const terms = Int32Array.from(byTerm.keys()).sort();
    return { length: field.length, terms, byTerm, count: field.tokens.length };
  });
  const size = grouped.reduce((n, g) => n + (g ? 2 + 2 * g.terms.length + g.count : 0), FIELD_COUNT);
  const data = new Int32Array(size);
  let at = FIELD_COUNT;
  grouped.forEach((g, f) => {
    if (!g) {
      data[f] = -1;
      return;
    }
    data[f] = at;
    const n = g.terms.length;
    data[at] = g.length;
    data[at + 1] = n;
    data.set(g.terms, at + 2);
    let write = at + 2 + 2 * n;
    g.terms.forEach((term, i) => {
      const positions = g.byTerm.get(term)!;
      // Positions arrive in order except where an identifier token shares its first word's position.
      if (!isAscending(positions)) positions.sort((a, b) => a - b);
      data.set(positions, write);
      write += positions.length;
      data[at + 2 + n + i] = write;
    });
    at = write;
  });
  return data;
}

function fieldFromText(text: string | undefined): FieldTokens | undefined {
  if (!text) return undefined;
  const { tokens, wordCount } = tokenize(text);
  return { tokens, length: wordCount };
}

/** Tags get a one-position gap between them so a phrase never spans two tags. */
function fieldFromTags(tags: readonly string[]): FieldTokens | undefined {
  const all: Token[] = [];
  let position = 0;
  for (const tag of tags) {
    const { tokens, wordCount } = tokenize(tag, position);
    all.push(...tokens);
    position += wordCount + 1;
  }
  return { tokens: all, length: Math.max(0, position - 1) };
}

/** Whitespace collapsed; only the start of long texts is looked at (previews need 200 characters). */
function oneLine(text: string): string {
  return text.slice(0, 4 * PREVIEW_CHARS).replace(/\s+/g, " ").trim();
}

function bodyOf(parsed: ParsedItem): string {
  switch (parsed.type) {
    case "directive":
      return parsed.metadata.body || parsed.metadata.content;
    case "knowledge":
      return parsed.metadata.body;
    case "tool":
      return parsed.metadata.docstring ?? "";
  }
}

function previewOf(parsed: ParsedItem | null, content: string): string {
  let description = parsed?.summary.description ?? "";
  if (parsed?.type === "knowledge") {
    // A knowledge summary falls back to its title; the preview should show the text instead.
    const own = parsed.metadata.frontmatter.description;
    description = typeof own === "string" ? own : "";
  }
  const source = oneLine(description) || oneLine(parsed ? bodyOf(parsed) : "") || oneLine(content);
  return [...source.slice(0, 2 * PREVIEW_CHARS)].slice(0, PREVIEW_CHARS).join("");
}

function decode(bytes: Uint8Array): { text: string; error?: string } {
  try {
    return { text: utf8Decode(bytes) };
  } catch {
    return { text: new TextDecoder("utf-8").decode(bytes), error: "the file is not valid UTF-8" };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Builds the document of a file from its bytes; `bytes` is null when the file was not read
 * (`unreadReason` says why).
 */
export function buildDocument(file: ListedItemFile, bytes: Uint8Array | null, unreadReason?: string): IndexedDocument {
  let raw = "";
  let parseError = unreadReason;
  if (bytes) {
    const decoded = decode(bytes);
    raw = decoded.text;
    parseError = decoded.error;
  }
  let parsed: ParsedItem | null = null;
  if (bytes && parseError === undefined) {
    try {
      parsed = parseItem(raw, file.type, { path: file.path });
    } catch (err) {
      parseError = messageOf(err);
    }
  }
  const summary = parsed?.summary;
  const content = stripSignature(raw, file.type).slice(0, MAX_CONTENT_CHARS);
  const name = summary?.name || nameOfItemId(file.itemId);
  const category = summary?.category ?? categoryOfItemId(file.itemId);
  const description = summary?.description ?? "";

  const texts: Partial<Record<IndexField, string | undefined>> = {
    name,
    title: summary?.title,
    description,
    category,
    content,
    id: file.itemId,
    type: file.type,
    space: file.space.name,
    version: summary?.version,
    tool_type: summary?.toolType,
    author: summary?.author,
  };
  const data = pack(INDEX_FIELDS.map((field) => (field === "tags" ? fieldFromTags(summary?.tags ?? []) : fieldFromText(texts[field]))));

  const doc: IndexedDocument = {
    docId: 0,
    type: file.type,
    space: file.space.name,
    id: file.itemId,
    path: file.path,
    mtimeMs: file.mtimeMs,
    size: file.size,
    name,
    description,
    category,
    version: summary?.version ?? null,
    signed: extractSignature(raw, file.type).status === "signed",
    preview: previewOf(parsed, content),
    data,
  };
  if (summary?.title) doc.title = summary.title;
  if (parseError !== undefined) doc.parseError = parseError;
  return doc;
}
