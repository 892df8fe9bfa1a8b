/**
 * Process-wide term dictionary: every indexed term gets a small integer id, so documents store
 * typed arrays instead of maps of strings. Ids are never reused; terms of deleted documents stay
 * (wildcard and fuzzy expansion then simply find no posting for them).
 *
 * The first stored index a process loads gives the dictionary its sorted term table as ids 0…n−1
 * (`adoptSortedTerms`): those are found by binary search, so loading builds no map of 15 000 terms;
 * terms met later get the ids after them, through a map.
 */

/** Terms by id: the adopted sorted table first, then every term added since. */
let terms: string[] = [];
/** How many of `terms` are the adopted, sorted table. */
let sortedCount = 0;
/** Ids of the terms added after the adopted table. */
const idByTerm = new Map<string, number>();

/** The id of `term` in the adopted table, or -1. */
function adoptedId(term: string): number {
  let lo = 0;
  let hi = sortedCount - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = terms[mid]!;
    if (value === term) return mid;
    if (value < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Makes `sorted` (strictly ascending by UTF-16 code units) the dictionary's ids 0…n−1, when the
 * dictionary is still empty; false (nothing changed) otherwise or when the list is not strictly ascending.
 */
export function adoptSortedTerms(sorted: readonly string[]): boolean {
  if (terms.length > 0) return false;
  for (let i = 1; i < sorted.length; i++) if (!(sorted[i - 1]! < sorted[i]!)) return false;
  terms = sorted.slice();
  sortedCount = terms.length;
  return true;
}

export function termId(term: string): number {
  const adopted = sortedCount > 0 ? adoptedId(term) : -1;
  if (adopted >= 0) return adopted;
  let id = idByTerm.get(term);
  if (id === undefined) {
    id = terms.length;
    terms.push(term);
    idByTerm.set(term, id);
  }
  return id;
}

/** The id of a known term, or undefined (never adds). */
export function lookupTermId(term: string): number | undefined {
  const adopted = sortedCount > 0 ? adoptedId(term) : -1;
  return adopted >= 0 ? adopted : idByTerm.get(term);
}

export function dictionarySize(): number {
  return terms.length;
}

/** Every known term with its id, for wildcard and fuzzy expansion. */
export function forEachTerm(visit: (term: string, id: number) => void): void {
  for (let id = 0; id < terms.length; id++) visit(terms[id]!, id);
}

/** The term of an id handed out by `termId`. */
export function termOf(id: number): string {
  const term = terms[id];
  if (term === undefined) throw new RangeError(`unknown term id ${id}`);
  return term;
}
