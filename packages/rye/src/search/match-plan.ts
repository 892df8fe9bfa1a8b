/**
 * How one query leaf (term, wildcard, phrase) finds candidate documents and measures its frequency
 * and match quality in one field of one document. Wildcard and fuzzy terms are expanded against the
 * term dictionary once per query; the expansion then applies to every segment.
 */
import type { FieldData } from "./field-data.ts";
import { fieldTermCount, fieldTermsStart, findTerm, positionRange, termCount } from "./field-data.ts";
import { dictionarySize, forEachTerm, lookupTermId } from "./dictionary.ts";
import type { PostingList, SegmentIndex } from "./index.ts";
import { FIELD_BITS } from "./postings.ts";
import type { PhraseNode, TermNode, WildcardNode } from "./query.ts";
import { autoFuzzyDistance, boundedEditDistance, compileWildcard, pluralTwin } from "./term-match.ts";
import { wordsOf } from "./tokenize.ts";
import type { MatchFactors } from "./weights.ts";

export interface PlanOptions {
  factors: MatchFactors;
  /** Makes every plain term fuzzy (explicit `term~N` wins); undefined distance = automatic. */
  fuzzyAll?: { maxDistance?: number };
}

interface Choice {
  term: number;
  factor: number;
}

/**
 * Candidate documents: ascending ids and, when known, the fields each can match in (`& FIELD_BITS`, bit f for
 * INDEX_FIELDS[f]); null: any field. A plan of terms also gives, per term, its posting entry for each
 * candidate (0 where the candidate lacks the term) and its match factor: the entries' counts (postings.ts)
 * then score the candidate without its field data.
 */
export interface Candidates {
  ids: ArrayLike<number>;
  masks: ArrayLike<number> | null;
  terms?: readonly CandidateTerm[];
}

export interface CandidateTerm {
  entries: ArrayLike<number>;
  factor: number;
}

const NO_CANDIDATES: Candidates = { ids: [], masks: null };

/** How one leaf finds candidate documents and measures its frequency in one field of one of them. */
export interface LeafPlan {
  /** Multiplies the leaf's score (phrases score above single words). */
  boost: number;
  /** Documents that may match (removed documents may still appear: callers look them up). */
  candidates(segment: SegmentIndex): Candidates;
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
  /** For large expansions: the factor of each dictionary term, NaN for terms that do not match. */
  private readonly factorByTerm: Float32Array | null = null;

  constructor(
    private readonly choices: Choice[],
    readonly boost = 1,
  ) {
    if (choices.length > LARGE_EXPANSION) {
      this.factorByTerm = new Float32Array(dictionarySize()).fill(Number.NaN);
      for (const c of choices) this.factorByTerm[c.term] = c.factor;
    }
  }

  candidates(segment: SegmentIndex): Candidates {
    if (this.factorByTerm) return { ids: [...segment.docs.keys()], masks: null };
    const found: { list: PostingList; factor: number }[] = [];
    for (const c of this.choices) {
      const list = segment.postings.get(c.term);
      if (list) found.push({ list, factor: c.factor });
    }
    if (found.length === 0) return NO_CANDIDATES;
    if (found.length === 1) return { ids: found[0]!.list.ids, masks: found[0]!.list.masks, terms: [{ entries: found[0]!.list.masks, factor: found[0]!.factor }] };
    return unionWithEntries(found);
  }

