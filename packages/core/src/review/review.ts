/**
 * Static review of an item or skill before anyone trusts it. It reads every text file (instructions, scripts,
 * references, assets) and flags what public write-ups of malicious agent skills found, grouped in families: hidden
 * instructions, credential and environment exfiltration, remote code fetched and run, encoded payloads, persistence,
 * agent-permission tampering, destructive commands and dependency confusion. Each finding names its file, line,
 * family and risk; the item's risk is the highest finding.
 *
 * It reasons about the files together: a secret read in one script and sent out by another, a SKILL.md that says to
 * run things without asking next to a script that deletes the home folder, a payload stored encoded in an asset.
 * It is a screen, not a proof: it puts a human's eyes on the right lines. Ordinary skills use the same tools
 * (an API key from the environment, curl, base64), so single weak signals stay low and only combinations or
 * unambiguous patterns are high; text that discusses attacks (security docs, detectors) is read as such.
 *
 * Bounded: every rule runs on at most MAX_WINDOW characters with bounded repetition (rules.ts), the text reviewed
 * per item is capped (MAX_REVIEW_CHARS), and so are decoded payloads and findings. Isomorphic (no Node imports).
 */
import { REVIEW_FAMILIES, type Family } from "./families.ts";
import { installedNames, isManifest, judgeName, knownIndex, manifestName } from "./packages.ts";
import { LINE_RULES, type LineRule, type Tag } from "./rules.ts";
import { discusses, fileKind, quoted, readLines, type Line } from "./text.ts";

export { REVIEW_FAMILIES, type Family } from "./families.ts";

export type Risk = "none" | "low" | "medium" | "high";
export const RISK_ORDER: readonly Risk[] = ["none", "low", "medium", "high"];

export interface ReviewFile {
  path: string;
  text: string;
}

export interface Finding {
  rule: string;
  family: Family;
  risk: Exclude<Risk, "none">;
  path: string;
  /** 1-based. */
  line: number;
  /** The matched line, trimmed and cut to 160 characters; invisible characters shown as <U+XXXX>. */
  excerpt: string;
  message: string;
}

export interface Review {
  risk: Risk;
  findings: Finding[];
}

/** Text reviewed per item; the rest is not read and a medium finding says so. */
export const MAX_REVIEW_CHARS = 8 * 1024 * 1024;
/** Findings kept per item (the highest risks first are what a reader needs). */
const MAX_FINDINGS = 1000;
/** Encoded literals decoded and re-read per item, and their total decoded size. */
const MAX_DECODED = 64;
const MAX_DECODED_CHARS = 64 * 1024;
/** Distinct package names judged per file (edit distance against the popular names). */
const MAX_JUDGED = 4096;

/** Whether a finding of `risk` is at least `floor`. */
export function atLeast(risk: Risk, floor: Risk): boolean {
  return RISK_ORDER.indexOf(risk) >= RISK_ORDER.indexOf(floor);
}
const lower = (a: Finding["risk"], b: Finding["risk"]): Finding["risk"] => (atLeast(a, b) ? b : a);

const INVISIBLE_SHOWN = /[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]/g;
function excerptOf(line: string): string {
  const shown = line.trim().replace(INVISIBLE_SHOWN, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);
  return shown.length > 160 ? `${shown.slice(0, 157)}…` : shown;
}

interface Signal {
  tag: Tag;
  line: Line;
  rule: LineRule;
}

interface FileScan {
  path: string;
  code: boolean;
  findings: Finding[];
  signals: Signal[];
}

/* ------------------------------------------------------------------ one line */

/** Whether `index` sits inside a `code span` of a prose line (a command the reader is told to run). */
function inCodeSpan(text: string, index: number): boolean {
  let ticks = 0;
  for (let i = Math.max(0, index - 400); i < index; i++) if (text.charCodeAt(i) === 96) ticks++;
  return ticks % 2 === 1;
}

function ruleRisk(rule: LineRule, line: Line, index: number, code: boolean): Finding["risk"] {
  let risk = rule.risk;
  if (line.prose && rule.prose && !(rule.id !== "credential-files" && inCodeSpan(line.text, index))) risk = rule.prose;
  if (rule.discussed && (discusses(line) || quoted(line.text, index) || (code && rule.family === "hidden-instructions"))) risk = lower(risk, rule.discussed);
  return risk;
}

