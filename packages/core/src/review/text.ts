/**
 * How the review reads a file: as lines (long lines cut into bounded windows so no rule ever sees more than
 * MAX_WINDOW characters), each with a normalised form for matching (invisible characters removed, split strings
 * joined, shell variables assigned earlier in the file substituted) and what kind of text it is (code or prose;
 * inside an HTML comment; a line that discusses or quotes rather than instructs).
 */

/** Longest text a rule's pattern is run on: longer lines are read in windows of this size (overlapping). */
export const MAX_WINDOW = 2048;
const WINDOW_OVERLAP = 256;
/** Shell variables remembered per file, and the longest value kept. */
const MAX_VARS = 256;
const MAX_VALUE = 256;
/** Characters variable substitution may add per file (so `a=$a$a` repeated cannot blow the text up). */
const MAX_EXPANSION = 64 * 1024;

export type FileKind = "prose" | "code";

export interface Line {
  /** 1-based line number. */
  n: number;
  /** The original line (or window of a long line). */
  raw: string;
  /** What the rules match: raw with invisible characters removed, split strings joined, variables substituted. */
  text: string;
  /** Lowercase of text. */
  lower: string;
  /** A prose line outside fenced code (Markdown), or a comment line in code. */
  prose: boolean;
  /** Inside an HTML comment or a Markdown link-reference comment (`[//]: # (…)`): invisible when rendered. */
  hidden: boolean;
}

/** Whether the line discusses, lists or quotes rather than instructs (security docs, detectors, examples). */
export function discusses(line: Line): boolean {
  return DISCUSSION.test(line.raw);
}

const PROSE_EXT = /\.(?:md|mdx|markdown|txt|rst|mdc)$/i;
export const fileKind = (path: string): FileKind => (PROSE_EXT.test(path) ? "prose" : "code");

// Zero-width, word joiner, BOM, bidi embeddings/overrides/isolates, and the Unicode tag block (as surrogate pairs).
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]/g;
const DISCUSSION =
  /\b(?:such as|for example|e\.g\.|i\.e\.|looks? (?:like|for)|look for|detect(?:s|ed|or)?|flag(?:s|ged)?|check(?:s)? for|search(?:es)? for|scan(?:s|ner)?|report (?:it|them|risky|each|every)|typical(?:ly)?|attackers?|indicators?|risky|malicious|suspicious|phrases?|patterns?|classif(?:y|ier)|label(?:led)?|recogni[sz]e|warn(?:s|ing)?|never (?:add|switch|use|follow|run|paste|share)|do not (?:follow|run|change|add)|explain(?:s)? why|is risky|dangerous)\b/i;

/** Removes invisible characters; joins `"cu""rl"` and `'a' + 'b'` style split strings. */
function normalise(raw: string): string {
  let s = raw.includes("\u200b") || /[\u200c-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069\udb40]/.test(raw) ? raw.replace(INVISIBLE, "") : raw;
  if (s.includes('""') || s.includes("''")) s = s.replace(/(?<=\w)(?:""|'')(?=\w)/g, "");
  if (s.includes("+")) s = s.replace(/(["'])\s{0,4}\+\s{0,4}\1/g, "");
  return s;
}

const ASSIGN = /^\s{0,16}(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w{0,40})=(\S{0,300})/;

function substitute(s: string, vars: Map<string, string>): string {
  if (vars.size === 0 || !s.includes("$")) return s;
  return s.replace(/\$\{([A-Za-z_]\w{0,40})\}|\$([A-Za-z_]\w{0,40})/g, (m, a: string | undefined, b: string | undefined) => vars.get((a ?? b)!) ?? m);
}

const unquote = (v: string) => v.replace(/["']/g, "");

/** Splits a file into lines for the rules. */
export function readLines(path: string, text: string): Line[] {
  const kind = fileKind(path);
  const out: Line[] = [];
  const vars = new Map<string, string>();
  let fence = false;
  let inComment = false;
  let expansion = MAX_EXPANSION;
  const rawLines = text.split("\n");
  for (let i = 0; i < rawLines.length; i++) {
    let line = rawLines[i]!;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.length === 0 || (line.length < 4 && line.trim() === "")) continue;
    const trimmed = line.trimStart();
    if (kind === "prose" && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
      fence = !fence;
      continue;
    }
    // HTML comments (prose files, and HTML/XML assets): the lines between <!-- and -->.
    const opens = line.includes("<!--");
    const wasInComment = inComment;
    if (opens) inComment = !line.slice(line.lastIndexOf("<!--")).includes("-->");
    else if (inComment && line.includes("-->")) inComment = false;
    const hidden = wasInComment || (opens && !/<!--\s*(?:\[if|markdownlint|prettier|eslint|todo|fixme|note:?\s*$)/i.test(line)) || /^\s{0,3}\[\/\/\]:\s*#/.test(line);
    const prose = kind === "prose" ? !fence : /^\s{0,40}(?:#(?!!)|\/\/|\/\*|\*|--|rem\s)/i.test(line);
    const windows = line.length <= MAX_WINDOW ? [line] : windowsOf(line);
    for (const w of windows) {
      const norm = normalise(w);
      let substituted = norm;
      if (expansion > 0) {
        if (kind === "code" || fence) rememberAssignments(norm, vars);
        substituted = substitute(norm, vars);
        expansion -= substituted.length - norm.length;
      }
      out.push({ n: i + 1, raw: w, text: substituted, lower: substituted.toLowerCase(), prose, hidden });
    }
  }
  return out;
}

function windowsOf(line: string): string[] {
  const out: string[] = [];
  for (let start = 0; start < line.length; start += MAX_WINDOW - WINDOW_OVERLAP) {
    out.push(line.slice(start, start + MAX_WINDOW));
    if (start + MAX_WINDOW >= line.length) break;
  }
  return out;
}

function rememberAssignments(line: string, vars: Map<string, string>): void {
  if (!line.includes("=")) return;
  for (const part of line.split(/;|&&/, 8)) {
    const m = ASSIGN.exec(part);
    if (!m) continue;
    if (!vars.has(m[1]!) && vars.size >= MAX_VARS) continue;
    vars.set(m[1]!, unquote(substitute(m[2]!, vars)).slice(0, MAX_VALUE));
  }
}

/** Whether the matched span sits inside double or curly quotes on the line (a quotation, not an instruction). */
export function quoted(line: string, index: number): boolean {
  const before = line.slice(Math.max(0, index - 200), index);
  const straight = (before.match(/"/g)?.length ?? 0) % 2 === 1;
  const curly = before.lastIndexOf("\u201c") > before.lastIndexOf("\u201d");
  return straight || curly;
}
