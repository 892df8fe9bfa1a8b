/**
 * Which log entries of a namespace the monitor reports: a public publish (or approval) of an item or bundle of the
 * namespace signed by a key outside the allowed set, unsigned, published by a user or credential outside the
 * allowed sets (when given), or logged without saying who published it with what (an entry from before the registry
 * logged `author_key`). Private and held publishes are logged as a digest: the monitor cannot see them.
 */

export const FINDING_REASONS = ["unregistered_key", "unsigned", "unattributed", "unknown_publisher", "unknown_credential"] as const;
export type FindingReason = (typeof FINDING_REASONS)[number];

export interface Finding {
  index: number;
  /** publish or approve. */
  kind: string;
  /** `<item_type> <id>` (`bundle <id>` for a bundle). */
  item: string;
  version: string | null;
  author_key: string | null;
  /** `{ via, token_id | session_id }` as logged, or null when the entry names none. */
  credential: Record<string, unknown> | null;
  publisher: string | null;
  /** The first of `reasons`, in the order of FINDING_REASONS. */
  reason: FindingReason;
  reasons: FindingReason[];
}

export interface AllowedSet {
  keys: ReadonlySet<string>;
  /** Empty: publishers are not checked. */
  publishers: ReadonlySet<string>;
  /** Empty: credentials are not checked. */
  credentials: ReadonlySet<string>;
}

export interface LogEntry {
  index: number;
  kind: string;
  payload: Record<string, unknown>;
}

const CHECKED_KINDS = new Set(["publish", "approve"]);

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The credential's public id: a token's id or a session's id (null for the registry itself or when absent). */
export function credentialId(credential: Record<string, unknown> | null): string | null {
  if (!credential) return null;
  return text(credential.token_id) ?? text(credential.session_id);
}

/** True when the entry is a public publish or approval of an item or bundle of `namespace`. */
export function inNamespace(entry: LogEntry, namespace: string): boolean {
  const p = entry.payload;
  if (!CHECKED_KINDS.has(entry.kind) || p.private === true || (p.kind !== "item" && p.kind !== "bundle")) return false;
  const id = text(p.id);
  return id !== null && id.toLowerCase().startsWith(`${namespace}/`);
}

/** The finding for `entry`, or null when it is not in the namespace or everything about it is allowed. */
export function findingFor(entry: LogEntry, namespace: string, allowed: AllowedSet): Finding | null {
  if (!inNamespace(entry, namespace)) return null;
  const p = entry.payload;
  const reasons = new Set<FindingReason>();
  const authorKey = text(p.author_key);
  if (!("author_key" in p)) reasons.add("unattributed");
  else if (authorKey === null) reasons.add("unsigned");
  else if (!allowed.keys.has(authorKey)) reasons.add("unregistered_key");
  const publisher = text(p.publisher);
  // An approval names its approver (`actor`), not the publisher; its publish entry, a digest, named them.
  if (allowed.publishers.size > 0 && entry.kind === "publish" && (publisher === null || !allowed.publishers.has(publisher))) reasons.add("unknown_publisher");
  const credential = p.credential !== null && typeof p.credential === "object" && !Array.isArray(p.credential) ? (p.credential as Record<string, unknown>) : null;
  if (allowed.credentials.size > 0 && entry.kind === "publish") {
    const id = credentialId(credential);
    if (id === null || !allowed.credentials.has(id)) reasons.add("unknown_credential");
  }
  if (reasons.size === 0) return null;
  const ordered = FINDING_REASONS.filter((r) => reasons.has(r));
  return {
    index: entry.index,
    kind: entry.kind,
    item: p.kind === "bundle" ? `bundle ${text(p.id)}` : `${text(p.item_type) ?? "item"} ${text(p.id)}`,
    version: text(p.version),
    author_key: authorKey,
    credential,
    publisher,
    reason: ordered[0]!,
    reasons: ordered,
  };
}