/** Every key of every rule in one pattern (longest first), and for each key the rules whose keys it contains. */
const KEYS = [...new Set(LINE_RULES.flatMap((r) => r.keys))].sort((a, b) => b.length - a.length);
const KEY_PATTERN = new RegExp(KEYS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
const RULES_OF_KEY = new Map(KEYS.map((key) => [key, LINE_RULES.flatMap((r, i) => (r.keys.some((k) => key.includes(k)) ? [i] : []))]));
const KEYLESS = LINE_RULES.flatMap((r, i) => (r.keys.length === 0 ? [i] : []));

/**
 * Which rules may match which lines, from one pass of KEY_PATTERN over the file's lowercased text: a rule's pattern
 * only runs on lines holding one of its keys.
 */
function candidates(lines: readonly Line[]): { marks: Uint8Array; any: Uint8Array } {
  const width = LINE_RULES.length;
  const marks = new Uint8Array(lines.length * width);
  const any = new Uint8Array(lines.length);
  const ends = new Array<number>(lines.length);
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    offset += line.lower.length + 1;
    ends[i] = offset;
    for (const r of KEYLESS) {
      if (line.text.length >= (LINE_RULES[r]!.minLength ?? 0)) {
        marks[i * width + r] = 1;
        any[i] = 1;
      }
    }
  }
  const all = lines.map((l) => l.lower).join("\n");
  KEY_PATTERN.lastIndex = 0;
  let line = 0;
  let m: RegExpExecArray | null;
  while ((m = KEY_PATTERN.exec(all)) !== null) {
    while (ends[line]! <= m.index) line++;
    for (const r of RULES_OF_KEY.get(m[0])!) marks[line * width + r] = 1;
    any[line] = 1;
    KEY_PATTERN.lastIndex = m.index + 1;
  }
  return { marks, any };
}

/** Where a line's findings go: the item's list, plus whether any was medium or higher (for hidden comments). */
class Sink {
  serious = false;
  /** Package names judged in this file (a file repeating names is judged once per name; at most MAX_JUDGED). */
  private readonly judged = new Map<string, ReturnType<typeof judgeName>>();
  constructor(readonly push: (f: Finding) => void) {}
  judge(name: string): ReturnType<typeof judgeName> {
    const known = this.judged.get(name);
    if (known !== undefined || this.judged.size >= MAX_JUDGED) return known ?? null;
    const verdict = judgeName(name);
    this.judged.set(name, verdict);
    return verdict;
  }
  add(f: Finding): void {
    if (f.risk !== "low") this.serious = true;
    this.push(f);
  }
}

const INSTALL_HINT = /install|\badd\b|\bi\b/i;

/** What a file holds at all, so per-line checks that cannot match are skipped. */
interface FileTraits {
  manifest: boolean;
  installs: boolean;
  invisible: boolean;
}
const traitsOf = (path: string, text: string): FileTraits => ({
  manifest: isManifest(path),
  installs: INSTALL_HINT.test(text),
  invisible: INVISIBLE_ANY.test(text),
});
const INVISIBLE_ANY = /[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069\udb40]/;

function scanLine(path: string, code: boolean, line: Line, sink: Sink, signals: Signal[] | null, marks: Uint8Array | null, index: number, traits: FileTraits): void {
  sink.serious = false;
  for (let r = 0; r < LINE_RULES.length; r++) {
    const rule = LINE_RULES[r]!;
    if (marks ? marks[index * LINE_RULES.length + r] === 0 : rule.keys.length > 0 && !rule.keys.some((k) => line.lower.includes(k))) continue;
    const m = rule.pattern.exec(line.text);
    if (!m) continue;
    if (rule.id === "package-index") {
      const url = m[1];
      if (url !== undefined && knownIndex(url)) continue;
      const risky = url === undefined || /^http:\/\/|^[a-z+]{2,12}:\/\/\d{1,3}(?:\.\d{1,3}){3}/i.test(url) || /extra-index-url|trusted-host/i.test(m[0]);
      sink.add({ rule: rule.id, family: rule.family, risk: risky ? "high" : "medium", path, line: line.n, excerpt: excerptOf(line.raw), message: risky ? "installs packages from an unknown index next to (or instead of) the public one, or over plain HTTP" : rule.message });
      continue;
    }
    const risk = ruleRisk(rule, line, m.index, code);
    sink.add({ rule: rule.id, family: rule.family, risk, path, line: line.n, excerpt: excerptOf(line.raw), message: rule.message });
    if (signals) for (const tag of rule.tags ?? []) signals.push({ tag, line, rule });
  }
  if (traits.manifest || (traits.installs && INSTALL_HINT.test(line.lower))) packageNames(path, line, sink, traits.manifest);
  if (traits.invisible) invisible(path, line, sink);
  if (line.hidden) hiddenComment(path, line, sink.serious, sink);
}

