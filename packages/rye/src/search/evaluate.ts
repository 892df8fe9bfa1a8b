/**
 * Evaluates a query AST over a set of segment indexes: boolean logic on sets of document ids, and a
 * BM25 score summed over every positive leaf a document matches (leaves under NOT never score).
 * Statistics (document count, document frequencies, average field lengths) span all searched segments
 * so scores from different spaces and types are comparable.
 */
import type { FieldData, IndexedDocument } from "./document.ts";
import { fieldLength, fieldTermCount, fieldTermsStart, findTerm, positionRange, termCount } from "./document.ts";
import { dictionarySize, forEachTerm, lookupTermId } from "./dictionary.ts";
import type { IndexField } from "./fields.ts";
import { DEFAULT_FIELDS, FIELD_NUMBER, INDEX_FIELDS, indexFieldOf } from "./fields.ts";
import type { SegmentIndex } from "./index.ts";
import type { PhraseNode, QueryNode, TermNode, WildcardNode } from "./query.ts";
import { inverseDocumentFrequency, termFrequencyScore } from "./rank.ts";
import { autoFuzzyDistance, boundedEditDistance, compileWildcard, pluralTwin } from "./term-match.ts";
import { wordsOf } from "./tokenize.ts";
import type { SearchConfig } from "./weights.ts";

export interface Corpus {
  segments: SegmentIndex[];
  config: SearchConfig;
  /** Makes every plain term fuzzy (explicit `term~N` wins); undefined distance = automatic. */
  fuzzyAll?: { maxDistance?: number };
}

/** The documents that match, with their scores. */
export type DocScores = Map<IndexedDocument, number>;

interface Choice {
  term: number;
  factor: number;
}

/** How one leaf finds candidate documents and measures its frequency in one field of one of them. */
interface LeafPlan {
  /** Multiplies the leaf's score (phrases score above single words). */
  boost: number;
  /** Document ids that may match (removed documents may still appear: callers look them up). */
  candidates(segment: SegmentIndex): Iterable<number>;
  /** Frequency in the field (0 = no match); the match factor goes to `out.factor`. */
  frequency(data: FieldData, field: number, out: { factor: number }): number;
}

/** Above this many expanded terms a leaf scans every document instead of unioning postings. */
const LARGE_EXPANSION = 64;

