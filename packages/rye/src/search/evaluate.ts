/**
 * Evaluates a query AST over a set of segment indexes: boolean logic on sets of document ids, and a
 * BM25 score summed over every positive leaf a document matches (leaves under NOT never score).
 * Statistics (document count, document frequencies, average field lengths) span all searched segments
 * so scores from different spaces and types are comparable.
 */
import type { FieldData } from "./field-data.ts";
import { countInField, FIELD_BITS } from "./postings.ts";
import type { IndexField } from "./fields.ts";
import { DEFAULT_FIELDS, FIELD_NUMBER, INDEX_FIELDS, indexFieldOf } from "./fields.ts";
import type { SegmentIndex } from "./index.ts";
import type { CandidateTerm, LeafPlan } from "./match-plan.ts";
import { planFor } from "./match-plan.ts";
import type { PhraseNode, QueryNode, TermNode, WildcardNode } from "./query.ts";
import { inverseDocumentFrequency, termFrequencyScore } from "./rank.ts";
import type { SearchConfig } from "./weights.ts";

export interface Corpus {
  segments: SegmentIndex[];
  config: SearchConfig;
  /** Makes every plain term fuzzy (explicit `term~N` wins); undefined distance = automatic. */
  fuzzyAll?: { maxDistance?: number };
}

/**
 * The documents that match, with their scores, in ascending key order. A document's key is its segment's
 * position in the corpus × 2^32 + its id in the segment, so every set operation is a merge of two sorted
 * runs instead of hash-map lookups.
 */
export interface DocScores {
  keys: Float64Array;
  scores: Float64Array;
  length: number;
}

const SEGMENT_STRIDE = 2 ** 32;

/** The segment (position in the corpus) of a score key. Two functions rather than a pair: no array per key. */
export function segmentOfKey(key: number): number {
  return Math.floor(key / SEGMENT_STRIDE);
}

/** The document id (in its segment) of a score key. */
export function docIdOfKey(key: number): number {
  return key % SEGMENT_STRIDE;
}

class ScoresBuilder {
  keys: Float64Array;
  scores: Float64Array;
  length = 0;
  constructor(capacity: number) {
    this.keys = new Float64Array(Math.max(16, capacity));
    this.scores = new Float64Array(this.keys.length);
  }
  push(key: number, score: number): void {
    if (this.length === this.keys.length) {
      const keys = new Float64Array(this.keys.length * 2);
      keys.set(this.keys);
      this.keys = keys;
      const scores = new Float64Array(keys.length);
      scores.set(this.scores);
      this.scores = scores;
    }
    this.keys[this.length] = key;
    this.scores[this.length++] = score;
  }
  done(): DocScores {
    return { keys: this.keys, scores: this.scores, length: this.length };
  }
}

const NOTHING: DocScores = { keys: new Float64Array(0), scores: new Float64Array(0), length: 0 };

/** Keys of `a` also in `b`, scores summed. */
function intersect(a: DocScores, b: DocScores): DocScores {
  const out = new ScoresBuilder(Math.min(a.length, b.length));
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const key = a.keys[i]!;
    while (j < b.length && b.keys[j]! < key) j++;
    if (j < b.length && b.keys[j] === key) out.push(key, a.scores[i]! + b.scores[j++]!);
  }
  return out.done();
}

/** Keys of either, scores summed. */
function union(a: DocScores, b: DocScores): DocScores {
  const out = new ScoresBuilder(a.length + b.length);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const ka = i < a.length ? a.keys[i]! : Infinity;
    const kb = j < b.length ? b.keys[j]! : Infinity;
    if (ka === kb) out.push(ka, a.scores[i++]! + b.scores[j++]!);
    else if (ka < kb) out.push(ka, a.scores[i++]!);
    else out.push(kb, b.scores[j++]!);
  }
  return out.done();
}

/** Keys of `a` not in `b`, scores of `a`. */
function without(a: DocScores, b: DocScores): DocScores {
  const out = new ScoresBuilder(a.length);
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const key = a.keys[i]!;
    while (j < b.length && b.keys[j]! < key) j++;
    if (j >= b.length || b.keys[j] !== key) out.push(key, a.scores[i]!);
  }
  return out.done();
}

class Evaluator {
  private readonly documentCount: number;
  private readonly averageLength: Float64Array;
  private readonly memo = new Map<string, DocScores>();

  constructor(private readonly corpus: Corpus) {
    this.documentCount = corpus.segments.reduce((n, s) => n + s.docs.size, 0);
    this.averageLength = new Float64Array(INDEX_FIELDS.length);
    for (const segment of corpus.segments) segment.fieldLengthTotals.forEach((total, i) => (this.averageLength[i]! += total));
    if (this.documentCount > 0) this.averageLength.forEach((total, i) => (this.averageLength[i] = total / this.documentCount));
  }

  evaluate(node: QueryNode): DocScores {
    switch (node.kind) {
      case "all":
        return this.everything();
      case "not":
        return without(this.everything(), this.evaluate(node.child));
      case "and":
        return this.and(node.children);
      case "or":
        return node.children.reduce<DocScores>((result, child) => union(result, this.evaluate(child)), NOTHING);
      default:
        return this.leaf(node);
    }
  }

  private and(children: QueryNode[]): DocScores {
    const positives = children.filter((c) => c.kind !== "not");
    const negatives = children.flatMap((c) => (c.kind === "not" ? [c.child] : []));
    let result: DocScores | null = null;
    for (const child of positives) {
      const scores = this.evaluate(child);
      result = result === null ? scores : intersect(result, scores);
      if (result.length === 0) return result;
    }
    result ??= this.everything();
    for (const child of negatives) result = without(result, this.evaluate(child));
    return result;
  }