function packageNames(path: string, line: Line, sink: Sink, manifest: boolean): void {
  const names = installedNames(line.text);
  const fromManifest = manifest ? manifestName(path, line.text) : null;
  if (fromManifest) names.push(fromManifest);
  for (const name of names.slice(0, 20)) {
    const verdict = sink.judge(name);
    if (!verdict) continue;
    sink.add(
      verdict.kind === "homoglyph"
        ? { rule: "package-homoglyph", family: "dependency-confusion", risk: "high", path, line: line.n, excerpt: excerptOf(line.raw), message: `installs ${JSON.stringify(name)}, a package name with look-alike letters from another script` }
        : { rule: "package-typosquat", family: "dependency-confusion", risk: "medium", path, line: line.n, excerpt: excerptOf(line.raw), message: `installs ${name}, one letter away from the popular ${verdict.of}` },
    );
  }
}

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
const TAGS = /\udb40[\udc20-\udc7f]/;
const ZERO_WIDTH_IN_WORD = /[A-Za-z][\u200b-\u200d\u2060][A-Za-z]/;
const ZERO_WIDTH = /[\u200b\u200c\u2060]|(?<!^)\ufeff/;

function invisible(path: string, line: Line, sink: Sink): void {
  const raw = line.raw;
  if (!/[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069\udb40]/.test(raw)) return;
  const base = { family: "hidden-instructions" as const, path, line: line.n, excerpt: excerptOf(raw) };
  if (BIDI.test(raw)) sink.add({ ...base, rule: "bidi-control", risk: "high", message: "bidirectional control characters make the text read differently from how it runs" });
  if (TAGS.test(raw)) sink.add({ ...base, rule: "invisible-text", risk: "high", message: "text hidden in invisible Unicode tag characters" });
  if (ZERO_WIDTH_IN_WORD.test(raw)) sink.add({ ...base, rule: "zero-width-in-words", risk: "high", message: "zero-width characters inside words (hides words from filters and reviewers)" });
  else if (ZERO_WIDTH.test(raw)) sink.add({ ...base, rule: "zero-width", risk: "low", message: "contains zero-width characters" });
}

const TO_AGENT = /\b(?:assistant|agent|model|ai|llm|claude|gpt|system|instructions? for)\b\s{0,4}[:,]?|\b(?:run|execute|send|upload|copy|read|include|paste|append|add|curl|ignore|never|always|do not|don't)\b/i;
function hiddenComment(path: string, line: Line, serious: boolean, sink: Sink): void {
  if (!serious && !TO_AGENT.test(line.text)) return;
  const message = serious ? "something flagged above sits in a comment the user never sees rendered" : "an instruction in a comment the user never sees rendered";
  sink.add({ rule: "hidden-comment-instruction", family: "hidden-instructions", risk: serious ? "high" : "medium", path, line: line.n, excerpt: excerptOf(line.raw), message });
}

/* ------------------------------------------------------------------ decoded payloads */

const B64_LITERAL = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,4096}={0,2}(?![A-Za-z0-9+/])/g;
const HEX_LITERAL = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,2048}(?![0-9a-fA-F])/g;

function decodeLiteral(s: string): string | null {
  try {
    let text: string;
    if (/^[0-9a-fA-F]+$/.test(s) && s.length % 2 === 0) {
      let out = "";
      for (let i = 0; i < s.length; i += 2) out += String.fromCharCode(parseInt(s.slice(i, i + 2), 16));
      text = out;
    } else {
      if (s.length % 4 === 1) return null;
      text = atob(s.padEnd(s.length + ((4 - (s.length % 4)) % 4), "="));
    }
    let printable = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if ((c >= 32 && c < 127) || c === 10 || c === 13 || c === 9) printable++;
    }
    return printable / text.length >= 0.95 ? text : null;
  } catch {
    return null;
  }
}

/* ------------------------------------------------------------------ the item */