/** Whether data[from..to) (sorted) holds `value`. */
function rangeContains(data: FieldData, from: number, to: number, value: number): boolean {
  let lo = from;
  let hi = to - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = data[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Any of a set of index terms, each with its own match factor (exact 1, plural twin, fuzzy, wildcard). */
class TermSetPlan implements LeafPlan {
  private readonly factorByTerm: Float32Array | null = null;

  constructor(
    private readonly choices: Choice[],
    readonly boost = 1,
  ) {
    if (choices.length > LARGE_EXPANSION) {
      this.factorByTerm = new Float32Array(dictionarySize());
      for (const c of choices) this.factorByTerm[c.term] = Math.max(this.factorByTerm[c.term]!, c.factor);
    }
  }

  candidates(segment: SegmentIndex): Iterable<number> {
    if (this.factorByTerm) return segment.docs.keys();
    if (this.choices.length === 1) return segment.postings.get(this.choices[0]!.term) ?? [];
    const union = new Set<number>();
    for (const c of this.choices) for (const doc of segment.postings.get(c.term) ?? []) union.add(doc);
    return union;
  }

  frequency(data: FieldData, field: number, out: { factor: number }): number {
    let tf = 0;
    let factor = 0;
    if (this.factorByTerm) {
      const start = fieldTermsStart(data, field);
      const n = fieldTermCount(data, field);
      for (let i = 0; i < n; i++) {
        const f = this.factorByTerm[data[start + i]!] ?? 0;
        if (f <= 0) continue;
        tf += termCount(data, field, i);
        if (f > factor) factor = f;
      }
    } else {
      for (const c of this.choices) {
        const i = findTerm(data, field, c.term);
        if (i < 0) continue;
        tf += termCount(data, field, i);
        if (c.factor > factor) factor = c.factor;
      }
    }
    out.factor = factor;
    return tf;
  }
}

/** Ids present in every ascending list (a merge walk). */
function* intersectSorted(lists: number[][]): Iterable<number> {
  const ordered = [...lists].sort((a, b) => a.length - b.length);
  const [smallest, ...rest] = ordered;
  const cursors = rest.map(() => 0);
  outer: for (const id of smallest!) {
    for (let j = 0; j < rest.length; j++) {
      const list = rest[j]!;
      let at = cursors[j]!;
      while (at < list.length && list[at]! < id) at++;
      cursors[j] = at;
      if (list[at] !== id) continue outer;
    }
    yield id;
  }
}

/** Words in order at consecutive positions, or (with `proximity`) all within a span of that many positions. */
class PhrasePlan implements LeafPlan {
  private readonly distinct: number[];
  /** For each word of the phrase, its index in `distinct`. */
  private readonly slots: number[];
  private readonly needed: number[];

  constructor(
    words: number[],
    private readonly proximity: number | undefined,
    readonly boost: number,
  ) {
    this.distinct = [...new Set(words)];
    this.slots = words.map((w) => this.distinct.indexOf(w));
    this.needed = this.distinct.map((w) => words.filter((x) => x === w).length);
  }

  candidates(segment: SegmentIndex): Iterable<number> {
    const lists = this.distinct.map((w) => segment.postings.get(w));
    if (lists.some((l) => l === undefined)) return [];
    return intersectSorted(lists as number[][]);
  }

  frequency(data: FieldData, field: number, out: { factor: number }): number {
    out.factor = 1;
    const ranges: [number, number][] = [];
    for (const w of this.distinct) {
      const i = findTerm(data, field, w);
      if (i < 0) return 0;
      ranges.push(positionRange(data, field, i));
    }
    return this.proximity === undefined ? this.adjacent(data, ranges) : this.within(data, ranges, this.proximity);
  }

  private adjacent(data: FieldData, ranges: [number, number][]): number {
    const [from, to] = ranges[this.slots[0]!]!;
    let count = 0;
    for (let at = from; at < to; at++) {
      const start = data[at]!;
      let all = true;
      for (let k = 1; k < this.slots.length && all; k++) {
        const [f, t] = ranges[this.slots[k]!]!;
        all = rangeContains(data, f, t, start + k);
      }
      if (all) count++;
    }
    return count;
  }

  /** Counts disjoint windows holding every word (as often as the phrase repeats it) with last − first ≤ span. */
  private within(data: FieldData, ranges: [number, number][], span: number): number {
    const events: [number, number][] = [];
    ranges.forEach(([from, to], word) => {
      for (let at = from; at < to; at++) events.push([data[at]!, word]);
    });
    events.sort((a, b) => a[0] - b[0]);
    const have = new Array<number>(ranges.length).fill(0);
    let missing = ranges.length;
    let left = 0;
    let count = 0;
    for (let right = 0; right < events.length; right++) {
      const word = events[right]![1];
      if (++have[word]! === this.needed[word]!) missing--;
      while (left < right && (events[right]![0] - events[left]![0] > span || have[events[left]![1]]! > this.needed[events[left]![1]]!)) {
        const leaving = events[left++]![1];
        if (have[leaving]!-- === this.needed[leaving]!) missing++;
      }
      if (missing === 0 && events[right]![0] - events[left]![0] <= span) {
        count++;
        have.fill(0);
        missing = ranges.length;
        left = right + 1;
      }
    }
    return count;
  }
}

const EDGE_SEPARATORS = /^[_\-/.]+|[_\-/.]+$/g;

function expandDictionary(accept: (term: string) => number): Choice[] {
  const choices: Choice[] = [];
  forEachTerm((term, id) => {
    const factor = accept(term);
    if (factor > 0) choices.push({ term: id, factor });
  });
  return choices;
}

function termPlan(node: TermNode, corpus: Corpus): LeafPlan | null {
  const { factors } = corpus.config;
  const words = wordsOf(node.value);
  if (words.length === 0) return null;
  const target = words.length === 1 ? words[0]! : node.value.replace(EDGE_SEPARATORS, "");
  const fuzzy = node.fuzzy ?? (corpus.fuzzyAll ? (corpus.fuzzyAll.maxDistance ?? autoFuzzyDistance(target)) : undefined);
  const twin = words.length === 1 ? pluralTwin(target) : null;
  if (fuzzy !== undefined && fuzzy > 0) {
    const choices = expandDictionary((term) => {
      if (term === target) return 1;
      if (term === twin) return factors.plural;
      return boundedEditDistance(target, term, fuzzy) <= fuzzy ? factors.fuzzy : 0;
    });
    return choices.length ? new TermSetPlan(choices) : null;
  }
  if (words.length > 1) return phrasePlan(words, undefined, 1);
  const choices: Choice[] = [];
  const exact = lookupTermId(target);
  if (exact !== undefined) choices.push({ term: exact, factor: 1 });
  const twinId = twin === null ? undefined : lookupTermId(twin);
  if (twinId !== undefined) choices.push({ term: twinId, factor: factors.plural });
  return choices.length ? new TermSetPlan(choices) : null;
}

function phrasePlan(words: string[], proximity: number | undefined, boost: number): LeafPlan | null {
  const ids: number[] = [];
  for (const word of words) {
    const id = lookupTermId(word);
    if (id === undefined) return null;
    ids.push(id);
  }
  if (ids.length === 1) return new TermSetPlan([{ term: ids[0]!, factor: 1 }]);
  return new PhrasePlan(ids, proximity, boost);
}

function planFor(node: TermNode | WildcardNode | PhraseNode, corpus: Corpus): LeafPlan | null {
  switch (node.kind) {
    case "term":
      return termPlan(node, corpus);
    case "wildcard": {
      const matches = compileWildcard(node.pattern);
      const factor = corpus.config.factors.wildcard;
      const choices = expandDictionary((term) => (matches(term) ? factor : 0));
      return choices.length ? new TermSetPlan(choices) : null;
    }
    case "phrase": {
      const words = wordsOf(node.value);
      if (words.length === 0) return null;
      return phrasePlan(words, node.proximity, words.length > 1 ? corpus.config.factors.phrase : 1);
    }
  }
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
      const plan = planFor(node, this.corpus);
      const fields = node.field ? [indexFieldOf(node.field)] : DEFAULT_FIELDS;
      scores = plan ? this.score(plan, fields) : new Map();
      this.memo.set(key, scores);
    }
    return scores;
  }

  /** BM25 of the leaf in each field, weighted per item type and summed. */
  private score(plan: LeafPlan, fields: readonly IndexField[]): DocScores {
    const fieldNumbers = fields.map((f) => FIELD_NUMBER[f]);
    const documentFrequency = new Array<number>(fields.length).fill(0);
    const hits: { doc: IndexedDocument; tf: Float64Array; factor: Float64Array }[] = [];
    const out = { factor: 0 };
    for (const segment of this.corpus.segments) {
      for (const docId of plan.candidates(segment)) {
        const doc = segment.docs.get(docId);
        if (!doc) continue;
        let hit: (typeof hits)[number] | null = null;
        for (let i = 0; i < fieldNumbers.length; i++) {
          const frequency = plan.frequency(doc.data, fieldNumbers[i]!, out);
          if (frequency <= 0) continue;
          hit ??= { doc, tf: new Float64Array(fields.length), factor: new Float64Array(fields.length) };
          hit.tf[i] = frequency;
          hit.factor[i] = out.factor;
          documentFrequency[i]!++;
        }
        if (hit) hits.push(hit);
      }
    }
    const idf = documentFrequency.map((df) => inverseDocumentFrequency(this.documentCount, df));
    const scores: DocScores = new Map();
    for (const { doc, tf, factor } of hits) {
      const weights = this.corpus.config.weights[doc.type];
      let score = 0;
      fieldNumbers.forEach((number, i) => {
        const frequency = tf[i]!;
        if (frequency <= 0) return;
        const length = fieldLength(doc.data, number);
        score += weights[number]! * idf[i]! * termFrequencyScore(frequency, length, this.averageLength[number]!) * factor[i]!;
      });
      scores.set(doc, score * plan.boost);
    }
    return scores;
  }
}

/** The documents matching `query` in the corpus, with their raw (unnormalised) scores. */
export function evaluateQuery(query: QueryNode, corpus: Corpus): DocScores {
  return new Evaluator(corpus).evaluate(query);
}
