/**
 * Process-wide term dictionary: every indexed term gets a small integer id, so documents store
 * typed arrays instead of maps of strings. Ids are never reused; terms of deleted documents stay
 * (wildcard and fuzzy expansion then simply find no posting for them).
 */

const idByTerm = new Map<string, number>();
const terms: string[] = [];

export function termId(term: string): number {
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
  return idByTerm.get(term);
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
