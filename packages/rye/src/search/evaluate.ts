/**
 * Evaluates a query AST over a set of segment indexes: boolean logic on sets of document ids, and a
 * BM25 score summed over every positive leaf a document matches (leaves under NOT never score).
 * Statistics (document count, document frequencies, average field lengths) span all searched segments
 * so scores from different spaces and types are comparable.
 */
import type { IndexedDocument } from "./document.ts";
import { fieldLength } from "./field-data.ts";
import type { IndexField } from "./fields.ts";
import { DEFAULT_FIELDS, FIELD_NUMBER, INDEX_FIELDS, indexFieldOf } from "./fields.ts";
import type { SegmentIndex } from "./index.ts";
import type { LeafPlan } from "./match-plan.ts";
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

/** The documents that match, with their scores. */
export type DocScores = Map<IndexedDocument, number>;

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
      case "not": {
        const excluded = this.evaluate(node.child);
        const result = this.everything();
        for (const doc of excluded.keys()) result.delete(doc);
        return result;
      }
      case "and":
        return this.and(node.children);
      case "or": {
        const result: DocScores = new Map();
        for (const child of node.children) {
          for (const [doc, score] of this.evaluate(child)) result.set(doc, (result.get(doc) ?? 0) + score);
        }
        return result;
      }
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
      if (result === null) {
        result = new Map(scores);
        continue;
      }
      const next: DocScores = new Map();
      for (const [doc, score] of result) {
        const other = scores.get(doc);
        if (other !== undefined) next.set(doc, score + other);
      }
      result = next;
      if (result.size === 0) return result;
    }
    result ??= this.everything();
    for (const child of negatives) {
      for (const doc of this.evaluate(child).keys()) result.delete(doc);
    }
    return result;
  }

  private everything(): DocScores {
    const all: DocScores = new Map();
    for (const segment of this.corpus.segments) for (const doc of segment.docs.values()) all.set(doc, 0);
    return all;
  }

  private leaf(node: TermNode | WildcardNode | PhraseNode): DocScores {
    const key = JSON.stringify(node);
    let scores = this.memo.get(key);
    if (!scores) {
      const plan = planFor(node, { factors: this.corpus.config.factors, ...(this.corpus.fuzzyAll ? { fuzzyAll: this.corpus.fuzzyAll } : {}) });
      const fields = node.field ? [indexFieldOf(node.field)] : DEFAULT_FIELDS;
      scores = plan ? this.score(plan, fields) : new Map();
      this.memo.set(key, scores);
    }
    return scores;
  }

  /** BM25 of the leaf in each field, weighted per item type and summed. */
  private score(plan: LeafPlan, fields: readonly IndexField[]): DocScores {
    const fieldNumbers = fields.map((f) => FIELD_NUMBER[f]);
    const width = fieldNumbers.length;
    const documentFrequency = new Array<number>(width).fill(0);
    // Hits in flat arrays (hit h's field i at h * width + i): no objects per matching document.
    const docs: IndexedDocument[] = [];
    let tf = new Float64Array(256 * width);
    let factors = new Float64Array(256 * width);
    const out = { factor: 0 };
    for (const segment of this.corpus.segments) {
      for (const docId of plan.candidates(segment)) {
        const doc = segment.docs.get(docId);
        if (!doc) continue;
        const base = docs.length * width;
        if (base + width > tf.length) {
          const grownTf = new Float64Array(tf.length * 2);
          grownTf.set(tf);
          tf = grownTf;
          const grownFactors = new Float64Array(factors.length * 2);
          grownFactors.set(factors);
          factors = grownFactors;
        }
        let hit = false;
        for (let i = 0; i < width; i++) {
          const frequency = plan.frequency(doc.data, fieldNumbers[i]!, out);
          if (frequency <= 0) continue;
          hit = true;
          tf[base + i] = frequency;
          factors[base + i] = out.factor;
          documentFrequency[i]!++;
        }
        if (hit) docs.push(doc);
      }
    }
    const idf = documentFrequency.map((df) => inverseDocumentFrequency(this.documentCount, df));
    const scores: DocScores = new Map();
    for (let h = 0; h < docs.length; h++) {
      const doc = docs[h]!;
      const weights = this.corpus.config.weights[doc.type];
      const base = h * width;
      let score = 0;
      for (let i = 0; i < width; i++) {
        const frequency = tf[base + i]!;
        if (frequency <= 0) continue;
        const number = fieldNumbers[i]!;
        const length = fieldLength(doc.data, number);
        score += weights[number]! * idf[i]! * termFrequencyScore(frequency, length, this.averageLength[number]!) * factors[base + i]!;
      }
      scores.set(doc, score * plan.boost);
    }
    return scores;
  }
}

/** The documents matching `query` in the corpus, with their raw (unnormalised) scores. */
export function evaluateQuery(query: QueryNode, corpus: Corpus): DocScores {
  return new Evaluator(corpus).evaluate(query);
}
