/**
 * Reads module-level literal assignments (`NAME = <literal>`) and the module
 * docstring from Python source WITHOUT executing it.
 *
 * Accepts the subset of Python that `ast.literal_eval` accepts, minus complex
 * numbers. Works on a hand-written tokenizer (linear time, no backtracking
 * regexes over the source) and a recursive-descent parser whose recursion is
 * bounded by MAX_DEPTH.
 */

export interface PythonAssignments {
  values: Record<string, unknown>;
  docstring?: string;
  errors: string[];
}

/** Deepest bracket nesting accepted in one value. */
const MAX_DEPTH = 64;
/** f-strings nested deeper than this are still tokenized, but their fields are not inspected. */
const MAX_FSTRING_NESTING = 16;

const KEYWORDS = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
  "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
  "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
]);
// A `;` after the header of one of these belongs to its body, not to the module.
const COMPOUND_KEYWORDS = new Set([
  "if", "elif", "else", "for", "while", "def", "class", "with", "try", "except", "finally", "async",
]);
const STRING_PREFIXES = new Set(["r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"]);

export function extractPythonAssignments(source: string): PythonAssignments {
  const result: PythonAssignments = { values: {}, errors: [] };
  const src = normalizeSource(source);
  const tokens = tokenize(src);
  const lines = splitRanges(tokens, 0, tokens.length, (t) => t.kind === "newline");
  const lineOf = lineLocator(src);

  lines.forEach((line, index) => {
    const segments = splitRanges(tokens, line.start, line.end, (t) => isOp(t, ";") && t.depth === 0);
    if (index === 0 && segments[0]) {
      const docstring = readDocstring(tokens, segments[0]);
      if (docstring !== undefined) result.docstring = docstring;
    }
    if (!startsAtColumnZero(src, tokens[line.start]!.start)) return;
    for (const segment of segments) {
      const first = tokens[segment.start]!;
      if (first.kind === "name" && COMPOUND_KEYWORDS.has(first.text)) break;
      readAssignment(tokens, segment, result, lineOf);
    }
  });
  return result;
}

// ---------------------------------------------------------------------------
// Statements

interface Range {
  start: number;
  end: number;
}

function readAssignment(
  tokens: Token[],
  { start, end }: Range,
  result: PythonAssignments,
  lineOf: (offset: number) => number,
): void {
  const targets: string[] = [];
  let i = start;
  // `a = b = 1` assigns to every name followed by `=`.
  while (i + 1 < end && isTargetName(tokens[i]!) && isOp(tokens[i + 1]!, "=")) {
    targets.push(tokens[i]!.text);
    i += 2;
  }
  if (targets.length === 0) {
    if (i + 1 >= end || !isTargetName(tokens[i]!) || !isOp(tokens[i + 1]!, ":")) return;
    const equals = findTopLevel(tokens, i + 2, end, "=");
    if (equals < 0) return; // bare annotation `NAME: type`
    targets.push(tokens[i]!.text);
    i = equals + 1;
  }

  try {
    const value = new LiteralParser(tokens, i, end).parseStatementValue();
    for (const name of targets) setOwn(result.values, name, value);
  } catch (error) {
    const at = error instanceof LiteralError ? error.offset : tokens[i - 1]!.start;
    result.errors.push(`${targets.join(", ")}: ${errorMessage(error)} at line ${lineOf(at)}`);
  }
}

