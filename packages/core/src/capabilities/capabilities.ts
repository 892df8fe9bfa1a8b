/**
 * Capabilities of an agent thread: strings `rye.<primary>.<item type>.<item id pattern>` (rye-format §11),
 * derived from a directive's `<permissions>`. They are fail-closed: no capability allows nothing, and a
 * string that does not parse grants nothing.
 *
 * Forms (each may be written with `.` or `/` between id segments; both are the same separator):
 * - `rye.*`: everything;
 * - `rye.<primary>` or `rye.<primary>.*`: every item of every type for that primary action;
 * - `rye.<primary>.<type>` or `rye.<primary>.<type>.*`: every item of that type;
 * - `rye.<primary>.<type>.<pattern>`: ids matching the pattern, segment by segment: `*` and `?` match within
 *   one segment (`fs_*`), a lone `*` segment matches exactly one segment, and a lone `*` at the end matches
 *   one or more (`rye.file-system.*` covers `rye/file-system/fs_read` and `rye/file-system/sub/x`).
 *
 * Implication: `execute` grants `search` and `load` of the same items, `sign` grants `load`.
 * A search targets a type, not an item: it is allowed when any capability of that primary covers the type;
 * a capability with an id pattern limits which hits may be returned (`searchFilter`).
 */
import type { ItemType } from "../item-types.ts";
import { ITEM_TYPES, validateItemId } from "../item-types.ts";

export const PRIMARIES = ["execute", "search", "load", "sign"] as const;
export type Primary = (typeof PRIMARIES)[number];

/** What each primary action implies. */
export const IMPLIES: Readonly<Record<Primary, readonly Primary[]>> = { execute: ["search", "load"], sign: ["load"], search: [], load: [] };

export interface Capability {
  /** `*` = every primary. */
  primary: Primary | "*";
  /** `*` = every type. */
  itemType: ItemType | "*";
  /** Id pattern segments; null = every id. */
  pattern: string[] | null;
}

const SEGMENT_RE = /^[A-Za-z0-9_.*?-]+$/;

function isPrimary(value: string): value is Primary {
  return (PRIMARIES as readonly string[]).includes(value);
}

function isItemType(value: string): value is ItemType {
  return (ITEM_TYPES as readonly string[]).includes(value);
}

/** Splits an id or pattern on `/` and `.` (the two separators are the same). */
function segments(text: string): string[] {
  return text.split(/[./]/);
}

/** A capability string → its parts, or null when it does not parse (it then grants nothing). */
export function parseCapability(text: string): Capability | null {
  if (typeof text !== "string" || text.length > 512) return null;
  const trimmed = text.trim();
  if (trimmed === "rye.*" || trimmed === "rye") return { primary: "*", itemType: "*", pattern: null };
  const m = /^rye\.([a-z]+)(?:\.([a-z]+|\*)(?:[./](.+))?)?$/.exec(trimmed);
  if (!m) return null;
  const [, primary, type, rest] = m;
  if (!isPrimary(primary!)) return null;
  if (type === undefined || type === "*") return rest === undefined ? { primary: primary!, itemType: "*", pattern: null } : null;
  if (!isItemType(type)) return null;
  if (rest === undefined || rest === "*") return { primary: primary!, itemType: type, pattern: null };
  const parts = segments(rest);
  if (parts.some((p) => p === "" || !SEGMENT_RE.test(p) || p === ".." || p === ".")) return null;
  return { primary: primary!, itemType: type, pattern: parts };
}

/** The canonical string of a capability (ids with `.` between segments). */
export function formatCapability(cap: Capability): string {
  if (cap.primary === "*") return "rye.*";
  if (cap.itemType === "*") return `rye.${cap.primary}.*`;
  if (!cap.pattern) return `rye.${cap.primary}.${cap.itemType}.*`;
  return `rye.${cap.primary}.${cap.itemType}.${cap.pattern.join(".")}`;
}

function globSegment(pattern: string, value: string): boolean {
  if (!pattern.includes("*") && !pattern.includes("?")) return pattern === value;
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]")}$`);
  return re.test(value);
}

/** Whether an id pattern covers an id (both as segments). */
function patternCovers(pattern: string[], id: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const last = i === pattern.length - 1;
    if (last && p === "*") return id.length >= pattern.length;
    if (i >= id.length || !globSegment(p, id[i]!)) return false;
  }
  return id.length === pattern.length;
}

/** Whether id pattern `a` covers every id pattern `b` covers (conservative: false when unsure). */
function patternCoversPattern(a: string[] | null, b: string[] | null): boolean {
  if (a === null) return true;
  if (b === null) return false;
  for (let i = 0; i < a.length; i++) {
    const p = a[i]!;
    if (i === a.length - 1 && p === "*") return b.length >= a.length;
    if (i >= b.length) return false;
    const q = b[i]!;
    if (/[*?]/.test(q)) {
      // A lone `*` ending `b` stands for one or more segments: only a lone `*` ending `a` covers it (above).
      if (i === b.length - 1 && q === "*") return false;
      if (p !== "*" && p !== q) return false;
    } else if (!globSegment(p, q)) return false;
  }
  return b.length === a.length;
}

