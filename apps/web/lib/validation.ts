/**
 * Live validation of an item before it is published from the browser: the same `@rye/core` parser and
 * validators the registry runs on POST /v1/push (services/publish.ts) and the CLI runs on `rye push`,
 * plus the registry id rules (namespace/category/name) and the namespaces this person may publish to.
 * Pure and synchronous: safe to call on every (debounced) keystroke, in the browser or on the server.
 */
import {
  extensionOf,
  inferItemType,
  type ItemType,
  parseItem,
  parseRegistryItemId,
  RyeError,
  stemOf,
  stripSignature,
  TOOL_EXTENSIONS,
  type ValidationIssue,
} from "@rye/core";

export type { ValidationIssue } from "@rye/core";

export interface DraftInput {
  type: ItemType;
  content: string;
  /** The file's name (`deploy.md`, `greet.py`): required for tools, whose extension picks the format and whose stem is the name. */
  fileName?: string;
  /** The namespace chosen to publish under. */
  namespace: string;
  /** Namespaces the signed-in person may publish to (their username and their organizations). */
  allowedNamespaces: readonly string[];
}

export interface DraftResult {
  ok: boolean;
  /** Problems that block publishing: `field` is the item's metadata field ("" for the whole item). */
  issues: ValidationIssue[];
  /** Non-blocking notes from the parser. */
  warnings: string[];
  /** `namespace/category/name`, when it can be derived. */
  itemId: string | null;
  name: string | null;
  category: string | null;
  version: string | null;
  description: string | null;
  /** The file extension sent to the registry (tools), e.g. `.py`; `.md` for documents. */
  extension: string;
}

const TOOL_EXTENSION_LIST = TOOL_EXTENSIONS.join(" ");

/** The extension a tool file name carries, or "" when it has none of the supported ones. */
export function toolExtensionOf(fileName: string): string {
  const ext = extensionOf(fileName);
  return (TOOL_EXTENSIONS as readonly string[]).includes(ext) ? ext : "";
}

/** The item type a dropped file most likely is (extension, then content), or null. */
export function guessItemType(fileName: string, content: string): ItemType | null {
  return inferItemType(fileName, content);
}

export function validateDraft(input: DraftInput): DraftResult {
  const issues: ValidationIssue[] = [];
  const result: DraftResult = { ok: false, issues, warnings: [], itemId: null, name: null, category: null, version: null, description: null, extension: ".md" };
  const fileName = input.fileName?.trim() ?? "";

  if (input.content.trim() === "") {
    issues.push({ field: "", message: "Paste the item or upload its file" });
    return result;
  }

  let path: string | undefined;
  if (input.type === "tool") {
    const ext = toolExtensionOf(fileName);
    if (!fileName) issues.push({ field: "file name", message: `A tool needs its file name (e.g. greet.py): the extension picks the format (${TOOL_EXTENSION_LIST})` });
    else if (!ext) issues.push({ field: "file name", message: `Unsupported tool file extension ${JSON.stringify(extensionOf(fileName) || fileName)}: use one of ${TOOL_EXTENSION_LIST}` });
    if (!ext) return result;
    result.extension = ext;
    path = fileName;
  } else if (fileName && extensionOf(fileName) !== ".md") {
    issues.push({ field: "file name", message: `${input.type === "directive" ? "Directives" : "Knowledge entries"} are markdown files (.md)` });
  }

  let parsed: ReturnType<typeof parseItem>;
  try {
    // The registry validates the content without its signature line, with the name from the file (tools) and the category from the id.
    parsed = parseItem(stripSignature(input.content, input.type), input.type, path ? { path } : {});
  } catch (err) {
    issues.push({ field: "", message: err instanceof RyeError || err instanceof Error ? err.message : String(err) });
    return result;
  }
  result.warnings = parsed.warnings;
  for (const issue of parsed.issues) issues.push(issue);

  const summary = parsed.summary;
  const name = input.type === "tool" ? stemOf(fileName) : summary.name || null;
  result.name = name;
  result.category = summary.category ?? null;
  result.version = summary.version ?? null;
  result.description = summary.description ?? null;
  if (input.type === "tool" && summary.name && name && summary.name !== name) {
    issues.push({ field: "name", message: `The tool name is its file name: ${JSON.stringify(name)}` });
  }

  const namespace = input.namespace.trim().toLowerCase();
  if (!namespace) issues.push({ field: "namespace", message: "Choose the namespace to publish under" });
  else if (!input.allowedNamespaces.includes(namespace)) {
    issues.push({ field: "namespace", message: `You cannot publish to ${namespace}: use your username or an organization you belong to` });
  }

  const category = result.category ?? "";
  if (name && namespace) {
    if (category === "" && !issues.some((i) => i.field === "category")) {
      issues.push({ field: "category", message: "Registry ids are namespace/category/name: set a category (e.g. notes, tools/text)" });
    } else if (category !== "") {
      try {
        result.itemId = parseRegistryItemId([namespace, category, name].join("/")).id;
      } catch (err) {
        issues.push({ field: "id", message: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  result.ok = issues.length === 0 && result.itemId !== null && result.version !== null;
  return result;
}