function readDocstring(tokens: Token[], { start, end }: Range): string | undefined {
  const first = tokens[start]!;
  if (first.kind !== "string" && !isOp(first, "(")) return undefined;
  for (let i = start; i < end; i++) {
    if (tokens[i]!.str?.prefix.includes("b")) return undefined;
  }
  try {
    const value = new LiteralParser(tokens, start, end).parseStatementValue();
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function isTargetName(token: Token): boolean {
  return token.kind === "name" && !KEYWORDS.has(token.text);
}

function findTopLevel(tokens: Token[], start: number, end: number, op: string): number {
  for (let i = start; i < end; i++) {
    if (tokens[i]!.depth === 0 && isOp(tokens[i]!, op)) return i;
  }
  return -1;
}

function splitRanges(tokens: Token[], start: number, end: number, isSeparator: (t: Token) => boolean): Range[] {
  const ranges: Range[] = [];
  let from = start;
  for (let i = start; i <= end; i++) {
    if (i < end && !isSeparator(tokens[i]!)) continue;
    if (i > from) ranges.push({ start: from, end: i });
    from = i + 1;
  }
  return ranges;
}

function startsAtColumnZero(src: string, offset: number): boolean {
  return offset === 0 || src[offset - 1] === "\n";
}

// ---------------------------------------------------------------------------
// Tokenizer

type TokenKind = "name" | "number" | "string" | "op" | "newline";

interface StringInfo {
  /** Lower-cased prefix, e.g. "rb". */
  prefix: string;
  /** Raw text between the quotes. */
  body: string;
  terminated: boolean;
}

interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  /** Bracket depth around the token (brackets themselves carry the outer depth). */
  depth: number;
  str?: StringInfo;
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let depth = 0;
  const push = (kind: TokenKind, start: number, end: number, str?: StringInfo): void => {
    const token: Token = { kind, text: src.slice(start, end), start, depth };
    if (str) token.str = str;
    tokens.push(token);
  };
  const endLogicalLine = (): void => {
    const last = tokens[tokens.length - 1];
    if (depth === 0 && last && last.kind !== "newline") push("newline", pos, pos);
  };

  while (pos < src.length) {
    const c = src[pos]!;
    if (c === "\n") {
      endLogicalLine();
      pos++;
    } else if (c === " " || c === "\t" || c === "\f") {
      pos++;
    } else if (c === "#") {
      pos = lineEnd(src, pos);
    } else if (c === "\\" && src[pos + 1] === "\n") {
      pos += 2;
    } else if (isQuote(c)) {
      pos = pushString(src, pos, pos, "", push);
    } else if (isDigit(c) || (c === "." && isDigit(src[pos + 1]))) {
      const end = numberEnd(src, pos);
      push("number", pos, end);
      pos = end;
    } else {
      const nameEnd = identifierEnd(src, pos);
      if (nameEnd > pos) {
        const prefix = src.slice(pos, nameEnd).toLowerCase();
        if (isQuote(src[nameEnd]) && STRING_PREFIXES.has(prefix)) {
          pos = pushString(src, pos, nameEnd, prefix, push);
        } else {
          push("name", pos, nameEnd);
          pos = nameEnd;
        }
        continue;
      }
      const end = operatorEnd(src, pos);
      if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
      push("op", pos, end);
      if (c === "(" || c === "[" || c === "{") depth++;
      pos = end;
    }
  }
  endLogicalLine();
  return tokens;
}

function pushString(
  src: string,
  start: number,
  quotePos: number,
  prefix: string,
  push: (kind: TokenKind, start: number, end: number, str: StringInfo) => void,
): number {
  const quoteLength = src.startsWith(src[quotePos]!.repeat(3), quotePos) ? 3 : 1;
  const { end, terminated } = scanString(src, quotePos, isFormatPrefix(prefix), 0);
  const body = src.slice(quotePos + quoteLength, terminated ? end - quoteLength : end);
  push("string", start, end, { prefix, body, terminated });
  return end;
}

/** Finds the end of the string whose opening quote is at `quotePos`. */
function scanString(src: string, quotePos: number, isFormat: boolean, nesting: number): { end: number; terminated: boolean } {
  const quote = src[quotePos]!;
  const closing = src.startsWith(quote.repeat(3), quotePos) ? quote.repeat(3) : quote;
  const inspectFields = isFormat && nesting < MAX_FSTRING_NESTING;
  let i = quotePos + closing.length;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\\") {
      i += 2;
    } else if (c === quote && src.startsWith(closing, i)) {
      return { end: i + closing.length, terminated: true };
    } else if (c === "\n" && closing.length === 1) {
      return { end: i, terminated: false };
    } else if (inspectFields && c === "{") {
      // Since Python 3.12 a replacement field may contain the f-string's own quote character.
      i = src[i + 1] === "{" ? i + 2 : skipReplacementField(src, i + 1, nesting + 1);
    } else {
      i++;
    }
  }
  return { end: src.length, terminated: false };
}

/** Skips an f-string replacement field starting after its `{`; returns the offset after its `}`. */
function skipReplacementField(src: string, pos: number, nesting: number): number {
  let depth = 0;
  let i = pos;
  while (i < src.length) {
    const c = src[i]!;
    if (isQuote(c)) {
      i = scanString(src, i, false, nesting).end;
      continue;
    }
    const nameEnd = identifierEnd(src, i);
    if (nameEnd > i) {
      const prefix = src.slice(i, nameEnd).toLowerCase();
      const isString = isQuote(src[nameEnd]) && STRING_PREFIXES.has(prefix);
      i = isString ? scanString(src, nameEnd, isFormatPrefix(prefix), nesting).end : nameEnd;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
    else if (c === "}" && depth === 0) return i + 1;
    else if (c === "}") depth--;
    else if (c === ":" && depth === 0) return skipFormatSpec(src, i + 1, nesting);
    i++;
  }
  return i;
}

function skipFormatSpec(src: string, pos: number, nesting: number): number {
  let i = pos;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "}") return i + 1;
    if (c === "{" && nesting < MAX_FSTRING_NESTING) i = skipReplacementField(src, i + 1, nesting + 1);
    else i++;
  }
  return i;
}

