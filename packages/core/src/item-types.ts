import { RyeError } from "./errors.ts";

export const ITEM_TYPES = ["directive", "tool", "knowledge"] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export function isItemType(value: unknown): value is ItemType {
  return typeof value === "string" && (ITEM_TYPES as readonly string[]).includes(value);
}

export function assertItemType(value: unknown): ItemType {
  if (!isItemType(value)) {
    throw new RyeError("INVALID_ITEM_TYPE", `Unknown item type ${JSON.stringify(value)}`);
  }
  return value;
}

/** Folder of each type under `.ai/` (knowledge is singular, as in the original). */
export const TYPE_FOLDERS: Readonly<Record<ItemType, string>> = {
  directive: "directives",
  tool: "tools",
  knowledge: "knowledge",
};

/**
 * Tool file extensions in resolution order: when several files share a stem, the first extension in
 * this list wins. The order is fixed (the original's was random).
 */
export const TOOL_EXTENSIONS = [".py", ".yaml", ".yml", ".js", ".mjs", ".cjs", ".ts", ".mts", ".sh"] as const;
export const DOCUMENT_EXTENSIONS = [".md"] as const;

/** JS-family tools carry `//` comments; every other tool file uses `#`. */
export const SLASH_COMMENT_EXTENSIONS: readonly string[] = [".js", ".mjs", ".cjs", ".ts", ".mts"];

export function extensionsFor(type: ItemType): readonly string[] {
  return type === "tool" ? TOOL_EXTENSIONS : DOCUMENT_EXTENSIONS;
}

/** `.yaml` of `a/b.c.yaml`; "" when there is none. */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

export function stemOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

export const MAX_ITEM_ID_LENGTH = 256;
export const MAX_ITEM_ID_SEGMENTS = 32;
const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Checks a local item id (`rye/core/runtimes/node`): slash-separated segments of letters, digits, `_`,
 * `-` and `.`, never starting with `.`, so no id can name `..`, a hidden file, an absolute path or NUL.
 */
export function validateItemId(id: unknown): string | null {
  if (typeof id !== "string" || id.length === 0) return "item id must be a non-empty string";
  if (id.length > MAX_ITEM_ID_LENGTH) return `item id is longer than ${MAX_ITEM_ID_LENGTH} characters`;
  const segments = id.split("/");
  if (segments.length > MAX_ITEM_ID_SEGMENTS) return `item id has more than ${MAX_ITEM_ID_SEGMENTS} segments`;
  for (const segment of segments) {
    if (!SEGMENT_RE.test(segment)) {
      return `invalid segment ${JSON.stringify(segment)}: use letters, digits, '_', '-' and '.', not starting with '.'`;
    }
  }
  return null;
}

export function assertItemId(id: unknown): string {
  const problem = validateItemId(id);
  if (problem) throw new RyeError("INVALID_ITEM_ID", `Invalid item id ${JSON.stringify(id)}: ${problem}`);
  return id as string;
}

/** Category of a local item id: its folders (`""` at the root). */
export function categoryOfItemId(id: string): string {
  const slash = id.lastIndexOf("/");
  return slash < 0 ? "" : id.slice(0, slash);
}

export function nameOfItemId(id: string): string {
  return id.slice(id.lastIndexOf("/") + 1);
}

export interface RegistryItemRef {
  namespace: string;
  category: string;
  name: string;
  /** `namespace/category/name` */
  id: string;
}

const NAMESPACE_RE = /^[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$/;

/** Namespaces are lowercase `[a-z0-9-]`, 1–39 characters, no leading or trailing `-`. */
export function validateNamespace(ns: string): string | null {
  return NAMESPACE_RE.test(ns) ? null : "namespace must be 1-39 lowercase letters, digits or '-' (not at the ends)";
}

/** A namespace as given (any case), lowercased; INVALID_ITEM_ID unless it is one. */
export function parseNamespace(ns: string): string {
  const namespace = ns.toLowerCase();
  const problem = validateNamespace(namespace);
  if (problem) throw new RyeError("INVALID_ITEM_ID", `Invalid namespace ${JSON.stringify(ns)}: ${problem}`);
  return namespace;
}

/** Registry ids are `namespace/category…/name` with at least three segments (rye-format §6.4). */
export function parseRegistryItemId(id: unknown): RegistryItemRef {
  const problem = validateItemId(id);
  if (problem) throw new RyeError("INVALID_ITEM_ID", `Invalid item id ${JSON.stringify(id)}: ${problem}`);
  const segments = (id as string).split("/");
  if (segments.length < 3) {
    throw new RyeError("INVALID_ITEM_ID", `Registry item id ${JSON.stringify(id)} needs at least three segments`, {
      hint: "Use namespace/category/name, e.g. alice/tools/greet.",
    });
  }
  const namespace = parseNamespace(segments[0]!);
  const name = segments[segments.length - 1]!;
  const category = segments.slice(1, -1).join("/");
  return { namespace, category, name, id: [namespace, ...segments.slice(1)].join("/") };
}

/**
 * Infers the item type of a file: from a `.ai/<type folder>/` path segment first, then from the
 * extension and, for markdown, the content (a ```xml fence holding `<directive` means directive).
 */
export function inferItemType(path: string, content?: string): ItemType | null {
  const normalized = path.replace(/\\/g, "/");
  for (const type of ITEM_TYPES) {
    if (normalized.includes(`.ai/${TYPE_FOLDERS[type]}/`)) return type;
  }
  const ext = extensionOf(normalized);
  if ((TOOL_EXTENSIONS as readonly string[]).includes(ext)) return "tool";
  if (ext === ".md") {
    if (content === undefined) return null;
    return /^```xml[ \t]*$/m.test(content) && content.includes("<directive") ? "directive" : "knowledge";
  }
  return null;
}

/**
 * Location of a file inside `.ai/<type folder>/`: its item id and category. `null` when the path is not
 * inside such a folder.
 */
export function locateInAiTree(path: string, type: ItemType): { itemId: string; category: string } | null {
  const normalized = path.replace(/\\/g, "/");
  const marker = `.ai/${TYPE_FOLDERS[type]}/`;
  const at = normalized.lastIndexOf(marker);
  if (at < 0 || (at > 0 && normalized[at - 1] !== "/")) return null;
  const rel = normalized.slice(at + marker.length);
  const ext = extensionOf(rel);
  const itemId = ext ? rel.slice(0, -ext.length) : rel;
  return { itemId, category: categoryOfItemId(itemId) };
}