  frequency(data: FieldData, field: number, out: { factor: number }): number {
    let tf = 0;
    let factor = 0;
    if (this.factorByTerm) {
      const start = fieldTermsStart(data, field);
      const n = fieldTermCount(data, field);
      for (let i = 0; i < n; i++) {
        const f = this.factorByTerm[data[start + i]!] ?? Number.NaN;
        if (Number.isNaN(f)) continue;
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

/** Ids in any of the lists (ascending, each once), with the fields of all of them and each list's entry per id (0 where absent). */
function unionWithEntries(found: readonly { list: PostingList; factor: number }[]): Candidates {
  const ids: number[] = [];
  const masks: number[] = [];
  const entries = found.map(() => [] as number[]);
  const cursors = found.map(() => 0);
  for (;;) {
    let next = Infinity;
    found.forEach(({ list }, t) => {
      if (cursors[t]! < list.ids.length && list.ids[cursors[t]!]! < next) next = list.ids[cursors[t]!]!;
    });
    if (next === Infinity) break;
    let mask = 0;
    found.forEach(({ list }, t) => {
      const at = cursors[t]!;
      const entry = at < list.ids.length && list.ids[at] === next ? list.masks[at]! : 0;
      if (entry !== 0) cursors[t] = at + 1;
      entries[t]!.push(entry);
      mask |= entry & FIELD_BITS;
    });
    ids.push(next);
    masks.push(mask);
  }
  return { ids, masks, terms: found.map(({ factor }, t) => ({ entries: entries[t]!, factor })) };
}

/** Ids present in every ascending list (a merge walk), with the fields all of them share. */
function intersectSorted(lists: readonly PostingList[]): Candidates {
  const ordered = [...lists].sort((a, b) => a.ids.length - b.ids.length);
  const [smallest, ...rest] = ordered;
  const cursors = rest.map(() => 0);
  const ids: number[] = [];
  const masks: number[] = [];
  outer: for (let k = 0; k < smallest!.ids.length; k++) {
    const id = smallest!.ids[k]!;
    let mask = smallest!.masks[k]! & FIELD_BITS;
    for (let j = 0; j < rest.length; j++) {
      const list = rest[j]!;
      let at = cursors[j]!;
      while (at < list.ids.length && list.ids[at]! < id) at++;
      cursors[j] = at;
      if (list.ids[at] !== id) continue outer;
      mask &= list.masks[at]!;
    }
    if (mask === 0) continue;
    ids.push(id);
    masks.push(mask);
  }
  return { ids, masks };
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

  candidates(segment: SegmentIndex): Candidates {
    const lists = this.distinct.map((w) => segment.postings.get(w));
    if (lists.some((l) => l === undefined)) return NO_CANDIDATES;
    return intersectSorted(lists as PostingList[]);
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

/** Every dictionary term `accept` gives a factor to (null = no match; a factor of 0 still matches). */
function expandDictionary(accept: (term: string) => number | null): Choice[] {
  const choices: Choice[] = [];
  forEachTerm((term, id) => {
    const factor = accept(term);
    if (factor !== null) choices.push({ term: id, factor });
  });
  return choices;
}

function termPlan(node: TermNode, options: PlanOptions): LeafPlan | null {
  const { factors } = options;
  const words = wordsOf(node.value);
  if (words.length === 0) return null;
  const target = words.length === 1 ? words[0]! : node.value.replace(EDGE_SEPARATORS, "");
  const fuzzy = node.fuzzy ?? (options.fuzzyAll ? (options.fuzzyAll.maxDistance ?? autoFuzzyDistance(target)) : undefined);
  const twin = words.length === 1 ? pluralTwin(target) : null;
  if (fuzzy !== undefined && fuzzy > 0) {
    const choices = expandDictionary((term) => {
      if (term === target) return 1;
      if (term === twin) return factors.plural;
      return boundedEditDistance(target, term, fuzzy) <= fuzzy ? factors.fuzzy : null;
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

export function planFor(node: TermNode | WildcardNode | PhraseNode, options: PlanOptions): LeafPlan | null {
  switch (node.kind) {
    case "term":
      return termPlan(node, options);
    case "wildcard": {
      const matches = compileWildcard(node.pattern);
      const factor = options.factors.wildcard;
      const choices = expandDictionary((term) => (matches(term) ? factor : null));
      return choices.length ? new TermSetPlan(choices) : null;
    }
    case "phrase": {
      const words = wordsOf(node.value);
      if (words.length === 0) return null;
      return phrasePlan(words, node.proximity, words.length > 1 ? options.factors.phrase : 1);
    }
  }
}
