/**
 * Reads top-level `export const NAME = <literal>` declarations from JavaScript
 * or TypeScript source WITHOUT executing it.
 *
 * Uses a hand-written tokenizer (comments, strings, template literals with
 * nested `${}` code, regex literals) so text inside them never looks like a
 * declaration, and a recursive-descent literal parser bounded by MAX_DEPTH.
 */

export interface JsExports {
  values: Record<string, unknown>;
  errors: string[];
}

/** Deepest bracket nesting accepted in one value. */
const MAX_DEPTH = 64;

export function extractJsExports(source: string): JsExports {
  const result: JsExports = { values: {}, errors: [] };
  const src = normalizeSource(source);
  const tokens = tokenize(src);
  const lineOf = lineLocator(src);
  for (let i = 0; i < tokens.length; i++) {
    if (!isExportDeclaration(tokens, i)) continue;
    const reader = new Reader(tokens, i + 2);
    readDeclarators(reader, result, lineOf);
    i = Math.max(i, reader.pos - 1);
  }
  return result;
}

// ---------------------------------------------------------------------------
// Declarations

function isExportDeclaration(tokens: Token[], i: number): boolean {
  const token = tokens[i]!;
  const keyword = tokens[i + 1];
  const previous = tokens[i - 1];
  return (
    token.depth === 0 &&
    isName(token, "export") &&
    keyword !== undefined &&
    (isName(keyword, "const") || isName(keyword, "let") || isName(keyword, "var")) &&
    !(previous && (isPunct(previous, ".") || isPunct(previous, "?.")))
  );
}

/** Reads `NAME[: type] = value` declarators separated by commas. */
function readDeclarators(reader: Reader, result: JsExports, lineOf: (offset: number) => number): void {
  for (;;) {
    const nameToken = reader.peek();
    if (nameToken?.kind !== "name") return; // destructuring, `const enum`, …
    reader.pos++;
    reader.acceptPunct("!");
    if (reader.acceptPunct(":")) reader.skipType(nameToken.depth);
    if (reader.acceptPunct(",")) continue; // `let a, b = 1`
    if (!reader.acceptPunct("=")) return; // no initializer

    try {
      const value = reader.parseValue(0);
      const more = reader.acceptPunct(",");
      if (!more) reader.expectStatementEnd();
      setOwn(result.values, nameToken.text, value);
      if (!more) return;
    } catch (error) {
      const at = error instanceof LiteralError ? error.offset : nameToken.start;
      result.errors.push(`${nameToken.text}: ${errorMessage(error)} at line ${lineOf(at)}`);
      return;
    }
  }
}

// ---------------------------------------------------------------------------
// Tokenizer

type TokenKind =
  | "name"
  | "number"
  | "string"
  | "template" // `…` without substitutions
  | "templateHead" // `…${
  | "templateMiddle" // }…${
  | "templateTail" // }…`
  | "punct"
  | "regex";

interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  /** Bracket depth around the token (brackets themselves carry the outer depth). */
  depth: number;
  /** A line break separates this token from the previous one (needed for ASI). */
  nlBefore: boolean;
  /** Raw text between the delimiters of strings and templates. */
  body?: string;
  terminated?: boolean;
}

// `>` is always its own token so that `Array<Array<T>>=` closes generics correctly in type skipping.
const PUNCTUATORS = [
  "...", "===", "!==", "**=", "<<=", "&&=", "||=", "??=",
  "=>", "==", "!=", "<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "&&", "||", "??", "?.", "**", "++", "--", "<<",
];
// After these keywords a `/` starts a regex literal rather than a division.
const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await",
]);
const ENDS_OPERAND = new Set(["]", "++", "--"]);
const STATEMENT_HEADS = new Set(["if", "while", "for", "with"]);
// Whether a `{` opens a block or an object literal, judged from the token before it.
const BLOCK_AFTER_PUNCT = new Set([")", ";", "{", "}", "=>"]);
const EXPRESSION_AFTER_KEYWORD = new Set([
  "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "yield", "await", "default",
]);