function isFormatPrefix(prefix: string): boolean {
  return prefix.includes("f") || prefix.includes("t");
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

function operatorEnd(src: string, pos: number): number {
  const c = src[pos]!;
  const next = src[pos + 1];
  if ("*/<>".includes(c) && next === c) return src[pos + 2] === "=" ? pos + 3 : pos + 2;
  if (next === "=" && "=!<>:+-*/%&|^@~".includes(c)) return pos + 2;
  if (c === "-" && next === ">") return pos + 2;
  return pos + 1;
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

class LiteralParser {
  private pos: number;

  constructor(
    private readonly tokens: Token[],
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }

  /** The right-hand side of an assignment; a bare `1, 2` is a tuple. */
  parseStatementValue(): unknown {
    const first = this.parseValue(0);
    const value = this.acceptOp(",") ? [first, ...this.parseItems(0, undefined)] : first;
    if (this.pos < this.end) this.fail(this.tokens[this.pos]!);
    return value;
  }

  private parseValue(depth: number): unknown {
    const token = this.peek();
    if (!token) throw new LiteralError("missing value", this.lastOffset());
    switch (token.kind) {
      case "string":
        return this.parseStrings();
      case "number":
        this.pos++;
        return parseNumber(token);
      case "name":
        this.pos++;
        if (token.text === "True") return true;
        if (token.text === "False") return false;
        if (token.text === "None") return null;
        throw new LiteralError(`not a literal (name '${token.text}')`, token.start);
      default:
        return this.parseOperatorValue(token, depth);
    }
  }

  private parseOperatorValue(token: Token, depth: number): unknown {
    if (token.text === "[") return this.parseList(depth);
    if (token.text === "(") return this.parseParenthesized(depth);
    if (token.text === "{") return this.parseBraces(depth);
    if (token.text === "-" || token.text === "+") {
      this.pos++;
      const operand = this.peek();
      if (operand?.kind !== "number") this.fail(operand ?? token);
      this.pos++;
      const value = parseNumber(operand);
      return token.text === "-" ? -value : value;
    }
    return this.fail(token);
  }

  private parseStrings(): string {
    const parts: string[] = [];
    let isBytes: boolean | undefined;
    for (let token = this.peek(); token?.kind === "string"; token = this.peek()) {
      const { prefix, body, terminated } = token.str!;
      if (!terminated) throw new LiteralError("unterminated string", token.start);
      if (isFormatPrefix(prefix)) throw new LiteralError("not a literal (f-string)", token.start);
      const bytes = prefix.includes("b");
      if (isBytes !== undefined && bytes !== isBytes) {
        throw new LiteralError("invalid literal (cannot mix bytes and str)", token.start);
      }
      isBytes = bytes;
      parts.push(decodeString(body, prefix, token.start));
      this.pos++;
    }
    return parts.join("");
  }

  private parseList(depth: number): unknown[] {
    const inner = this.open(depth);
    return this.parseItems(inner, "]");
  }

  private parseParenthesized(depth: number): unknown {
    const inner = this.open(depth);
    if (this.acceptOp(")")) return [];
    const first = this.parseValue(inner);
    if (this.acceptOp(")")) return first;
    this.expectOp(",");
    return [first, ...this.parseItems(inner, ")")];
  }

  private parseBraces(depth: number): unknown {
    const inner = this.open(depth);
    if (this.acceptOp("}")) return {};
    const keyToken = this.peek()!;
    const first = this.parseValue(inner);
    if (this.acceptOp(":")) return this.parseDictFrom(inner, dictKey(first, keyToken));
    const items = [first];
    if (this.acceptOp(",")) items.push(...this.parseItems(inner, "}"));
    else this.expectOp("}");
    return [...new Set(items)];
  }

  private parseDictFrom(depth: number, firstKey: string): Record<string, unknown> {
    const dict: Record<string, unknown> = {};
    let key = firstKey;
    for (;;) {
      setOwn(dict, key, this.parseValue(depth));
      if (!this.acceptOp(",") || this.isOp("}")) break;
      const keyToken = this.peek()!;
      key = dictKey(this.parseValue(depth), keyToken);
      this.expectOp(":");
    }
    this.expectOp("}");
    return dict;
  }

  /** Comma-separated values up to `closer` (or the end of the statement); trailing comma allowed. */
  private parseItems(depth: number, closer: string | undefined): unknown[] {
    const items: unknown[] = [];
    while (!this.atItemsEnd(closer)) {
      items.push(this.parseValue(depth));
      if (!this.acceptOp(",")) break;
    }
    if (closer) this.expectOp(closer);
    return items;
  }

  private atItemsEnd(closer: string | undefined): boolean {
    return closer ? this.isOp(closer) : this.pos >= this.end;
  }

  /** Consumes an opening bracket and returns the depth of its contents. */
  private open(depth: number): number {
    const token = this.tokens[this.pos++]!;
    if (depth + 1 > MAX_DEPTH) throw new LiteralError(`nesting depth exceeds ${MAX_DEPTH}`, token.start);
    return depth + 1;
  }

  private peek(): Token | undefined {
    return this.pos < this.end ? this.tokens[this.pos] : undefined;
  }

  private isOp(text: string): boolean {
    const token = this.peek();
    return token !== undefined && isOp(token, text);
  }

  private acceptOp(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.pos++;
    return true;
  }

  private expectOp(text: string): void {
    if (!this.acceptOp(text)) this.fail(this.peek());
  }

  private fail(token: Token | undefined): never {
    if (!token) throw new LiteralError("not a literal (unexpected end of statement)", this.lastOffset());
    throw new LiteralError(`not a literal (unexpected ${describe(token)})`, token.start);
  }

  private lastOffset(): number {
    return this.tokens[Math.min(this.pos, this.end) - 1]?.start ?? 0;
  }
}

function dictKey(key: unknown, token: Token): string {
  if (typeof key === "string" || typeof key === "number") return String(key);
  throw new LiteralError("unsupported dict key (only str and number keys)", token.start);
}

function describe(token: Token): string {
  const text = token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text;
  return `'${text}'`;
}

// ---------------------------------------------------------------------------
// Numbers

const DIGITS = "[0-9](?:_?[0-9])*";
const DECIMAL_INT = /^(?:0(?:_?0)*|[1-9](?:_?[0-9])*)$/;
const PREFIXED_INT = /^0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)$/;
const FLOAT = new RegExp(`^(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?$`);

function parseNumber(token: Token): number {
  const text = token.text;
  if (/[jJ]$/.test(text)) throw new LiteralError("complex numbers are not supported", token.start);
  const digits = text.replaceAll("_", "");
  if (DECIMAL_INT.test(text) || PREFIXED_INT.test(text)) return Number(digits);
  if (FLOAT.test(text) && /[.eE]/.test(text)) return Number(digits);
  throw new LiteralError(`invalid number ${describe(token)}`, token.start);
}

// ---------------------------------------------------------------------------
// Strings

const SIMPLE_ESCAPES: Record<string, string> = {
  "\n": "",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** Bytes literals are returned as strings with one char per byte (latin-1). */
function decodeString(body: string, prefix: string, offset: number): string {
  const isBytes = prefix.includes("b");
  if (isBytes && /[^\x00-\x7f]/.test(body)) {
    throw new LiteralError("invalid literal (bytes can only contain ASCII characters)", offset);
  }
  if (prefix.includes("r") || !body.includes("\\")) return body;

  let out = "";
  let i = 0;
  while (i < body.length) {
    const slash = body.indexOf("\\", i);
    if (slash < 0) break;
    out += body.slice(i, slash);
    const escape = readEscape(body, slash + 1, isBytes, offset);
    out += escape.text;
    i = escape.end;
  }
  return out + body.slice(i);
}

function readEscape(body: string, pos: number, isBytes: boolean, offset: number): { text: string; end: number } {
  const c = body[pos] ?? "";
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { text: simple, end: pos + 1 };
  if (c >= "0" && c <= "7") {
    let end = pos + 1;
    while (end < pos + 3 && body[end]! >= "0" && body[end]! <= "7") end++;
    const code = parseInt(body.slice(pos, end), 8);
    return { text: String.fromCharCode(isBytes ? code & 0xff : code), end };
  }
  const hexLength = c === "x" ? 2 : isBytes ? 0 : c === "u" ? 4 : c === "U" ? 8 : 0;
  if (hexLength > 0) {
    const hex = body.slice(pos + 1, pos + 1 + hexLength);
    const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === hexLength ? parseInt(hex, 16) : -1;
    if (code < 0 || code > 0x10ffff) throw new LiteralError(`invalid literal (bad \\${c} escape)`, offset);
    return { text: String.fromCodePoint(code), end: pos + 1 + hexLength };
  }
  if (c === "N" && !isBytes) throw new LiteralError("unsupported \\N{...} escape", offset);
  // Unknown escapes keep their backslash, as in Python.
  return { text: `\\${c}`, end: pos + c.length };
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

const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}]/u;

function identifierEnd(src: string, pos: number): number {
  let i = pos;
  while (i < src.length) {
    const code = src.charCodeAt(i);
    if (code < 0x80) {
      const c = src[i]!;
      const ok = c === "_" || isAsciiLetter(c) || (i > pos && isDigit(c));
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

function isOp(token: Token, text: string): boolean {
  return token.kind === "op" && token.text === text;
}

function isQuote(c: string | undefined): boolean {
  return c === '"' || c === "'";
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