/** `primary` and its implications: a capability for `execute` also grants `search` and `load`. */
function grantedPrimaries(cap: Capability): Set<Primary> {
  if (cap.primary === "*") return new Set(PRIMARIES);
  return new Set([cap.primary, ...IMPLIES[cap.primary]]);
}

/** Whether one capability allows `primary` on an item of `itemType` with id `itemId` (ids must be valid). */
export function capabilityAllows(cap: Capability, primary: Primary, itemType: ItemType, itemId?: string): boolean {
  if (!grantedPrimaries(cap).has(primary)) return false;
  if (cap.itemType !== "*" && cap.itemType !== itemType) return false;
  if (primary === "search" && itemId === undefined) return true;
  if (cap.pattern === null) return true;
  if (itemId === undefined) return false;
  return patternCovers(cap.pattern, segments(itemId));
}

/** The capability string an action needs (what a denial names). */
export function requiredCapability(primary: Primary, itemType: ItemType, itemId?: string): string {
  return itemId === undefined ? `rye.${primary}.${itemType}` : `rye.${primary}.${itemType}.${segments(itemId).join(".")}`;
}

export interface CapabilityDecision {
  allowed: boolean;
  /** The capability the action needs. */
  required: string;
  /** Why it was denied (for the model and the transcript). */
  reason?: string;
}

/** Checks an action against a capability list. Invalid item ids are always denied (no traversal past a pattern). */
export function checkCapability(capabilities: readonly string[], primary: Primary, itemType: ItemType, itemId?: string): CapabilityDecision {
  if (itemId !== undefined) {
    const problem = validateItemId(itemId);
    if (problem) return { allowed: false, required: `rye.${primary}.${itemType}.?`, reason: `invalid item id ${JSON.stringify(itemId)}: ${problem}` };
  }
  const required = requiredCapability(primary, itemType, itemId);
  if (capabilities.length === 0) return { allowed: false, required, reason: `no capabilities: this thread may not ${primary} anything (its directive declares no <permissions>)` };
  const parsed = capabilities.map(parseCapability).filter((c): c is Capability => c !== null);
  if (parsed.some((c) => capabilityAllows(c, primary, itemType, itemId))) return { allowed: true, required };
  return { allowed: false, required, reason: `${required} is not covered by the thread's capabilities [${capabilities.join(", ")}]` };
}

/** For an allowed search: whether a hit with this id may be shown (a capability with an id pattern limits hits). */
export function searchFilter(capabilities: readonly string[], itemType: ItemType): (itemId: string) => boolean {
  const caps = capabilities.map(parseCapability).filter((c): c is Capability => c !== null && grantedPrimaries(c).has("search") && (c.itemType === "*" || c.itemType === itemType));
  if (caps.some((c) => c.pattern === null)) return () => true;
  return (itemId) => validateItemId(itemId) === null && caps.some((c) => patternCovers(c.pattern!, segments(itemId)));
}

/** One capability per primary action it grants (`rye.execute.tool.x` → execute, search and load of `x`). */
export function expandCapability(cap: Capability): Capability[] {
  return [...grantedPrimaries(cap)].map((primary) => ({ ...cap, primary }));
}

/** Whether single-primary capability `a` allows everything single-primary `b` allows. */
function covers(a: Capability, b: Capability): boolean {
  if (a.primary !== b.primary) return false;
  if (a.itemType !== "*" && a.itemType !== b.itemType) return false;
  return patternCoversPattern(a.pattern, b.pattern);
}

/**
 * The capabilities a child may use: what both it and its parent allow, one primary action per entry.
 * Computed conservatively (never wider than the true intersection): each side is expanded by its
 * implications, then a child entry is kept when a parent entry covers it and a parent entry when a child
 * entry covers it; partial overlaps (`a.*.x` against `a.y.*`) are dropped.
 */
export function intersectCapabilities(child: readonly string[], parent: readonly string[]): string[] {
  const expand = (list: readonly string[]) => list.map(parseCapability).filter((x): x is Capability => x !== null).flatMap(expandCapability);
  const c = expand(child);
  const p = expand(parent);
  const out = new Set<string>();
  for (const cc of c) if (p.some((pp) => covers(pp, cc))) out.add(formatCapability(cc));
  for (const pp of p) if (c.some((cc) => covers(cc, pp))) out.add(formatCapability(pp));
  return [...out].sort();
}

/**
 * The capabilities of `child` that no capability of `parent` covers (empty: `child` is within `parent`).
 * Conservative like the intersection: an entry that only partly overlaps a parent entry counts as wider.
 * An entry that does not parse counts as wider too (fail-closed).
 */
export function capabilitiesBeyond(child: readonly string[], parent: readonly string[]): string[] {
  const p = parent.map(parseCapability).filter((x): x is Capability => x !== null).flatMap(expandCapability);
  const beyond: string[] = [];
  for (const text of child) {
    const cap = parseCapability(text);
    if (!cap || !expandCapability(cap).every((cc) => p.some((pp) => covers(pp, cc)))) beyond.push(text);
  }
  return beyond;
}