  private everything(): DocScores {
    const out = new ScoresBuilder(this.documentCount);
    this.corpus.segments.forEach((segment, s) => {
      // Document ids only grow and a segment's map keeps insertion order: its keys come out ascending.
      for (const docId of segment.docs.keys()) out.push(s * SEGMENT_STRIDE + docId, 0);
    });
    return out.done();
  }

  private leaf(node: TermNode | WildcardNode | PhraseNode): DocScores {
    const key = JSON.stringify(node);
    let scores = this.memo.get(key);
    if (!scores) {
      const plan = planFor(node, { factors: this.corpus.config.factors, ...(this.corpus.fuzzyAll ? { fuzzyAll: this.corpus.fuzzyAll } : {}) });
      const fields = node.field ? [indexFieldOf(node.field)] : DEFAULT_FIELDS;
      scores = plan ? this.score(plan, fields) : NOTHING;
      this.memo.set(key, scores);
    }
    return scores;
  }

  /**
   * BM25 of the leaf in each field, weighted per item type and summed. A leaf of terms takes its counts from the
   * posting entries and the field lengths from the segment: it reads a document's field data only when an entry
   * carries no count (postings.ts); a phrase always reads it.
   */
  private score(plan: LeafPlan, fields: readonly IndexField[]): DocScores {
    const fieldNumbers = fields.map((f) => FIELD_NUMBER[f]);
    const width = fieldNumbers.length;
    const documentFrequency = new Array<number>(width).fill(0);
    // Hits in flat arrays (hit h's field i at h * width + i): no objects per matching document.
    const hitSegments: number[] = [];
    const keys: number[] = [];
    let tf = new Float64Array(256 * width);
    let factors = new Float64Array(256 * width);
    const out = { factor: 0 };
    // Field number → its position in `fieldNumbers`, and the bits of the leaf's fields: a candidate's fields are
    // walked bit by bit (usually one to three) rather than testing every field; this loop runs cold, once.
    const slotOf = new Int8Array(32).fill(-1);
    let leafFields = 0;
    fieldNumbers.forEach((f, i) => {
      slotOf[f] = i;
      leafFields |= 1 << f;
    });
    this.corpus.segments.forEach((segment, s) => {
      const docs = segment.docs;
      // Postings keep the ids of removed documents until they are compacted; a table with none removed needs no check.
      const allLive = docs.pristineStored !== null;
      const { ids, masks, terms } = plan.candidates(segment);
      const single = terms?.length === 1 ? terms[0]! : null;
      for (let k = 0; k < ids.length; k++) {
        const docId = ids[k]!;
        if (!allLive && !docs.has(docId)) continue;
        let fields = (masks ? masks[k]! : FIELD_BITS) & leafFields;
        if (fields === 0) continue;
        const base = keys.length * width;
        if (base + width > tf.length) {
          const grownTf = new Float64Array(tf.length * 2);
          grownTf.set(tf);
          tf = grownTf;
          const grownFactors = new Float64Array(factors.length * 2);
          grownFactors.set(factors);
          factors = grownFactors;
        }
        let data: FieldData | undefined;
        let hit = false;
        while (fields !== 0) {
          const field = 31 - Math.clz32(fields & -fields);
          fields &= fields - 1;
          let frequency: number;
          if (single) {
            frequency = countInField(single.entries[k]!, field);
            if (frequency > 0) out.factor = single.factor;
            else frequency = -1;
          } else frequency = terms ? countedFrequency(terms, k, field, out) : -1;
          if (frequency < 0) {
            data ??= docs.dataOf(docId);
            if (!data) break;
            frequency = plan.frequency(data, field, out);
          }
          if (frequency <= 0) continue;
          const i = slotOf[field]!;
          hit = true;
          tf[base + i] = frequency;
          factors[base + i] = out.factor;
          documentFrequency[i]!++;
        }
        if (hit) {
          hitSegments.push(s);
          keys.push(s * SEGMENT_STRIDE + docId);
        }
      }
    });
    const idf = documentFrequency.map((df) => inverseDocumentFrequency(this.documentCount, df));
    const scores = new Float64Array(keys.length);
    const segments = this.corpus.segments;
    for (let h = 0; h < keys.length; h++) {
      const segment = segments[hitSegments[h]!]!;
      const weights = this.corpus.config.weights[segment.type];
      const docId = keys[h]! - hitSegments[h]! * SEGMENT_STRIDE;
      const base = h * width;
      let score = 0;
      for (let i = 0; i < width; i++) {
        const frequency = tf[base + i]!;
        if (frequency <= 0) continue;
        const number = fieldNumbers[i]!;
        const length = segment.docs.fieldLengthOf(docId, number);
        score += weights[number]! * idf[i]! * termFrequencyScore(frequency, length, this.averageLength[number]!) * factors[base + i]!;
      }
      scores[h] = score * plan.boost;
    }
    return { keys: Float64Array.from(keys), scores, length: keys.length };
  }
}

/**
 * The frequency of candidate `k`'s terms in `field` from their posting entries (summed; the best factor of
 * those present goes to `out.factor`), or -1 when an entry holding the term there carries no count.
 */
function countedFrequency(terms: readonly CandidateTerm[], k: number, field: number, out: { factor: number }): number {
  let frequency = 0;
  let factor = 0;
  for (const term of terms) {
    const entry = term.entries[k]!;
    if ((entry & (1 << field)) === 0) continue;
    const count = countInField(entry, field);
    if (count === 0) return -1;
    frequency += count;
    if (term.factor > factor) factor = term.factor;
  }
  out.factor = factor;
  return frequency;
}

/** The documents matching `query` in the corpus, with their raw (unnormalised) scores, in key order. */
export function evaluateQuery(query: QueryNode, corpus: Corpus): DocScores {
  return new Evaluator(corpus).evaluate(query);
}