function tokenize(src: string): Token[] {
  return new Tokenizer(src).run();
}

class Tokenizer {
  private pos = 0;
  /**
   * Open brackets: "[", "${" (template substitution), "(" or "head" (`if (…)`, `while (…)`…),
   * "block" or "object" for `{`.
   */
  private readonly stack: string[] = [];
  /** The last closing bracket ended a block or a statement head, so a `/` after it starts a regex. */
  private closedStatementPart = false;
  private newlineSeen = false;
  /** A failed regex scan ran to the end of its line: no regex may start before this offset. */
  private regexBlockedUntil = -1;
  private readonly tokens: Token[] = [];

  constructor(private readonly src: string) {}

  run(): Token[] {
    if (this.src.startsWith("#!")) this.pos = lineEnd(this.src, 0);
    while (this.pos < this.src.length) this.step();
    return this.tokens;
  }

  private step(): void {
    const src = this.src;
    const c = src[this.pos]!;
    const next = src[this.pos + 1];
    if (isLineTerminator(c)) {
      this.newlineSeen = true;
      this.pos++;
    } else if (c === " " || c === "\t" || /\s/.test(c)) {
      this.pos++;
    } else if (c === "/" && next === "/") {
      this.pos = lineEnd(src, this.pos);
    } else if (c === "/" && next === "*") {
      this.skipBlockComment();
    } else if (c === '"' || c === "'") {
      this.readString(c);
    } else if (c === "`") {
      this.readTemplate(false);
    } else if (c === "}" && this.stack[this.stack.length - 1] === "${") {
      this.stack.pop();
      this.readTemplate(true);
    } else if (isDigit(c) || (c === "." && isDigit(next))) {
      this.push("number", numberEnd(src, this.pos));
    } else {
      const nameEnd = identifierEnd(src, this.pos);
      if (nameEnd > this.pos) this.push("name", nameEnd);
      else if (!(c === "/" && this.regexAllowed() && this.readRegex())) this.readPunct();
    }
  }

  private push(kind: TokenKind, end: number, body?: string, terminated?: boolean): void {
    const token: Token = {
      kind,
      text: this.src.slice(this.pos, end),
      start: this.pos,
      depth: this.stack.length,
      nlBefore: this.newlineSeen,
    };
    if (body !== undefined) {
      token.body = body;
      token.terminated = terminated ?? false;
    }
    this.tokens.push(token);
    this.pos = end;
    this.newlineSeen = false;
  }

  private skipBlockComment(): void {
    const close = this.src.indexOf("*/", this.pos + 2);
    const end = close < 0 ? this.src.length : close + 2;
    if (/[\n\u2028\u2029]/.test(this.src.slice(this.pos, end))) this.newlineSeen = true;
    this.pos = end;
  }

  private readString(quote: string): void {
    const src = this.src;
    let i = this.pos + 1;
    while (i < src.length) {
      const c = src[i]!;
      if (c === "\\") {
        i += 2;
      } else if (c === quote) {
        this.push("string", i + 1, src.slice(this.pos + 1, i), true);
        return;
      } else if (c === "\n") {
        break;
      } else {
        i++;
      }
    }
    const end = Math.min(i, src.length);
    this.push("string", end, src.slice(this.pos + 1, end), false);
  }

  /** Reads template text starting at a backtick, or at the `}` closing a substitution. */
  private readTemplate(continuation: boolean): void {
    const src = this.src;
    const bodyStart = this.pos + 1;
    let i = bodyStart;
    while (i < src.length) {
      const c = src[i]!;
      if (c === "\\") {
        i += 2;
      } else if (c === "`") {
        this.push(continuation ? "templateTail" : "template", i + 1, src.slice(bodyStart, i), true);
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        this.push(continuation ? "templateMiddle" : "templateHead", i + 2, src.slice(bodyStart, i), true);
        this.stack.push("${");
        return;
      } else {
        i++;
      }
    }
    this.push(continuation ? "templateTail" : "template", src.length, src.slice(bodyStart), false);
  }

