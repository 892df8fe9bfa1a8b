/**
 * All fields' token positions of one document packed in a single Int32Array (one allocation per
 * document instead of several per field), and the accessors that read it:
 *
 *   data[f]                   start of field f's block, or -1 when the field is empty (f < field count)
 *   block: length, n, termIds[n] (sorted), ends[n], positions…
 *
 * Positions of termIds[i] run from `i === 0 ? positionsStart : ends[i - 1]` to ends[i]; each run is sorted.
 */
import { termId } from "./dictionary.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { Token } from "./tokenize.ts";

export type FieldData = Int32Array;

const FIELD_COUNT: number = INDEX_FIELDS.length;

/** Word count of a field (its BM25 length). */
export function fieldLength(data: FieldData, field: number): number {
  const block = data[field]!;
  return block < 0 ? 0 : data[block]!;
}

/** Number of distinct terms in a field. */
export function fieldTermCount(data: FieldData, field: number): number {
  const block = data[field]!;
  return block < 0 ? 0 : data[block + 1]!;
}

/** Index in `data` of the field's first term id (term ids follow, then their ends). */
export function fieldTermsStart(data: FieldData, field: number): number {
  return data[field]! + 2;
}

/**
 * Where the positions of `term` in `field` lie: returns the index `i` of the term inside the field, or
 * -1. Use `positionRange` to turn it into bounds.
 */
export function findTerm(data: FieldData, field: number, term: number): number {
  const block = data[field]!;
  if (block < 0) return -1;
  const start = block + 2;
  let lo = 0;
  let hi = data[block + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = data[start + mid]!;
    if (value === term) return mid;
    if (value < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** [from, to) indexes in `data` of the positions of the `i`-th term of a field. */
export function positionRange(data: FieldData, field: number, i: number): [number, number] {
  const block = data[field]!;
  const n = data[block + 1]!;
  const ends = block + 2 + n;
  return [i === 0 ? ends + n : data[ends + i - 1]!, data[ends + i]!];
}

/** Number of positions of the `i`-th term of a field (its term frequency). */
export function termCount(data: FieldData, field: number, i: number): number {
  const block = data[field]!;
  const n = data[block + 1]!;
  const ends = block + 2 + n;
  return data[ends + i]! - (i === 0 ? ends + n : data[ends + i - 1]!);
}

export interface FieldTokens {
  tokens: Token[];
  length: number;
}

function isAscending(values: number[]): boolean {
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > values[i]!) return false;
  return true;
}

/** Packs the fields' tokens into the layout above. */
export function packFields(fields: (FieldTokens | undefined)[]): FieldData {
  const grouped = fields.map((field) => {
    if (!field || field.tokens.length === 0) return null;
    const byTerm = new Map<number, number[]>();
    for (const token of field.tokens) {
      const id = termId(token.term);
      const list = byTerm.get(id);
      if (list) list.push(token.position);
      else byTerm.set(id, [token.position]);
    }
    const terms = Int32Array.from(byTerm.keys()).sort();
    return { length: field.length, terms, byTerm, count: field.tokens.length };
  });
  const size = grouped.reduce((n, g) => n + (g ? 2 + 2 * g.terms.length + g.count : 0), FIELD_COUNT);
  const data = new Int32Array(size);
  let at = FIELD_COUNT;
  grouped.forEach((g, f) => {
    if (!g) {
      data[f] = -1;
      return;
    }
    data[f] = at;
    const n = g.terms.length;
    data[at] = g.length;
    data[at + 1] = n;
    data.set(g.terms, at + 2);
    let write = at + 2 + 2 * n;
    g.terms.forEach((term, i) => {
      const positions = g.byTerm.get(term)!;
      // Positions arrive in order except where an identifier token shares its first word's position.
      if (!isAscending(positions)) positions.sort((a, b) => a - b);
      data.set(positions, write);
      write += positions.length;
      data[at + 2 + n + i] = write;
    });
    at = write;
  });
  return data;
}

/** Calls `visit` with each term id of each field (a term in several fields comes once per field). */
export function forEachFieldTerm(data: FieldData, visit: (term: number) => void): void {
  for (let f = 0; f < FIELD_COUNT; f++) {
    const block = data[f]!;
    if (block < 0) continue;
    const n = data[block + 1]!;
    for (let i = 0; i < n; i++) visit(data[block + 2 + i]!);
  }
}

/**
 * The same data with every term id replaced by `map(id)` (another dictionary's numbering); each field's
 * terms are re-sorted with their position runs, since lookups rely on ascending term ids.
 */
export function mapFieldTerms(data: FieldData, map: (term: number) => number): FieldData {
  const out = new Int32Array(data.length);
  out.set(data.subarray(0, FIELD_COUNT));
  for (let f = 0; f < FIELD_COUNT; f++) {
    const block = data[f]!;
    if (block < 0) continue;
    const n = data[block + 1]!;
    const termsAt = block + 2;
    const endsAt = termsAt + n;
    const positionsAt = endsAt + n;
    const mapped = new Int32Array(n);
    for (let i = 0; i < n; i++) mapped[i] = map(data[termsAt + i]!);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => mapped[a]! - mapped[b]!);
    out[block] = data[block]!;
    out[block + 1] = n;
    let write = positionsAt;
    order.forEach((i, rank) => {
      const from = i === 0 ? positionsAt : data[endsAt + i - 1]!;
      const to = data[endsAt + i]!;
      out[termsAt + rank] = mapped[i]!;
      out.set(data.subarray(from, to), write);
      write += to - from;
      out[endsAt + rank] = write;
    });
  }
  return out;
}

/**
 * Whether `data` (or its words `start`…`end`, one document's data inside a larger block) has the layout
 * above with every index in bounds and term ids ascending below `termCount`: what must hold before data
 * read from a stored index is used.
 */
export function wellFormedFieldData(data: FieldData, termCount: number, start = 0, end = data.length): boolean {
  const length = end - start;
  if (start < 0 || end > data.length || length < FIELD_COUNT) return false;
  let next = FIELD_COUNT;
  for (let f = 0; f < FIELD_COUNT; f++) {
    const block = data[start + f]!;
    if (block === -1) continue;
    if (block !== next || block + 2 > length) return false;
    const n = data[start + block + 1]!;
    if (data[start + block]! < 0 || n < 1 || block + 2 + 2 * n > length) return false;
    const endsAt = block + 2 + n;
    let previousTerm = -1;
    let previousEnd = endsAt + n;
    for (let i = 0; i < n; i++) {
      const term = data[start + block + 2 + i]!;
      const termEnd = data[start + endsAt + i]!;
      if (term <= previousTerm || term >= termCount || termEnd <= previousEnd || termEnd > length) return false;
      previousTerm = term;
      previousEnd = termEnd;
    }
    next = previousEnd;
  }
  return next === length;
}
