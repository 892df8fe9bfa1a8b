/**
 * One indexed item file: display fields, flags and per-field token positions (see field-data.ts). A
 * file that cannot be parsed is still indexed from its id, name and text, with `parseError` set.
 */
import type { ItemType, ParsedItem } from "@rye/core";
import { categoryOfItemId, extractSignature, nameOfItemId, parseItem, stripSignature, utf8Decode } from "@rye/core";
import type { SpaceName } from "../spaces/spaces.ts";
import type { FieldData, FieldTokens } from "./field-data.ts";
import { packFields } from "./field-data.ts";
import type { IndexField } from "./fields.ts";
import type { ScannedFile } from "./scan.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { Token } from "./tokenize.ts";
import { tokenize } from "./tokenize.ts";

/** Indexed text per file; the rest of a longer file is not searchable. */
export const MAX_CONTENT_CHARS = 64 * 1024;
/** Larger files are not read at all: indexed by id and name only. */
export const MAX_FILE_BYTES = 1024 * 1024;
const PREVIEW_CHARS = 200;

/** What a hit shows; read only for the hits of a page (a stored index decodes it lazily). */
export interface DocumentDisplay {
  name: string;
  title?: string;
  description: string;
  version: string | null;
  signed: boolean;
  preview: string;
  parseError?: string;
}

export interface IndexedDocument {
  /** Assigned when the document enters a segment index; unique in the process. */
  docId: number;
  type: ItemType;
  space: SpaceName;
  id: string;
  path: string;
  mtimeMs: number;
  size: number;
  ctimeMs: number;
  ino: number;
  category: string;
  data: FieldData;
  readonly display: DocumentDisplay;
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

/**
 * The item's own description. A knowledge summary falls back to the title, which would count the
 * title twice in ranking and make a poor preview.
 */
function ownDescription(parsed: ParsedItem | null): string {
  if (parsed?.type === "knowledge") {
    const own = parsed.metadata.frontmatter.description;
    return typeof own === "string" ? own : "";
  }
  return parsed?.summary.description ?? "";
}

function previewOf(parsed: ParsedItem | null, content: string): string {
  const source = oneLine(ownDescription(parsed)) || oneLine(parsed ? bodyOf(parsed) : "") || oneLine(content);
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
export function buildDocument(file: ScannedFile, bytes: Uint8Array | null, unreadReason?: string): IndexedDocument {
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
    description: ownDescription(parsed),
    category,
    content,
    id: file.itemId,
    type: file.type,
    space: file.space.name,
    version: summary?.version,
    tool_type: summary?.toolType,
    author: summary?.author,
  };
  const data = packFields(INDEX_FIELDS.map((field) => (field === "tags" ? fieldFromTags(summary?.tags ?? []) : fieldFromText(texts[field]))));

  const display: DocumentDisplay = {
    name,
    description,
    version: summary?.version ?? null,
    signed: extractSignature(raw, file.type).status === "signed",
    preview: previewOf(parsed, content),
  };
  if (summary?.title) display.title = summary.title;
  if (parseError !== undefined) display.parseError = parseError;
  return { docId: 0, type: file.type, space: file.space.name, id: file.itemId, path: file.path, mtimeMs: file.mtimeMs, size: file.size, ctimeMs: file.ctimeMs, ino: file.ino, category, data, display };
}