  private regexAllowed(): boolean {
    if (this.pos < this.regexBlockedUntil) return false;
    const previous = this.tokens[this.tokens.length - 1];
    if (!previous) return true;
    switch (previous.kind) {
      case "name":
        return KEYWORDS_BEFORE_EXPRESSION.has(previous.text);
      case "punct":
        if (previous.text === "}" || previous.text === ")") return this.closedStatementPart;
        return !ENDS_OPERAND.has(previous.text);
      case "templateHead":
      case "templateMiddle":
        return true;
      default:
        return false;
    }
  }

  private readRegex(): boolean {
    const src = this.src;
    let inClass = false;
    let i = this.pos + 1;
    while (i < src.length && !isLineTerminator(src[i]!)) {
      const c = src[i]!;
      if (c === "\\" && isLineTerminator(src[i + 1] ?? "\n")) break;
      if (c === "\\") i++;
      else if (c === "[") inClass = true;
      else if (c === "]") inClass = false;
      else if (c === "/" && !inClass) {
        this.push("regex", identifierEnd(src, i + 1));
        return true;
      }
      i++;
    }
    // Keeps tokenizing linear: a line full of unmatched `/[` is not rescanned for every slash.
    this.regexBlockedUntil = i;
    return false;
  }

  private readPunct(): void {
    const src = this.src;
    let text = PUNCTUATORS.find((p) => src.startsWith(p, this.pos)) ?? src[this.pos]!;
    if (text === "?." && isDigit(src[this.pos + 2])) text = "?"; // `a?.5:0` is a conditional
    const opened = text === "{" ? this.braceKind() : text === "(" ? this.parenKind() : text;
    if (text === ")" || text === "]" || text === "}") {
      const closed = this.stack.pop();
      this.closedStatementPart = closed === "block" || closed === "head";
    }
    this.push("punct", this.pos + text.length);
    if (text === "(" || text === "[" || text === "{") this.stack.push(opened);
  }

  private parenKind(): "head" | "(" {
    const previous = this.tokens[this.tokens.length - 1];
    return previous?.kind === "name" && STATEMENT_HEADS.has(previous.text) ? "head" : "(";
  }

  private inStatementContext(): boolean {
    const enclosing = this.stack[this.stack.length - 1];
    return enclosing === undefined || enclosing === "block";
  }

  private braceKind(): "block" | "object" {
    const previous = this.tokens[this.tokens.length - 1];
    if (!previous) return "block";
    switch (previous.kind) {
      case "punct":
        if (previous.text === ":") return this.inStatementContext() ? "block" : "object"; // `case x: {` / `label: {`
        return BLOCK_AFTER_PUNCT.has(previous.text) ? "block" : "object";
      case "name":
        return EXPRESSION_AFTER_KEYWORD.has(previous.text) ? "object" : "block";
      case "templateHead":
      case "templateMiddle":
        return "object";
      default:
        return "block";
    }
  }
}

/** Greedy: takes everything that could belong to a number; validity is checked when parsing. */
function numberEnd(src: string, pos: number): number {
  const isHex = src[pos] === "0" && (src[pos + 1] === "x" || src[pos + 1] === "X");
  let i = pos;
  while (i < src.length) {
    const c = src[i]!;
    const isExponentSign = (c === "+" || c === "-") && !isHex && (src[i - 1] === "e" || src[i - 1] === "E");
    if (!isAsciiAlphanumeric(c) && c !== "_" && c !== "." && !isExponentSign) break;
    i++;
  }
  return i;
}

// ---------------------------------------------------------------------------
// Literal parser

class LiteralError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

