/**
 * The `rye:signed:TIMESTAMP:HASH:SIG:FP[|provider@user]` line (rye-format §3): where it sits in each
 * item type, how it is parsed, formatted, removed and inserted.
 */
import type { ItemType } from "../item-types.ts";
import { SLASH_COMMENT_EXTENSIONS } from "../item-types.ts";
import { normalizeNewlines } from "../text.ts";

export type CommentStyle = "html" | "hash" | "slash";

export interface SignatureInfo {
  /** `YYYY-MM-DDTHH:MM:SSZ` (not covered by the signature). */
  timestamp: string;
  /** 64 lowercase hex chars: SHA-256 of the type's content-for-hash. */
  hash: string;
  /** Padded base64url Ed25519 signature over the ASCII bytes of `hash`. */
  signature: string;
  /** First 16 hex chars of SHA-256 over the signer's SPKI PEM bytes. */
  fingerprint: string;
  /** Provenance suffix `|provider@username` (not covered by the signature). */
  provider?: string;
  username?: string;
}

export type ExtractedSignature =
  | { status: "signed"; signature: SignatureInfo; line: string }
  | { status: "legacy"; line: string }
  | { status: "malformed"; line: string; reason: string }
  | { status: "unsigned" };

const TS = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z";
const BODY = `rye:signed:(${TS}):([0-9a-f]{64}):([A-Za-z0-9_-]+={0,2}):([0-9a-f]{16})(?:\\|([A-Za-z0-9_-]+)@([A-Za-z0-9_-]+))?`;
const HTML_SIGNED = new RegExp(`^<!-- ${BODY} -->$`);
const HASH_SIGNED = new RegExp(`^# ${BODY}$`);
const SLASH_SIGNED = new RegExp(`^// ${BODY}$`);
/** Any rye/kiwi-mcp signed or validated line: what signing removes and hashing skips. */
const HTML_ANY = /^<!-- (?:rye|kiwi-mcp):(?:signed|validated):[^>]+-->/;
const TOOL_ANY = /^(?:#|\/\/) (?:rye|kiwi-mcp):(?:signed|validated):/;
const LEGACY = /^(?:<!--|#|\/\/) (?:rye|kiwi-mcp):validated:/;
const SHEBANG = /^#!\/[^\n]*(?:\n|$)/;

export function commentStyleFor(type: ItemType, extension?: string): CommentStyle {
  if (type !== "tool") return "html";
  return extension !== undefined && SLASH_COMMENT_EXTENSIONS.includes(extension.toLowerCase()) ? "slash" : "hash";
}

export function formatSignatureLine(info: SignatureInfo, style: CommentStyle): string {
  const provenance = info.provider && info.username ? `|${info.provider}@${info.username}` : "";
  const body = `rye:signed:${info.timestamp}:${info.hash}:${info.signature}:${info.fingerprint}${provenance}`;
  if (style === "html") return `<!-- ${body} -->`;
  return style === "slash" ? `// ${body}` : `# ${body}`;
}

/** `YYYY-MM-DDTHH:MM:SSZ` for a date (UTC, no fractional seconds). */
export function formatSignatureTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

interface Layout {
  /** Text kept before the signature position (a tool's shebang line, with its newline). */
  head: string;
  /** The signature line at the allowed position, without its newline; null when there is none. */
  line: string | null;
  /** Everything after the signature line (or after `head` when unsigned). */
  rest: string;
}

function firstLine(text: string): { line: string; after: string } {
  const nl = text.indexOf("\n");
  return nl < 0 ? { line: text, after: "" } : { line: text.slice(0, nl), after: text.slice(nl + 1) };
}

/** Splits normalized content into head, signature line and rest, following the type's position rule. */
function layout(content: string, type: ItemType): Layout {
  if (type === "tool") {
    const shebang = SHEBANG.exec(content);
    const head = shebang ? shebang[0] : "";
    const afterHead = content.slice(head.length);
    if (TOOL_ANY.test(afterHead)) {
      const { line, after } = firstLine(afterHead);
      return { head, line, rest: after };
    }
    return { head, line: null, rest: afterHead };
  }
  if (HTML_ANY.test(content)) {
    const { line, after } = firstLine(content);
    return { head: "", line, rest: after };
  }
  return { head: "", line: null, rest: content };
}

function parseLine(line: string, type: ItemType): RegExpExecArray | null {
  if (type === "tool") return HASH_SIGNED.exec(line) ?? SLASH_SIGNED.exec(line);
  return HTML_SIGNED.exec(line);
}

export function extractSignature(rawContent: string, type: ItemType): ExtractedSignature {
  const { line } = layout(normalizeNewlines(rawContent), type);
  if (line === null) return { status: "unsigned" };
  if (LEGACY.test(line)) return { status: "legacy", line };
  const m = parseLine(line, type);
  if (!m) return { status: "malformed", line, reason: "signature line does not match rye:signed:TIMESTAMP:HASH:SIG:FP" };
  const signature: SignatureInfo = { timestamp: m[1]!, hash: m[2]!, signature: m[3]!, fingerprint: m[4]! };
  if (m[5] && m[6]) {
    signature.provider = m[5];
    signature.username = m[6];
  }
  return { status: "signed", signature, line };
}

/** Content with the signature (or legacy) line removed; a tool's shebang is kept. */
export function stripSignature(rawContent: string, type: ItemType): string {
  const { head, rest } = layout(normalizeNewlines(rawContent), type);
  return head + rest;
}

/** Replaces any signature line with `line` at the type's position (first line, after a tool's shebang). */
export function insertSignatureLine(rawContent: string, type: ItemType, line: string): string {
  const { head, rest } = layout(normalizeNewlines(rawContent), type);
  const separator = head !== "" && !head.endsWith("\n") ? "\n" : "";
  return `${head}${separator}${line}\n${rest}`;
}

/** The text after the shebang and signature line: what the tool hash rule covers. */
export function toolBody(rawContent: string): string {
  return layout(normalizeNewlines(rawContent), "tool").rest;
}

export function documentBody(rawContent: string, type: Exclude<ItemType, "tool">): string {
  return layout(normalizeNewlines(rawContent), type).rest;
}
