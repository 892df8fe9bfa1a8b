/**
 * The publish log as an RFC 6962 (RFC 9162 §2.1) Merkle tree: leaf hash SHA-256(0x00 ‖ leaf), node hash
 * SHA-256(0x01 ‖ left ‖ right), audit paths and consistency proofs, and their verification.
 *
 * Hashes are read through a `NodeReader`: the hash of the perfect subtree at (level, index), i.e. of leaves
 * [index·2^level, (index+1)·2^level). A server answers it from its stored tiles (merkle-tiles.ts), a test from an
 * array of leaf hashes. The proof functions list the ranges they need first (`*Ranges`), so a caller can fetch every
 * tile at once, then hash.
 */
import { sha256Bytes } from "../hash.ts";
import { concatBytes } from "../text.ts";

export const HASH_SIZE = 32;
/** Tree sizes and indexes stay exact JavaScript integers. */
export const MAX_TREE_SIZE = Number.MAX_SAFE_INTEGER;

export type NodeReader = (level: number, index: number) => Uint8Array;

/** A subtree [lo, hi) of the leaves. */
export interface Range {
  lo: number;
  hi: number;
}

export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256Bytes(concatBytes(Uint8Array.of(0), leaf));
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256Bytes(concatBytes(Uint8Array.of(1), left, right));
}

/** The hash of the empty tree: SHA-256 of nothing. */
export function emptyTreeHash(): Uint8Array {
  return sha256Bytes(new Uint8Array(0));
}

/** The largest power of two smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/** The perfect subtrees MTH(D[lo:hi]) is built from, left to right, as (level, index). */
export function perfectSubtrees(range: Range): { level: number; index: number }[] {
  const n = range.hi - range.lo;
  if (n <= 0) throw new RangeError(`empty range [${range.lo}, ${range.hi})`);
  if (isPowerOfTwo(n) && range.lo % n === 0) return [{ level: Math.round(Math.log2(n)), index: range.lo / n }];
  const k = splitPoint(n);
  return [...perfectSubtrees({ lo: range.lo, hi: range.lo + k }), ...perfectSubtrees({ lo: range.lo + k, hi: range.hi })];
}

/** MTH(D[lo:hi]) (RFC 6962 §2.1), from perfect subtree hashes. */
export function subtreeHash(range: Range, read: NodeReader): Uint8Array {
  const n = range.hi - range.lo;
  if (n <= 0) throw new RangeError(`empty range [${range.lo}, ${range.hi})`);
  if (isPowerOfTwo(n) && range.lo % n === 0) return read(Math.round(Math.log2(n)), range.lo / n);
  const k = splitPoint(n);
  return nodeHash(subtreeHash({ lo: range.lo, hi: range.lo + k }, read), subtreeHash({ lo: range.lo + k, hi: range.hi }, read));
}

/** The root hash of the first `size` leaves. */
export function treeHash(size: number, read: NodeReader): Uint8Array {
  checkSize(size);
  return size === 0 ? emptyTreeHash() : subtreeHash({ lo: 0, hi: size }, read);
}

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`tree size ${size} is not an integer in [0, ${MAX_TREE_SIZE}]`);
}

/** The subtrees whose hashes make the audit path of leaf `index` in a tree of `size` (RFC 6962 §2.1.1), leaf to root. */
export function inclusionProofRanges(index: number, size: number): Range[] {
  checkSize(size);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf index ${index} is not in a tree of size ${size}`);
  const path = (m: number, lo: number, hi: number): Range[] => {
    if (hi - lo === 1) return [];
    const k = splitPoint(hi - lo);
    return m < k ? [...path(m, lo, lo + k), { lo: lo + k, hi }] : [...path(m - k, lo + k, hi), { lo, hi: lo + k }];
  };
  return path(index, 0, size);
}

/** The subtrees whose hashes prove that the tree of size `from` is a prefix of the one of size `to` (RFC 6962 §2.1.2). */
export function consistencyProofRanges(from: number, to: number): Range[] {
  checkSize(from);
  checkSize(to);
  if (from > to) throw new RangeError(`tree size ${from} is larger than ${to}`);
  if (from === 0 || from === to) return [];
  const subproof = (m: number, lo: number, hi: number, complete: boolean): Range[] => {
    const n = hi - lo;
    if (m === n) return complete ? [] : [{ lo, hi }];
    const k = splitPoint(n);
    return m <= k ? [...subproof(m, lo, lo + k, complete), { lo: lo + k, hi }] : [...subproof(m - k, lo + k, hi, false), { lo, hi: lo + k }];
  };
  return subproof(from, 0, to, true);
}

export function inclusionProof(index: number, size: number, read: NodeReader): Uint8Array[] {
  return inclusionProofRanges(index, size).map((r) => subtreeHash(r, read));
}

export function consistencyProof(from: number, to: number, read: NodeReader): Uint8Array[] {
  return consistencyProofRanges(from, to).map((r) => subtreeHash(r, read));
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== HASH_SIZE || b.length !== HASH_SIZE) return false;
  let diff = 0;
  for (let i = 0; i < HASH_SIZE; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The root an audit path leads to (RFC 9162 §2.1.3.2), or null when the path has the wrong length for (index, size). */
export function rootFromInclusionProof(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Uint8Array | null {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (p.length !== HASH_SIZE || sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** True when `proof` shows the leaf hash `leaf` at `index` in the tree of `size` whose root is `root`. Never throws. */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  const computed = rootFromInclusionProof(index, size, leaf, proof);
  return computed !== null && sameHash(computed, root);
}

/**
 * True when `proof` shows that the tree of size `from` with root `fromRoot` is a prefix of the tree of size `to`
 * with root `toRoot` (RFC 9162 §2.1.4.2). Equal sizes need an empty proof and equal roots. Never throws.
 */
export function verifyConsistency(from: number, to: number, proof: readonly Uint8Array[], fromRoot: Uint8Array, toRoot: Uint8Array): boolean {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || from > to) return false;
  if (from === to) return proof.length === 0 && sameHash(fromRoot, toRoot);
  if (from === 0) return proof.length === 0; // the empty tree is a prefix of every tree
  if (proof.length === 0 || proof.some((p) => p.length !== HASH_SIZE)) return false;
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, fromRoot) && sameHash(sr, toRoot);
}

/** A NodeReader over an in-memory list of leaf hashes (tests, small trees). Hashes each subtree on demand. */
export function memoryNodeReader(leaves: readonly Uint8Array[]): NodeReader {
  const read: NodeReader = (level, index) => {
    const width = 2 ** level;
    if ((index + 1) * width > leaves.length) throw new RangeError(`node (${level}, ${index}) is beyond ${leaves.length} leaves`);
    return level === 0 ? leaves[index]! : nodeHash(read(level - 1, 2 * index), read(level - 1, 2 * index + 1));
  };
  return read;
}
