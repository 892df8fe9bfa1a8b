/**
 * One tokenizer for indexing and querying: lowercase, Unicode letters/marks/digits form words, and
 * identifiers joined by `_ - / .` are split into their words while the whole identifier is kept as an
 * extra token at the position of its first word (so `fs_write` matches exactly and `fs write` as a
 * phrase). Word positions count words only, never the extra identifier tokens.
 */

export interface Token {
  term: string;
  position: number;
  /** True for the whole-identifier tokens (`rye/core/fs_write`, `fs_write`) added next to the words. */
  compound: boolean;
}

export interface Tokenized {
  tokens: Token[];
  /** Number of word positions used; the field length for BM25. */
  wordCount: number;
}

/** Longer words (hashes, base64 blobs) keep their position but are not indexed. */
export const MAX_TERM_LENGTH = 64;
const MAX_COMPOUND_LENGTH = 128;

const NON_ASCII = /[^\x00-\x7f]/;
const LETTER_MARK_OR_NUMBER = /^[\p{L}\p{M}\p{N}]$/u;

export function normalizeText(text: string): string {
  // NFKC folds full-width and compatibility forms; ASCII text never needs it.
  return NON_ASCII.test(text) ? text.normalize("NFKC").toLowerCase() : text.toLowerCase();
}

const enum CharKind {
  Other,
  Word,
  /** `_` and `-`: join the words of one identifier segment. */
  Joiner,
  /** `/` and `.`: join identifier segments (path parts, dotted names, versions). */
  PathSeparator,
}

const ASCII_KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_KIND[c] = /[a-z0-9]/i.test(ch) ? CharKind.Word : ch === "_" || ch === "-" ? CharKind.Joiner : ch === "/" || ch === "." ? CharKind.PathSeparator : CharKind.Other;
}

function kindAt(text: string, i: number): { kind: CharKind; width: number } {
  const code = text.charCodeAt(i);
  if (code < 128) return { kind: ASCII_KIND[code]!, width: 1 };
  const point = text.codePointAt(i)!;
  const width = point > 0xffff ? 2 : 1;
  return { kind: LETTER_MARK_OR_NUMBER.test(String.fromCodePoint(point)) ? CharKind.Word : CharKind.Other, width };
}

interface Segment {
  /** String indexes of the first word's start and the last word's end. */
  from: number;
  to: number;
  firstPosition: number;
  words: number;
}

/**
 * Tokens of `text`; positions start at `firstPosition` (used to leave gaps between tags). A "run" is a
 * stretch of word characters and joiners; its `/`- or `.`-separated parts are segments.
 */
export function tokenize(text: string, firstPosition = 0): Tokenized {
  const state = new TokenizerState(normalizeText(text), firstPosition);
  const source = state.text;
  for (let i = 0; i < source.length; ) {
    const { kind, width } = kindAt(source, i);
    if (kind === CharKind.Word) {
      if (state.wordStart < 0) state.wordStart = i;
    } else {
      state.endWord(i);
      if (kind === CharKind.PathSeparator) state.endSegment(true);
      else if (kind === CharKind.Other) state.endRun();
    }
    i += width;
  }
  state.endWord(source.length);
  state.endRun();
  return { tokens: state.tokens, wordCount: state.position - firstPosition };
}

class TokenizerState {
  readonly tokens: Token[] = [];
  wordStart = -1;
  private segments: Segment[] = [];
  private segment: Segment | null = null;
  private hasPathSeparator = false;

  constructor(
    readonly text: string,
    public position: number,
  ) {}

  endWord(end: number): void {
    const start = this.wordStart;
    if (start < 0) return;
    if (end - start <= MAX_TERM_LENGTH) this.tokens.push({ term: this.text.slice(start, end), position: this.position, compound: false });
    if (this.segment) {
      this.segment.to = end;
      this.segment.words++;
    } else {
      this.segment = { from: start, to: end, firstPosition: this.position, words: 1 };
    }
    this.position++;
    this.wordStart = -1;
  }

  endSegment(bySeparator: boolean): void {
    if (this.segment) this.segments.push(this.segment);
    this.segment = null;
    if (bySeparator && this.segments.length > 0) this.hasPathSeparator = true;
  }

  endRun(): void {
    this.endSegment(false);
    const segments = this.segments;
    const first = segments[0];
    const last = segments[segments.length - 1];
    if (first && last) {
      if (this.hasPathSeparator && segments.length > 1) {
        for (const s of segments) {
          if (s.words > 1 && s.to - s.from <= MAX_COMPOUND_LENGTH) {
            this.tokens.push({ term: this.text.slice(s.from, s.to), position: s.firstPosition, compound: true });
          }
        }
      }
      const words = this.position - first.firstPosition;
      if (words > 1 && last.to - first.from <= MAX_COMPOUND_LENGTH) {
        this.tokens.push({ term: this.text.slice(first.from, last.to), position: first.firstPosition, compound: true });
      }
    }
    this.segments = [];
    this.hasPathSeparator = false;
  }
}

/** The words of a query term or phrase, in order (no identifier tokens). */
export function wordsOf(text: string): string[] {
  return tokenize(text).tokens.filter((t) => !t.compound).map((t) => t.term);
}
