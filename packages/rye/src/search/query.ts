/**
 * The search query language, parsed into an AST.
 *
 *   query    := or
 *   or       := and ("OR" and)*
 *   and      := unary (["AND"] unary)*          juxtaposition means AND
 *   unary    := ("NOT" | "-") unary | primary
 *   primary  := term | phrase | "(" or ")" | field ":(" or ")"
 *   term     := [field ":"] text ["~" [N]]      text may hold * and ? wildcards
 *   phrase   := [field ":"] '"' words '"' ["~" N]
 *
 * Only UPPERCASE AND/OR/NOT are operators (the original also took lowercase ones, which made
 * "search and replace" a boolean query). Precedence: NOT > AND > OR.
 */
import { RyeError } from "@rye/core";
import type { QueryField } from "./fields.ts";
import { isQueryField, QUERY_FIELDS } from "./fields.ts";
import { normalizeText } from "./tokenize.ts";
import { autoFuzzyDistance } from "./term-match.ts";

export type QueryNode =
  | { kind: "all" }
  | { kind: "and"; children: QueryNode[] }
  | { kind: "or"; children: QueryNode[] }
  | { kind: "not"; child: QueryNode }
  | TermNode
  | WildcardNode
  | PhraseNode;

export interface TermNode {
  kind: "term";
  value: string;
  field?: QueryField;
  /** Maximum edit distance (`term~` resolves to 1 or 2 by length, `term~N` to N). */
  fuzzy?: number;
}

export interface WildcardNode {
  kind: "wildcard";
  pattern: string;
  field?: QueryField;
}

export interface PhraseNode {
  kind: "phrase";
  value: string;
  field?: QueryField;
  /** `"a b"~N`: every word within N word positions (span from first to last ≤ N), any order. */
  proximity?: number;
}

export const QUERY_LIMITS = { maxLength: 1000, maxTerms: 64, maxDepth: 32, maxFuzzy: 3, maxProximity: 100 } as const;

type Lexeme =
  | { type: "lparen" | "rparen" | "and" | "or" | "not" | "eof"; at: number; text: string }
  | { type: "field-group"; at: number; text: string; field: QueryField }
  | { type: "term"; at: number; text: string; node: TermNode | WildcardNode | PhraseNode };

function fail(message: string, position: number, hint: string): never {
  throw new RyeError("BAD_REQUEST", `Invalid search query: ${message} (at position ${position})`, {
    hint,
    details: { position },
  });
}

const SYNTAX_HINT =
  'Combine terms with AND, OR, NOT (uppercase) or -term, group with ( ), quote "exact phrases"; e.g. name:deploy AND (docker OR k8s) -draft';
const FIELD_HINT = `Known fields: ${QUERY_FIELDS.join(", ")}. Quote the whole term ("a:b") to search for a colon.`;

const BOUNDARY = new Set([" ", "\t", "\n", "\r", "\f", "\v", "(", ")", '"']);
const FIELD_PREFIX = /^([A-Za-z_]+):/;
const FUZZY_SUFFIX = /~(\d*)$/;

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

class Lexer {
  private at = 0;
  constructor(private readonly text: string) {}

  next(): Lexeme {
    const text = this.text;
    while (isSpace(text[this.at])) this.at++;
    const start = this.at;
    const ch = text[start];
    if (ch === undefined) return { type: "eof", at: start, text: "" };
    if (ch === "(") {
      this.at++;
      return { type: "lparen", at: start, text: ch };
    }
    if (ch === ")") {
      this.at++;
      return { type: "rparen", at: start, text: ch };
    }
    if (ch === '"') return this.phrase(start, undefined);
    if (ch === "-") {
      const after = text[start + 1];
      if (after === undefined || isSpace(after) || after === ")") {
        fail("'-' must be followed directly by the term it excludes", start, SYNTAX_HINT);
      }
      this.at++;
      return { type: "not", at: start, text: "-" };
    }
    let end = start;
    while (end < text.length && !BOUNDARY.has(text[end]!)) end++;
    const word = text.slice(start, end);
    this.at = end;
    if (word === "AND" || word === "OR" || word === "NOT") {
      return { type: word.toLowerCase() as "and" | "or" | "not", at: start, text: word };
    }
    const fieldMatch = FIELD_PREFIX.exec(word);
    if (fieldMatch) {
      const name = fieldMatch[1]!.toLowerCase();
      if (!isQueryField(name)) fail(`unknown field "${fieldMatch[1]}"`, start, FIELD_HINT);
      const rest = word.slice(fieldMatch[0].length);
      if (rest !== "") return this.term(rest, start, name);
      if (text[end] === '"') return this.phrase(end, name, start);
      if (text[end] === "(") return { type: "field-group", at: start, text: word, field: name };
      fail(`field "${name}:" needs a value right after the colon`, start, FIELD_HINT);
    }
    return this.term(word, start, undefined);
  }

