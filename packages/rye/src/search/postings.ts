/**
 * A segment's postings: term id → ascending ids of the documents holding the term. A segment loaded from
 * the stored index starts from the file's postings block and reads a term's list only when a query asks
 * for it, instead of building a map entry (and a view) for every term of the space at start-up; lists
 * that change move into a map.
 */
/**
 * Ascending ids of the documents holding a term, and for each the fields it occurs in (bit f set for
 * INDEX_FIELDS[f]): scoring then looks up the term only in those fields instead of in every field.
 */
export interface PostingList {
  readonly ids: number[] | Int32Array;
  readonly masks: number[] | Int32Array;
}

/** Bits of a posting's `masks` entry that say which fields hold the term (INDEX_FIELDS has 12). */
export const FIELD_BITS = 0xfff;
const COUNT_BITS = 20;

/**
 * A posting's entry: the fields holding the term (bits 0–11) and the term's count in each of them (bits 12–31,
 * split evenly: k fields get ⌊20 ÷ k⌋ bits each, in field order). When a count does not fit its bits, the entry
 * keeps no count (bits 12–31 zero) and scoring looks the term up in the document's field data instead. With
 * the counts (and the stored field lengths) a term is scored without reading any document.
 *
 * `counts[j]`: the count in the j-th field of `fields`, lowest field first.
 */
export function postingEntry(fields: number, counts: readonly number[]): number {
  const bits = Math.floor(COUNT_BITS / counts.length);
  if (fields === 0 || bits === 0 || counts.some((c) => c < 1 || c >= 2 ** bits)) return fields;
  let entry = fields;
  counts.forEach((count, j) => (entry += count * 2 ** (12 + j * bits)));
  return entry | 0; // as stored: an Int32Array element
}

/** Set bits of each 12-bit field mask (integer operations only: scoring runs this before the code is optimised). */
const FIELDS_IN = Uint8Array.from({ length: FIELD_BITS + 1 }, (_, mask) => {
  let n = 0;
  for (let v = mask; v !== 0; v &= v - 1) n++;
  return n;
});
/** Bits per count for k fields. */
const BITS_FOR = Uint8Array.from({ length: 13 }, (_, k) => (k === 0 ? 0 : Math.floor(COUNT_BITS / k)));

/** The term's count in `field` that `entry` carries; 0 when it carries none (or the term is not in that field). */
export function countInField(entry: number, field: number): number {
  const fields = entry & FIELD_BITS;
  if ((fields & (1 << field)) === 0) return 0;
  const bits = BITS_FOR[FIELDS_IN[fields]!]!;
  const slot = FIELDS_IN[fields & ((1 << field) - 1)]!;
  return (entry >>> (12 + slot * bits)) & ((1 << bits) - 1);
}

/** `list` with (docId, mask) appended, in place; a stored list (typed arrays) is copied into growable arrays first. */
export function appendPosting(list: PostingList | undefined, docId: number, mask: number): PostingList {
  if (!list) return { ids: [docId], masks: [mask] };
  if (Array.isArray(list.ids) && Array.isArray(list.masks)) {
    list.ids.push(docId);
    list.masks.push(mask);
    return list;
  }
  const ids = Array.isArray(list.ids) ? list.ids : Array.from(list.ids);
  const masks = Array.isArray(list.masks) ? list.masks : Array.from(list.masks);
  ids.push(docId);
  masks.push(mask);
  return { ids, masks };
}

export class Postings implements Iterable<[number, PostingList]> {
  private readonly changed = new Map<number, PostingList>();
  /** Terms of the stored block that were removed or replaced since. */
  private readonly shadowed = new Set<number>();

  private constructor(
    /** Stored block: (term, n, n ids, n field masks)…, terms in this process's numbering via `globalOf`. */
    private readonly block: Int32Array,
    /** Global term id → index of its entry in `block`, -1 when absent. */
    private readonly entryAt: Int32Array,
    private readonly docCount: number,
    /** Total ids in the stored block. */
    readonly storedEntries: number,
  ) {}

  static empty(): Postings {
    return new Postings(new Int32Array(0), new Int32Array(0), 0, 0);
  }

  /**
   * The postings of a stored block whose terms are 0…termCount−1, numbered in this process by `globalOf` (a
   * table, or a function asked once per term of the block; null: the same numbers), or null when its structure is
   * unsound (a term out of range, a list running past the block, a term twice). Each list's ids are checked when
   * the list is first read.
   */
  static fromBlock(block: Int32Array, termCount: number, globalOf: Int32Array | ((local: number) => number) | null, docCount: number): Postings | null {
    let maxGlobal = termCount - 1;
    let globals: Int32Array | null = null;
    if (typeof globalOf === "function") {
      // The block's terms only: a file read after another maps no term it does not use.
      globals = new Int32Array(termCount).fill(-1);
      for (let at = 0; at + 2 <= block.length; at += 2 + 2 * Math.max(block[at + 1]!, 0)) {
        const local = block[at]!;
        if (local < 0 || local >= termCount || globals[local] !== -1) continue; // refused below
        globals[local] = globalOf(local);
        if (globals[local]! > maxGlobal) maxGlobal = globals[local]!;
      }
    } else if (globalOf) {
      globals = globalOf;
      for (let i = 0; i < termCount; i++) if (globalOf[i]! > maxGlobal) maxGlobal = globalOf[i]!;
    }
    const entryAt = new Int32Array(maxGlobal + 1).fill(-1);
    let entries = 0;
    for (let at = 0; at < block.length; ) {
      if (at + 2 > block.length) return null;
      const local = block[at]!;
      const n = block[at + 1]!;
      if (local < 0 || local >= termCount || n < 1 || at + 2 + 2 * n > block.length) return null;
      const global = globals ? globals[local]! : local;
      if (entryAt[global] !== -1) return null;
      entryAt[global] = at;
      entries += n;
      at += 2 + 2 * n;
    }
    return new Postings(block, entryAt, docCount, entries);
  }

  get(term: number): PostingList | undefined {
    if (this.shadowed.has(term)) return this.changed.get(term);
    const list = this.readStored(term);
    this.shadowed.add(term);
    if (list) this.changed.set(term, list);
    return list;
  }

  /** The stored list of `term`, checked. */
  private readStored(term: number): PostingList | undefined {
    const at = term < this.entryAt.length ? this.entryAt[term]! : -1;
    if (at < 0) return undefined;
    const n = this.block[at + 1]!;
    const ids = this.block.subarray(at + 2, at + 2 + n);
    // A list out of order or past the documents cannot come from a sound writer (the file's checksum
    // held): it is dropped rather than merged wrongly.
    return ascendingWithin(ids, this.docCount) ? { ids, masks: this.block.subarray(at + 2 + n, at + 2 + 2 * n) } : undefined;
  }

  set(term: number, list: PostingList): void {
    this.shadowed.add(term);
    this.changed.set(term, list);
  }

  delete(term: number): void {
    this.shadowed.add(term);
    this.changed.delete(term);
  }

  *[Symbol.iterator](): Iterator<[number, PostingList]> {
    for (let term = 0; term < this.entryAt.length; term++) {
      if (this.entryAt[term]! >= 0 && !this.shadowed.has(term)) {
        const list = this.readStored(term);
        if (list) yield [term, list];
      }
    }
    yield* this.changed;
  }
}

function ascendingWithin(list: Int32Array, docCount: number): boolean {
  let previous = 0;
  for (let i = 0; i < list.length; i++) {
    const id = list[i]!;
    if (id <= previous || id > docCount) return false;
    previous = id;
  }
  return true;
}
