/**
 * The items an item says it uses (issue #17, "relations between items"), read from its own signed bytes:
 * - a directive: every `<execute>` / `<load>` of a tool, knowledge entry or directive, in its body or in a
 *   `<hooks>` action, by `item_type` + `item_id` (`id@1.2.0` asks for that version);
 * - a tool: its `executor_id`, the next element of its executor chain (tool → runtime → primitive).
 * `<permissions>` grant (with wildcards) and are not uses; `<search>` and `<sign>` name no dependency. An id that
 * is interpolated at run time (`{input:…}`, `${…}`) or is not a valid item id names nothing fixed: skipped.
 */
import { RyeError } from "../errors.ts";
import type { ItemType } from "../item-types.ts";
import { isItemType, validateItemId } from "../item-types.ts";
import { isSemver } from "../semver.ts";
import type { ParsedItem } from "../validate/item.ts";

/** How an item uses another: a directive runs a tool or directive / loads knowledge, a tool names its executor. */
export const REFERENCE_KINDS = ["execute", "load", "executor"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export interface ItemReference {
  kind: ReferenceKind;
  type: ItemType;
  /** The id as the item writes it (a registry id, or a local/system id such as rye/core/runtimes/node). */
  id: string;
  /** An exact version the item asks for (`item_id="acme/tools/x@1.2.0"`). */
  version?: string;
}

/** At most this many distinct references per item version; more is refused at publish (VALIDATION_FAILED). */
export const MAX_REFERENCES_PER_ITEM = 64;

const DYNAMIC = /[{}$]/;

function referenceFrom(kind: ReferenceKind, rawType: unknown, rawId: unknown): ItemReference | null {
  if (typeof rawId !== "string" || !isItemType(rawType)) return null;
  const text = rawId.trim();
  if (text === "" || DYNAMIC.test(text)) return null;
  const at = text.lastIndexOf("@");
  const id = at > text.lastIndexOf("/") && at > 0 ? text.slice(0, at) : text;
  const version = id === text ? undefined : text.slice(at + 1);
  if (validateItemId(id) !== null || (version !== undefined && !isSemver(version))) return null;
  return { kind, type: rawType, id, ...(version ? { version } : {}) };
}

/** The references of a parsed item, each (type, id) once, in the order the item names them. */
export function itemReferences(parsed: ParsedItem): ItemReference[] {
  const found: (ItemReference | null)[] = [];
  if (parsed.type === "directive") {
    for (const action of parsed.metadata.actions) {
      if (action.primary === "execute" || action.primary === "load") found.push(referenceFrom(action.primary, action.attrs.item_type, action.attrs.item_id));
    }
    for (const hook of parsed.metadata.hook_rules) {
      const action = hook.action;
      if (action && "primary" in action && (action.primary === "execute" || action.primary === "load")) found.push(referenceFrom(action.primary, action.item_type, action.item_id));
    }
  } else if (parsed.type === "tool") {
    found.push(referenceFrom("executor", "tool", parsed.summary.executorId));
  }
  const seen = new Set<string>();
  const out: ItemReference[] = [];
  for (const ref of found) {
    if (!ref) continue;
    const key = `${ref.type}:${ref.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ref);
  }
  return out;
}

/** `itemReferences`, refusing more than MAX_REFERENCES_PER_ITEM (the registry's publish check). */
export function boundedItemReferences(parsed: ParsedItem): ItemReference[] {
  const refs = itemReferences(parsed);
  if (refs.length > MAX_REFERENCES_PER_ITEM) {
    throw new RyeError("VALIDATION_FAILED", `The ${parsed.type} uses ${refs.length} items; at most ${MAX_REFERENCES_PER_ITEM} are allowed`, {
      hint: "Split it into smaller directives that each use fewer items.",
      details: [{ field: "actions", message: `${refs.length} distinct references (limit ${MAX_REFERENCES_PER_ITEM})` }],
    });
  }
  return refs;
}

/**
 * Registry ids a reference may name, in the order rye tries them: the id itself when it has the three segments
 * of a registry id, then the system bundle's copy (`rye/<id>`: the registry publishes rye's own items there).
 */
export const SYSTEM_REGISTRY_NAMESPACE = "rye";
export function registryCandidates(id: string): string[] {
  const out: string[] = [];
  if (id.split("/").length >= 3) out.push(id);
  if (!id.startsWith(`${SYSTEM_REGISTRY_NAMESPACE}/${SYSTEM_REGISTRY_NAMESPACE}/`)) out.push(`${SYSTEM_REGISTRY_NAMESPACE}/${id}`);
  return [...new Set(out)];
}