  private term(raw: string, at: number, field: QueryField | undefined): Lexeme {
    let text = raw;
    let fuzzy: number | undefined;
    const fuzzyMatch = FUZZY_SUFFIX.exec(text);
    if (fuzzyMatch && fuzzyMatch.index > 0) {
      text = text.slice(0, fuzzyMatch.index);
      if (fuzzyMatch[1] !== "") {
        fuzzy = Number(fuzzyMatch[1]);
        if (fuzzy > QUERY_LIMITS.maxFuzzy) {
          fail(`fuzzy distance ${fuzzy} is above ${QUERY_LIMITS.maxFuzzy}`, at, "Use term~ (automatic), term~1, term~2 or term~3.");
        }
      } else {
        fuzzy = autoFuzzyDistance(normalizeText(text));
      }
    }
    const value = normalizeText(text);
    const withField = <T extends object>(node: T): T => (field ? { ...node, field } : node);
    if (value.includes("*") || value.includes("?")) {
      if (fuzzy !== undefined) fail("a term cannot be both a wildcard and fuzzy", at, "Drop either the * / ? or the ~.");
      return { type: "term", at, text: raw, node: withField({ kind: "wildcard", pattern: value }) };
    }
    const node: TermNode = withField({ kind: "term", value });
    if (fuzzy !== undefined) node.fuzzy = fuzzy;
    return { type: "term", at, text: raw, node };
  }

  /** A phrase starting at the quote at `quoteAt`; `at` is where the lexeme (maybe `field:`) began. */
  private phrase(quoteAt: number, field: QueryField | undefined, at = quoteAt): Lexeme {
    const close = this.text.indexOf('"', quoteAt + 1);
    if (close < 0) fail("unbalanced quote: this phrase is never closed", quoteAt, 'Close the phrase with a second " or remove the quote.');
    const inner = this.text.slice(quoteAt + 1, close);
    if (inner.trim() === "") fail("empty phrase", quoteAt, 'Put words between the quotes, e.g. "deploy app".');
    this.at = close + 1;
    const node: PhraseNode = field ? { kind: "phrase", value: normalizeText(inner.trim()), field } : { kind: "phrase", value: normalizeText(inner.trim()) };
    if (this.text[this.at] === "~") {
      const digits = /^\d+/.exec(this.text.slice(this.at + 1));
      if (!digits) fail('proximity needs a number: "a b"~N', this.at, 'Write e.g. "deploy docker"~5 for words at most 5 positions apart.');
      const proximity = Number(digits[0]);
      if (proximity > QUERY_LIMITS.maxProximity) {
        fail(`proximity ${proximity} is above ${QUERY_LIMITS.maxProximity}`, this.at, `Use a distance of at most ${QUERY_LIMITS.maxProximity}.`);
      }
      node.proximity = proximity;
      this.at += 1 + digits[0].length;
    }
    return { type: "term", at, text: this.text.slice(at, this.at), node };
  }
}

class Parser {
  private current: Lexeme;
  private depth = 0;
  private terms = 0;
  constructor(private readonly lexer: Lexer) {
    this.current = lexer.next();
  }

  parse(): QueryNode {
    if (this.peek() === "eof") return { kind: "all" };
    const node = this.or(undefined);
    if (this.peek() === "rparen") fail("unbalanced ')': there is no matching '('", this.current.at, SYNTAX_HINT);
    if (this.peek() !== "eof") fail(`unexpected ${this.describe(this.current)}`, this.current.at, SYNTAX_HINT);
    return node;
  }