// Tokens that, at the start of a new line, cannot continue the previous expression.
const STARTS_STATEMENT = new Set(["++", "--", "!", "~", "{", "}", ";", "@", "#", "..."]);
const MEMBER_OR_CALL = new Set(["(", "[", ".", "?."]);
// Punctuation that may appear in a type outside brackets; `>` only while closing a `<`.
const TYPE_PUNCTUATION = new Set(["|", "&", ".", "=>", "?", ":", "(", ")", "[", "]", "{", "}", "<"]);
const TYPE_CONTINUES_AFTER = new Set([
  "|", "&", ".", "=>", "?", ":", "<", "extends", "keyof", "typeof", "infer", "is", "readonly", "unique", "new",
  "asserts", "as", "satisfies",
]);
const TYPE_CONTINUES_WITH = new Set(["|", "&", ".", "=>", "?", ":", "extends", ")", "]", "}"]);

class Reader {
  /** The last value read ended with `as T` / `satisfies T`. */
  private endedWithType = false;

  constructor(
    private readonly tokens: Token[],
    public pos: number,
  ) {}

  parseValue(depth: number): unknown {
    const value = this.parsePrimary(depth);
    this.endedWithType = false;
    // TypeScript `as const`, `as T`, `satisfies T` (a line break before them ends the expression).
    for (let token = this.peek(); token && !token.nlBefore && isTypeOperator(token); token = this.peek()) {
      this.pos++;
      this.skipType(token.depth);
      this.endedWithType = true;
    }
    return value;
  }

  /** Skips a type annotation; stops before `,` `;` `=` or a closing bracket of the enclosing value. */
  skipType(base: number): void {
    const start = this.pos;
    let angle = 0;
    for (let token = this.peek(); token && token.depth >= base; token = this.peek()) {
      if (token.depth === base) {
        if (angle === 0 && this.endsType(token, this.pos > start)) return;
        if (isPunct(token, "<")) angle++;
        else if (isPunct(token, ">")) angle--;
      }
      this.pos++;
    }
  }

  /** Whether `token`, outside any bracket of the type, is no longer part of it. */
  private endsType(token: Token, afterFirst: boolean): boolean {
    const previous = this.tokens[this.pos - 1]!;
    if (token.kind === "punct" && token.text === "-") {
      // `-1` is a literal type only where a type may start: `A | -1`, `x: -1`
      if (afterFirst && !TYPE_CONTINUES_AFTER.has(previous.text)) return true;
    } else if (token.kind === "punct" && !TYPE_PUNCTUATION.has(token.text)) {
      return true; // `,` `;` `=`, and binary operators such as `satisfies T + 1`
    }
    if (isTypeOperator(token) && !token.nlBefore) return true;
    if (!afterFirst || !token.nlBefore) return false;
    return !TYPE_CONTINUES_AFTER.has(previous.text) && !TYPE_CONTINUES_WITH.has(token.text);
  }

  expectStatementEnd(): void {
    const token = this.peek();
    if (!token || isPunct(token, ";")) return;
    if (token.nlBefore && !continuesExpression(token, this.endedWithType)) return;
    this.fail(token);
  }

  private parsePrimary(depth: number): unknown {
    const token = this.peek();
    if (!token) throw new LiteralError("missing value", this.tokens[this.pos - 1]?.start ?? 0);
    switch (token.kind) {
      case "string":
      case "template":
        this.pos++;
        return decodeString(token);
      case "templateHead":
        throw new LiteralError("not a literal (template with substitutions)", token.start);
      case "number":
        this.pos++;
        return parseNumber(token);
      case "name":
        this.pos++;
        return keywordValue(token);
      case "punct":
        return this.parsePunctuated(token, depth);
      default:
        return this.fail(token);
    }
  }

  private parsePunctuated(token: Token, depth: number): unknown {
    switch (token.text) {
      case "[":
        return this.parseArray(depth);
      case "{":
        return this.parseObject(depth);
      case "(": {
        const value = this.parseValue(this.open(depth));
        this.expectPunct(")");
        return value;
      }
      case "-":
      case "+": {
        this.pos++;
        const operand = this.peek();
        if (operand?.kind !== "number") return this.fail(operand);
        this.pos++;
        const value = parseNumber(operand);
        return token.text === "-" ? -value : value;
      }
      default:
        return this.fail(token);
    }
  }

