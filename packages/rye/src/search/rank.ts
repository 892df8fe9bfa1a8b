/**
 * Scoring and ordering: BM25 per field (k1 = 1.2, b = 0.75) times the field's weight for the item
 * type, summed over fields and query terms; scores normalised against the best hit; ties broken by
 * space precedence, then item id, then item type.
 */
import type { ItemType } from "@rye/core";
import { ITEM_TYPES } from "@rye/core";
import type { SpaceName } from "../spaces/spaces.ts";
import { SPACE_PRECEDENCE } from "../spaces/spaces.ts";

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Inverse document frequency, the non-negative BM25 variant: rarer terms weigh more. */
export function inverseDocumentFrequency(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** The saturated, length-normalised term frequency part of BM25. */
export function termFrequencyScore(termFrequency: number, fieldLength: number, averageFieldLength: number): number {
  const lengthRatio = averageFieldLength > 0 ? fieldLength / averageFieldLength : 1;
  return (termFrequency * (BM25_K1 + 1)) / (termFrequency + BM25_K1 * (1 - BM25_B + BM25_B * lengthRatio));
}

/** Scores divided by the best one and rounded to 4 decimals; all 1 when nothing scored (empty or NOT-only query). */
export function normaliseScore(score: number, topScore: number): number {
  if (topScore <= 0) return 1;
  return Math.round((score / topScore) * 10000) / 10000;
}

export interface Rankable {
  score: number;
  space: SpaceName;
  id: string;
  type: ItemType;
}

export function compareRanked(a: Rankable, b: Rankable): number {
  return (
    b.score - a.score ||
    SPACE_PRECEDENCE[b.space] - SPACE_PRECEDENCE[a.space] ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
    ITEM_TYPES.indexOf(a.type) - ITEM_TYPES.indexOf(b.type)
  );
}

/**
 * The first `k` items in `compare` order, sorted: a bounded max-heap keeps the k best seen so far, so a
 * page of 10 out of 10 000 matches costs about n·log k comparisons instead of a full sort.
 */
export function firstK<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  const heap: T[] = [];
  if (k <= 0) return heap;
  const swap = (i: number, j: number): void => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && compare(heap[l]!, heap[worst]!) > 0) worst = l;
      if (r < heap.length && compare(heap[r]!, heap[worst]!) > 0) worst = r;
      if (worst === i) return;
      swap(i, worst);
      i = worst;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (compare(heap[i]!, heap[parent]!) <= 0) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(item, heap[0]!) < 0) {
      heap[0] = item;
      down(0);
    }
  }
  return heap.sort(compare);
}