  /** The type of the current lexeme (a call, so TypeScript does not keep a narrowing across advance()). */
  private peek(): Lexeme["type"] {
    return this.current.type;
  }

  private advance(): Lexeme {
    const previous = this.current;
    this.current = this.lexer.next();
    return previous;
  }

  private describe(lexeme: Lexeme): string {
    return lexeme.type === "eof" ? "end of query" : `"${lexeme.text}"`;
  }

  private or(field: QueryField | undefined): QueryNode {
    const children = [this.and(field)];
    while (this.peek() === "or") {
      const operator = this.advance();
      this.expectOperand(operator);
      children.push(this.and(field));
    }
    return combine("or", children);
  }

  private and(field: QueryField | undefined): QueryNode {
    const children = [this.unary(field)];
    for (;;) {
      if (this.peek() === "and") {
        const operator = this.advance();
        this.expectOperand(operator);
      } else if (!this.startsOperand()) {
        break;
      }
      children.push(this.unary(field));
    }
    return combine("and", children);
  }

  private startsOperand(): boolean {
    const t = this.peek();
    return t === "term" || t === "lparen" || t === "not" || t === "field-group";
  }

  private expectOperand(operator: Lexeme): void {
    if (!this.startsOperand()) {
      fail(`${operator.text} needs a term after it, found ${this.describe(this.current)}`, operator.at, SYNTAX_HINT);
    }
  }

  private unary(field: QueryField | undefined): QueryNode {
    if (this.peek() === "not") {
      const operator = this.advance();
      this.expectOperand(operator);
      this.enter(operator.at);
      const child = this.unary(field);
      this.depth--;
      return { kind: "not", child };
    }
    return this.primary(field);
  }

  private enter(at: number): void {
    if (++this.depth > QUERY_LIMITS.maxDepth) {
      fail(`nesting deeper than ${QUERY_LIMITS.maxDepth} levels`, at, "Flatten the query: fewer nested parentheses and NOTs.");
    }
  }

  private primary(field: QueryField | undefined): QueryNode {
    const lexeme = this.current;
    switch (lexeme.type) {
      case "term": {
        this.advance();
        if (++this.terms > QUERY_LIMITS.maxTerms) {
          fail(`more than ${QUERY_LIMITS.maxTerms} terms`, lexeme.at, "Shorten the query.");
        }
        const node = lexeme.node;
        return node.field === undefined && field !== undefined ? { ...node, field } : node;
      }
      case "field-group": {
        this.advance();
        return this.group(lexeme.field);
      }
      case "lparen":
        return this.group(field);
      case "and":
      case "or":
        return fail(`${lexeme.text} needs a term before it`, lexeme.at, SYNTAX_HINT);
      case "rparen":
        return fail("unbalanced ')': there is no matching '('", lexeme.at, SYNTAX_HINT);
      default:
        return fail(`unexpected ${this.describe(lexeme)}`, lexeme.at, SYNTAX_HINT);
    }
  }

  /** `(` or … `)`; the current lexeme is the `(`. */
  private group(field: QueryField | undefined): QueryNode {
    const open = this.advance();
    this.enter(open.at);
    if (this.peek() === "rparen") fail("empty parentheses", open.at, "Put at least one term inside ( ).");
    if (this.peek() === "eof") fail("unbalanced '(': missing ')'", open.at, SYNTAX_HINT);
    const inner = this.or(field);
    if (this.peek() !== "rparen") fail("unbalanced '(': missing ')'", open.at, SYNTAX_HINT);
    this.advance();
    this.depth--;
    return inner;
  }
}

function combine(kind: "and" | "or", nodes: QueryNode[]): QueryNode {
  if (nodes.length === 1) return nodes[0]!;
  const children = nodes.flatMap((n) => (n.kind === kind ? n.children : [n]));
  return { kind, children };
}

/** Parses a query; throws RyeError BAD_REQUEST with `details.position` on any syntax error. */
export function parseQuery(query: string): QueryNode {
  if (query.length > QUERY_LIMITS.maxLength) {
    fail(`the query is longer than ${QUERY_LIMITS.maxLength} characters`, QUERY_LIMITS.maxLength, "Shorten the query.");
  }
  return new Parser(new Lexer(query)).parse();
}