  private parseArray(depth: number): unknown[] {
    const inner = this.open(depth);
    const items: unknown[] = [];
    while (!this.isPunct("]")) {
      const token = this.peek();
      if (token && isPunct(token, ",")) throw new LiteralError("not a literal (array hole)", token.start);
      items.push(this.parseValue(inner));
      if (!this.acceptPunct(",")) break;
    }
    this.expectPunct("]");
    return items;
  }

  private parseObject(depth: number): Record<string, unknown> {
    const inner = this.open(depth);
    const object: Record<string, unknown> = {};
    while (!this.isPunct("}")) {
      const keyToken = this.peek();
      const key = this.parseKey();
      if (!this.acceptPunct(":")) {
        throw new LiteralError(`not a literal (property '${key}' has no plain value)`, keyToken!.start);
      }
      setOwn(object, key, this.parseValue(inner));
      if (!this.acceptPunct(",")) break;
    }
    this.expectPunct("}");
    return object;
  }

  private parseKey(): string {
    const token = this.peek();
    if (!token) return this.fail(token);
    this.pos++;
    if (token.kind === "name") return token.text;
    if (token.kind === "string") return decodeString(token);
    if (token.kind === "number") return String(parseNumber(token));
    if (isPunct(token, "[")) throw new LiteralError("not a literal (computed key)", token.start);
    return this.fail(token);
  }

  /** Consumes an opening bracket and returns the depth of its contents. */
  private open(depth: number): number {
    const token = this.tokens[this.pos++]!;
    if (depth + 1 > MAX_DEPTH) throw new LiteralError(`nesting depth exceeds ${MAX_DEPTH}`, token.start);
    return depth + 1;
  }

  peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token !== undefined && isPunct(token, text);
  }

  acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.pos++;
    return true;
  }

  private expectPunct(text: string): void {
    if (!this.acceptPunct(text)) this.fail(this.peek());
  }

  private fail(token: Token | undefined): never {
    if (!token) {
      const last = this.tokens[this.tokens.length - 1];
      throw new LiteralError("not a literal (unexpected end of input)", last?.start ?? 0);
    }
    throw new LiteralError(`not a literal (unexpected ${describe(token)})`, token.start);
  }
}

function keywordValue(token: Token): unknown {
  switch (token.text) {
    case "true":
      return true;
    case "false":
      return false;
    case "null":
    case "undefined":
      return null;
    default:
      throw new LiteralError(`not a literal (identifier '${token.text}')`, token.start);
  }
}

function isTypeOperator(token: Token): boolean {
  return isName(token, "as") || isName(token, "satisfies");
}

/**
 * Whether `token`, at the start of a new line, continues the expression before it (no ASI).
 * After `x as T` only binary operators continue; calls, member access and tagged templates do not.
 */
function continuesExpression(token: Token, afterType: boolean): boolean {
  switch (token.kind) {
    case "template":
    case "templateHead":
      return !afterType; // tagged template
    case "name":
      return token.text === "in" || token.text === "instanceof";
    case "punct":
      return !STARTS_STATEMENT.has(token.text) && !(afterType && MEMBER_OR_CALL.has(token.text));
    default:
      return false;
  }
}

function describe(token: Token): string {
  const text = token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text;
  return `'${text}'`;
}

// ---------------------------------------------------------------------------
// Numbers