/** Reviews the text files of an item or skill (binary files are the caller's to skip). */
export function reviewFiles(files: readonly ReviewFile[]): Review {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const add = (f: Finding) => {
    const key = `${f.rule}\u0000${f.path}\u0000${f.line}`;
    if (seen.has(key) || findings.length >= MAX_FINDINGS) return;
    seen.add(key);
    findings.push(f);
  };
  const scans: FileScan[] = [];
  let budget = MAX_REVIEW_CHARS;
  let decodedCount = 0;
  let decodedChars = 0;

  for (const file of files) {
    if (budget <= 0) {
      add({ rule: "not-reviewed", family: "hidden-instructions", risk: "medium", path: file.path, line: 1, excerpt: "", message: `not reviewed: the item has more than ${MAX_REVIEW_CHARS} characters of text` });
      continue;
    }
    const text = file.text.length > budget ? file.text.slice(0, budget) : file.text;
    if (text.length < file.text.length) add({ rule: "not-reviewed", family: "hidden-instructions", risk: "medium", path: file.path, line: text.split("\n").length, excerpt: "", message: `reviewed only up to here: the item has more than ${MAX_REVIEW_CHARS} characters of text` });
    budget -= text.length;
    const code = fileKind(file.path) === "code";
    const scan: FileScan = { path: file.path, code, findings: [], signals: [] };
    const addHere = (f: Finding) => {
      const before = findings.length;
      add(f);
      if (findings.length > before) scan.findings.push(f);
    };
    const lines = readLines(file.path, text);
    const { marks, any } = candidates(lines);
    const sink = new Sink(addHere);
    const traits = traitsOf(file.path, text);
    const everyLine = traits.manifest || traits.installs || traits.invisible;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (any[i] === 1 || everyLine || line.hidden) scanLine(file.path, code, line, sink, scan.signals, marks, i, traits);
      // Encoded literals: decoded and read again (a payload kept in an asset, or passed to a decoder elsewhere).
      if (decodedCount < MAX_DECODED && decodedChars < MAX_DECODED_CHARS && line.text.length >= 32) {
        for (const re of [B64_LITERAL, HEX_LITERAL]) {
          re.lastIndex = 0;
          let m: RegExpExecArray | null;
          while ((m = re.exec(line.text)) !== null && decodedCount < MAX_DECODED) {
            if (line.text.slice(Math.max(0, m.index - 8), m.index).includes("base64,")) continue;
            decodedCount++;
            const decoded = decodeLiteral(m[0]);
            if (!decoded) continue;
            decodedChars += decoded.length;
            decodedFindings(file.path, line, decoded, addHere);
          }
        }
      }
    }
    combineInFile(scan, addHere);
    scans.push(scan);
  }
  combineAcrossFiles(scans, add);

  const risk = findings.reduce<Risk>((top, f) => (atLeast(f.risk, top) ? f.risk : top), "none");
  findings.sort((a, b) => RISK_ORDER.indexOf(b.risk) - RISK_ORDER.indexOf(a.risk) || a.path.localeCompare(b.path) || a.line - b.line || a.rule.localeCompare(b.rule));
  return { risk, findings };
}

function decodedFindings(path: string, at: Line, decoded: string, add: (f: Finding) => void): void {
  const inner: Finding[] = [];
  const sink = new Sink((f) => inner.push(f));
  const traits = traitsOf("decoded.sh", decoded);
  for (const line of readLines("decoded.sh", decoded)) scanLine(path, true, line, sink, null, null, 0, traits);
  const worst = inner.filter((f) => atLeast(f.risk, "medium") && f.family !== "encoded-payload");
  if (worst.length === 0) return;
  const top = worst.reduce((a, b) => (atLeast(b.risk, a.risk) ? b : a));
  add({ rule: "encoded-payload", family: "encoded-payload", risk: "high", path, line: at.n, excerpt: excerptOf(at.raw), message: `an encoded string that decodes to code which ${top.message} (${top.family})` });
}

const has = (scan: FileScan, tag: Tag) => scan.signals.find((s) => s.tag === tag);

