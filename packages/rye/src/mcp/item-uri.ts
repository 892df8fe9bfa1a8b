/**
 * The `rye://` URIs of items served as MCP resources: `rye://<type>/<id>` with `<type>` one of directive, tool,
 * knowledge and `<id>` the item id (its slashes kept, each segment percent-encoded), optionally `@<version>` for
 * a registry item (`rye://knowledge/acme/guides/setup@1.2.0`). A URI is parsed strictly: an unknown type, a
 * traversal or a malformed id is refused before anything is looked up.
 */
import type { ItemType } from "@rye/core";
import { assertItemId, ITEM_TYPES, RyeError } from "@rye/core";
import { parseRemoteRef } from "../registry/resolve-remote.ts";

export const ITEM_SCHEME = "rye://";
/** The resource template of any item, local or from a registry (RFC 6570: `{+id}` keeps the slashes). */
export const ITEM_URI_TEMPLATE = `${ITEM_SCHEME}{type}/{+id}`;

export const itemUri = (type: ItemType, id: string): string => `${ITEM_SCHEME}${type}/${id.split("/").map(encodeURIComponent).join("/")}`;

const isItemType = (value: string): value is ItemType => (ITEM_TYPES as readonly string[]).includes(value);

/** `rye://knowledge/rye/core/item-formats` → `{ type: "knowledge", id: "rye/core/item-formats" }` (id may end in `@version`). */
export function parseItemUri(uri: string): { type: ItemType; id: string } {
  if (!uri.startsWith(ITEM_SCHEME)) throw new RyeError("BAD_REQUEST", `${JSON.stringify(uri)} is not a rye:// URI`, { hint: "Item resources look like rye://<type>/<id>, e.g. rye://knowledge/rye/core/item-formats." });
  const rest = uri.slice(ITEM_SCHEME.length).replace(/[?#].*$/s, "");
  const slash = rest.indexOf("/");
  const type = slash < 0 ? rest : rest.slice(0, slash);
  if (!isItemType(type)) throw new RyeError("INVALID_ITEM_TYPE", `${JSON.stringify(type)} in ${uri} is not an item type`, { hint: `Use rye://<type>/<id> with <type> one of ${ITEM_TYPES.join(", ")}.` });
  const segments = (slash < 0 ? "" : rest.slice(slash + 1)).split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new RyeError("BAD_REQUEST", `${uri} is not a valid URI (bad percent-encoding)`);
    }
  });
  if (segments.some((s) => s.includes("/") || s.includes("\\"))) throw new RyeError("PATH_TRAVERSAL", `${uri} hides a path separator in an encoded segment`, { hint: "Item ids are slash-separated names; do not percent-encode the slashes." });
  const id = segments.join("/");
  // The same rules as load: a valid id (no `..`, no empty segments), and a valid version when one is given.
  assertItemId(parseRemoteRef(id).id);
  return { type, id };
}

const MIME_BY_EXTENSION: Record<string, string> = {
  ".md": "text/markdown",
  ".py": "text/x-python",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".ts": "text/typescript",
  ".mts": "text/typescript",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".json": "application/json",
  ".sh": "application/x-sh",
  ".toml": "application/toml",
};

/** The MIME type of an item file by its extension (text/plain when unknown: items are always text). */
export function itemMimeType(extension: string): string {
  return MIME_BY_EXTENSION[extension.toLowerCase()] ?? "text/plain";
}