const DECIMAL =
  /^(?:(?:0|[1-9](?:_?[0-9])*)(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;
const PREFIXED = /^0(?:[xX][0-9a-fA-F](?:_?[0-9a-fA-F])*|[oO][0-7](?:_?[0-7])*|[bB][01](?:_?[01])*)$/;

function parseNumber(token: Token): number {
  const text = token.text;
  if (DECIMAL.test(text) || PREFIXED.test(text)) return Number(text.replaceAll("_", ""));
  if (text.endsWith("n")) throw new LiteralError("bigint literals are not supported", token.start);
  throw new LiteralError(`invalid number ${describe(token)}`, token.start);
}

// ---------------------------------------------------------------------------
// Strings

const SIMPLE_ESCAPES: Record<string, string> = {
  "\n": "",
  "\u2028": "",
  "\u2029": "",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

function decodeString(token: Token): string {
  if (!token.terminated) throw new LiteralError("unterminated string", token.start);
  const body = token.body ?? "";
  let out = "";
  let i = 0;
  for (let slash = body.indexOf("\\"); slash >= 0; slash = body.indexOf("\\", i)) {
    out += body.slice(i, slash);
    const escape = readEscape(body, slash + 1, token.start);
    out += escape.text;
    i = escape.end;
  }
  return out + body.slice(i);
}

function readEscape(body: string, pos: number, offset: number): { text: string; end: number } {
  const c = body[pos] ?? "";
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { text: simple, end: pos + 1 };
  if (c === "0" && !isDigit(body[pos + 1])) return { text: "\0", end: pos + 1 };
  if (isDigit(c)) throw new LiteralError("invalid literal (octal escapes are not allowed)", offset);
  if (c === "x") return hexEscape(body, pos + 1, 2, offset);
  if (c === "u" && body[pos + 1] === "{") {
    const close = body.indexOf("}", pos + 2);
    if (close < 0) throw new LiteralError("invalid literal (bad \\u escape)", offset);
    return hexEscape(body, pos + 2, close - pos - 2, offset, 1);
  }
  if (c === "u") return hexEscape(body, pos + 1, 4, offset);
  return { text: c, end: pos + c.length };
}

function hexEscape(body: string, pos: number, length: number, offset: number, suffix = 0): { text: string; end: number } {
  const hex = body.slice(pos, pos + length);
  const valid = length > 0 && hex.length === length && /^[0-9a-fA-F]+$/.test(hex);
  const code = valid ? parseInt(hex, 16) : -1;
  if (code < 0 || code > 0x10ffff) throw new LiteralError("invalid literal (bad hex escape)", offset);
  return { text: String.fromCodePoint(code), end: pos + length + suffix };
}

// ---------------------------------------------------------------------------
// Character helpers

function normalizeSource(source: string): string {
  const withoutBom = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  return withoutBom.replace(/\r\n?/g, "\n");
}

function lineLocator(src: string): (offset: number) => number {
  const starts = [0];
  for (let i = src.indexOf("\n"); i >= 0; i = src.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

function lineEnd(src: string, pos: number): number {
  const end = src.indexOf("\n", pos);
  return end < 0 ? src.length : end;
}

const ID_START = /[\p{ID_Start}_$]/u;
const ID_CONTINUE = /[\p{ID_Continue}$\u200c\u200d]/u;

function identifierEnd(src: string, pos: number): number {
  let i = pos;
  while (i < src.length) {
    const code = src.charCodeAt(i);
    if (code < 0x80) {
      const c = src[i]!;
      const ok = c === "_" || c === "$" || isAsciiLetter(c) || (i > pos && isDigit(c));
      if (!ok) break;
      i++;
      continue;
    }
    const char = String.fromCodePoint(src.codePointAt(i)!);
    if (!(i === pos ? ID_START : ID_CONTINUE).test(char)) break;
    i += char.length;
  }
  return i;
}

function isLineTerminator(c: string): boolean {
  return c === "\n" || c === "\u2028" || c === "\u2029";
}

function isName(token: Token, text: string): boolean {
  return token.kind === "name" && token.text === text;
}

function isPunct(token: Token, text: string): boolean {
  return token.kind === "punct" && token.text === text;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function isAsciiLetter(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
}

function isAsciiAlphanumeric(c: string): boolean {
  return isAsciiLetter(c) || isDigit(c);
}

/** Defines an own property even for keys such as `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function errorMessage(error: unknown): string {
  if (error instanceof LiteralError) return error.message;
  return `could not be read (${error instanceof Error ? error.message : String(error)})`;
}
