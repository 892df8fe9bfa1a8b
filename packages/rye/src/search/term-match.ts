/** Matching one query term against one index term: wildcards, bounded edit distance, plural forms. */

/** `?` is one character, `*` any run; everything else is literal (no regex, so no backtracking blow-up). */
export function compileWildcard(pattern: string): (term: string) => boolean {
  const p = pattern.replace(/\*+/g, "*");
  return (term) => {
    let ti = 0;
    let pi = 0;
    let starAt = -1;
    let resumeAt = 0;
    while (ti < term.length) {
      const pc = p[pi];
      if (pc === "*") {
        starAt = pi++;
        resumeAt = ti;
      } else if (pc !== undefined && (pc === "?" || pc === term[ti])) {
        pi++;
        ti++;
      } else if (starAt >= 0) {
        pi = starAt + 1;
        ti = ++resumeAt;
      } else {
        return false;
      }
    }
    while (p[pi] === "*") pi++;
    return pi === p.length;
  };
}

/** The edit distance used by `term~`: 1 for terms of up to 5 characters, 2 above. */
export function autoFuzzyDistance(term: string): number {
  return [...term].length <= 5 ? 1 : 2;
}

/** Levenshtein distance of `a` and `b` when it is ≤ `max`, else `max + 1` (stops early). */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = new Uint16Array(b.length + 1);
  let current = new Uint16Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ac = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (ac === b.charCodeAt(j - 1) ? 0 : 1);
      const value = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length]!, max + 1);
}

const LETTERS = /^\p{L}+$/u;

/** Whether `term` is a-z only: what a term usually is, answered without compiling LETTERS (~0.7 ms cold). */
function isAsciiLetters(term: string): boolean {
  for (let i = 0; i < term.length; i++) {
    const code = term.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/** The singular or plural twin of a word (`tools` ↔ `tool`); null for short words, `-ss` and non-letters. */
export function pluralTwin(term: string): string | null {
  if (term.length < 3 || !(isAsciiLetters(term) || LETTERS.test(term))) return null;
  if (term.endsWith("ss")) return null;
  if (term.endsWith("s")) return term.length > 3 ? term.slice(0, -1) : null;
  return `${term}s`;
}
