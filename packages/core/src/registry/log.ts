/** The publish log is a hash chain: each entry commits to the previous one. */
import { canonicalJson } from "../canonical-json.ts";
import { sha256Hex } from "../hash.ts";
import { utf8Encode } from "../text.ts";

export const LOG_GENESIS_HASH = "0".repeat(64);

export interface LogEntryInput {
  index: number;
  kind: string;
  payload: unknown;
  prev_hash: string;
}

export function logEntryHash(entry: LogEntryInput): string {
  return sha256Hex(canonicalJson({ index: entry.index, kind: entry.kind, payload: entry.payload, prev_hash: entry.prev_hash }));
}

/** Checks a contiguous run of entries (each `entry_hash` recomputed and chained). Returns the first bad index or null. */
export function verifyLogChain(entries: (LogEntryInput & { entry_hash: string })[], startPrevHash: string): number | null {
  let prev = startPrevHash;
  for (const entry of entries) {
    if (entry.prev_hash !== prev || logEntryHash(entry) !== entry.entry_hash) return entry.index;
    prev = entry.entry_hash;
  }
  return null;
}

/**
 * The Merkle tree's leaf for a log entry (docs/transparency.md): the UTF-8 canonical JSON of `{index, kind, payload}`,
 * so a leaf names its own position and carries everything the entry says (for a publish: item type and id,
 * version, file and content hashes, publisher). The hash chain's `prev_hash` is left out: the tree orders entries.
 */
export function logLeaf(entry: { index: number; kind: string; payload: unknown }): Uint8Array {
  return utf8Encode(canonicalJson({ index: entry.index, kind: entry.kind, payload: entry.payload }));
}