function combineInFile(scan: FileScan, add: (f: Finding) => void): void {
  const { path } = scan;
  const at = (s: Signal, rule: string, family: Family, message: string) => add({ rule, family, risk: "high", path, line: s.line.n, excerpt: excerptOf(s.line.raw), message });
  // In prose only what one line says together counts (a document may mention a key file and, far away, an upload).
  const secret = scan.code ? has(scan, "secret-source") : scan.signals.find((s) => s.tag === "secret-source" && scan.signals.some((x) => x.tag === "send" && x.line === s.line));
  const send = secret && (scan.code ? has(scan, "send") : scan.signals.find((x) => x.tag === "send" && x.line === secret.line));
  if (secret && send) at(send, "secret-exfiltration", "exfiltration", `reads secrets (line ${secret.line.n}) and sends data out (line ${send.line.n})`);
  const collector = scan.signals.find((s) => s.rule.id === "exfiltration-endpoint");
  const sent = collector && scan.signals.find((s) => s.rule.id === "network-send" && (scan.code || s.line === collector.line));
  if (collector && sent) at(sent, "send-to-collector", "exfiltration", `sends data (line ${sent.line.n}) to a collection endpoint or raw IP address (line ${collector.line.n})`);
  if (!scan.code) return;
  const download = has(scan, "download");
  const exec = scan.signals.find((s) => s.tag === "exec" && s.line !== download?.line) ?? has(scan, "exec");
  if (download && exec) at(exec, "download-and-run", "remote-code", `downloads (line ${download.line.n}) and runs what it built or fetched (line ${exec.line.n})`);
  const decode = has(scan, "decode");
  const run = scan.signals.find((s) => s.tag === "exec" && /eval|exec|function|runin|iex|invoke-expression|compile/i.test(s.line.text));
  if (decode && run) at(run, "decode-and-run", "encoded-payload", `decodes data (line ${decode.line.n}) and runs code built at run time (line ${run.line.n})`);
  const config = has(scan, "agent-config");
  const write = scan.signals.find((s) => s.tag === "write");
  if (config && write) at(write, "agent-config-write", "permission-tampering", `writes the agent's configuration or instruction files (line ${config.line.n})`);
}

const SERIOUS: readonly Family[] = ["destructive", "persistence", "remote-code", "encoded-payload", "exfiltration", "permission-tampering"];

function combineAcrossFiles(scans: readonly FileScan[], add: (f: Finding) => void): void {
  // Secrets read by one script and sent by another.
  const secretIn = scans.find((s) => s.code && has(s, "secret-source"));
  const sendIn = scans.find((s) => s.code && s !== secretIn && has(s, "send"));
  if (secretIn && sendIn) {
    const send = has(sendIn, "send")!;
    const secret = has(secretIn, "secret-source")!;
    add({ rule: "secret-exfiltration", family: "exfiltration", risk: "high", path: sendIn.path, line: send.line.n, excerpt: excerptOf(send.line.raw), message: `sends data out while ${secretIn.path}:${secret.line.n} reads secrets` });
  }
  // "Run it without asking" in the instructions, next to something dangerous anywhere in the item.
  const noConfirm = scans.flatMap((s) => s.signals.filter((x) => x.tag === "no-confirm").map((x) => ({ scan: s, signal: x })))[0];
  if (!noConfirm) return;
  const where = `${noConfirm.scan.path}:${noConfirm.signal.line.n}`;
  for (const scan of scans) {
    const serious = scan.findings.find((f) => atLeast(f.risk, "medium") && SERIOUS.includes(f.family));
    if (serious) add({ ...serious, rule: "unattended", risk: "high", message: `${serious.message}, and ${where} says to do it without asking the user` });
    const varDelete = has(scan, "var-delete");
    if (varDelete) add({ rule: "unattended-delete", family: "destructive", risk: "medium", path: scan.path, line: varDelete.line.n, excerpt: excerptOf(varDelete.line.raw), message: `${varDelete.rule.message}, and ${where} says to do it without asking the user` });
  }
}

/** The review of a skill's or bundle's files: text files are read (UTF-8), binary ones skipped. */
export function reviewTextFiles(files: readonly { path: string; bytes: Uint8Array }[]): Review {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const texts: ReviewFile[] = [];
  for (const file of files) {
    try {
      texts.push({ path: file.path, text: decoder.decode(file.bytes) });
    } catch {
      // not text: nothing for a line review to read
    }
  }
  return reviewFiles(texts);
}

/** What a registry stores and serves of a review: the risk and the findings (at most 50, highest risk first). */
export function reviewSummary(review: Review): { risk: Risk; findings: Finding[]; truncated: boolean } {
  return { risk: review.risk, findings: review.findings.slice(0, 50), truncated: review.findings.length > 50 };
}
