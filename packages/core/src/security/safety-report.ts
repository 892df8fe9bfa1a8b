/**
 * The static safety report of a tool, computed by the registry at publish (docs/quality.md): which runtime runs it,
 * which of network, file and process use its tier and sandbox declare against what its code shows, and which lines
 * match the security gate's dangerous-pattern rules — the very rules the client's gate applies to a call's inputs
 * (`rye/security/dangerous_patterns`, read by `dangerRulesFromConfig`).
 *
 * A report names the version of what produced it (`rules_version`: this analyzer's version and the rules' digest),
 * so reports made under older rules can be found and made again. It is a screen read by people, not a proof: code
 * can reach the network or spawn processes in ways no line pattern sees.
 */
import { z } from "zod";
import type { ToolFormat } from "../parsers/tool.ts";
import { type CompiledRule, declaredTier, TIERS, type Tier, tierSchema } from "./gate.ts";
import { dangerRulesDigest } from "./rules-config.ts";

/** Bump when the detectors below change: every stored report is then made again. */
export const SAFETY_ANALYZER_VERSION = 1;
/** At most this many characters of a file are scanned (the registry's item size limit is below it). */
export const SAFETY_MAX_SCANNED_CHARS = 1_000_000;
/**
 * Lines longer than this are scanned in windows of this size overlapping by SAFETY_WINDOW_OVERLAP (a match longer
 * than the overlap across a window boundary is missed). Line patterns can backtrack quadratically within what they
 * scan; windows bound a hostile 1 MB one-line file to linear work (measured in apps/api/bench/quality.bench.ts).
 */
export const SAFETY_MAX_WINDOW_CHARS = 256;
export const SAFETY_WINDOW_OVERLAP = 64;
/** Evidence lines kept per capability. */
export const SAFETY_MAX_EVIDENCE = 3;

export const SAFETY_CAPABILITIES = ["network", "file_read", "file_write", "process"] as const;
export type SafetyCapability = (typeof SAFETY_CAPABILITIES)[number];

export const safetyEvidenceSchema = z.object({ line: z.number().int().min(1), text: z.string() });
export const safetyReportSchema = z
  .object({
    rules_version: z.string().meta({ description: "The analyzer's version and the dangerous-pattern rules' digest; a report under older rules is made again." }),
    runtime: z.object({
      format: z.enum(["python", "yaml", "javascript", "typescript", "shell"]),
      language: z.string(),
      executor_id: z.string().nullable(),
    }),
    tier: tierSchema,
    tier_declared: z.boolean(),
    effective_tier: tierSchema.meta({ description: "The tier after the dangerous patterns found in the file." }),
    sandbox: z.object({ network: z.boolean().nullable(), filesystem: z.string().nullable() }),
    capabilities: z.array(
      z.object({
        capability: z.enum(SAFETY_CAPABILITIES),
        declared: z.boolean().meta({ description: "Allowed by the declared tier (and not excluded by the sandbox)." }),
        found: z.boolean().meta({ description: "Seen in the code (or implied by the executor)." }),
        evidence: z.array(safetyEvidenceSchema),
      }),
    ),
    undeclared: z.array(z.enum(SAFETY_CAPABILITIES)).meta({ description: "Found but not declared." }),
    dangerous: z.array(z.object({ rule: z.string(), description: z.string(), tier: tierSchema, line: z.number().int().min(1), text: z.string() })),
    verdict: z.enum(["ok", "review", "danger"]).meta({ description: "danger: a dangerous pattern; review: undeclared use; ok: neither." }),
    truncated: z.boolean(),
  })
  .meta({ description: "A tool version's static safety report (docs/quality.md)." });
export type SafetyReport = z.infer<typeof safetyReportSchema>;

/** The version a report made now with `rules` carries. */
export function safetyRulesVersion(rules: readonly CompiledRule[]): string {
  return `a${SAFETY_ANALYZER_VERSION}-${dangerRulesDigest(rules)}`;
}

/** What each tier allows (docs/security.md): T0 reads, T1 also reaches the network, T2 also writes, T3 runs code. */
const ALLOWED_FROM: Record<SafetyCapability, Tier> = { file_read: "T0", network: "T1", file_write: "T2", process: "T3" };
const rank = (tier: Tier) => TIERS.indexOf(tier);

type Detectors = Partial<Record<SafetyCapability, RegExp[]>>;
const PYTHON: Detectors = {
  network: [/\b(?:import|from)\s+(?:requests|urllib3?|http\.client|httpx|aiohttp|socket|ftplib|smtplib|websockets?)\b/, /\burlopen\s*\(/],
  file_read: [/\bopen\s*\(/, /\.read_(?:text|bytes)\s*\(/, /\bos\.(?:listdir|scandir|walk)\b/, /\bglob\.i?glob\s*\(/],
  file_write: [/\bopen\s*\([^)\n]*,\s*(?:mode\s*=\s*)?["'][rbt]*[wax]/, /\.write_(?:text|bytes)\s*\(/, /\bshutil\.(?:copy\w*|move|rmtree)\b/, /\bos\.(?:remove|unlink|rename|replace|makedirs|mkdir|rmdir)\b/],
  process: [/\b(?:import|from)\s+subprocess\b/, /\bsubprocess\.\w+/, /\bos\.(?:system|popen|exec\w*|spawn\w*|fork)\s*\(/, /\bpty\.spawn\b/],
};
const JAVASCRIPT: Detectors = {
  network: [/\bfetch\s*\(/, /(?:from\s+|require\s*\(\s*|import\s*\(\s*)["'](?:node:)?(?:https?|http2|net|tls|dgram|dns)["']/, /\b(?:axios|undici|WebSocket|XMLHttpRequest|EventSource)\b/],
  file_read: [/(?:from\s+|require\s*\(\s*|import\s*\(\s*)["'](?:node:)?fs(?:\/promises)?["']/, /\b(?:readFile|readFileSync|readdir|readdirSync|createReadStream|opendir|stat|statSync)\s*\(/],
  file_write: [/\b(?:writeFile|writeFileSync|appendFile|appendFileSync|mkdir|mkdirSync|rm|rmSync|rmdir|unlink|unlinkSync|rename|renameSync|copyFile|cp|createWriteStream|truncate)\s*\(/],
  process: [/(?:from\s+|require\s*\(\s*|import\s*\(\s*)["'](?:node:)?child_process["']/, /\b(?:spawn|spawnSync|execFile|execFileSync|execSync|fork)\s*\(/, /\bprocess\.kill\s*\(/],
};
const SHELL: Detectors = {
  network: [/\b(?:curl|wget|nc|ncat|ssh|scp|rsync|ftp|sftp|telnet)\b/],
  file_read: [/\b(?:cat|head|tail|less|grep|find|ls|stat|read)\b/, /<\s*[^<\s(]/],
  file_write: [/(?<![0-9&])>>?\s*(?!&|\/dev\/null\b)[^\s>&]/, /\b(?:rm|mv|cp|mkdir|rmdir|touch|tee|chmod|chown|ln|truncate)\s/],
};

/** Lines that only comment (Python/shell `#`, JS `//` and block-comment bodies): not code, so no capability use. */
function isCommentLine(line: string, format: ToolFormat): boolean {
  const t = line.trim();
  if (t === "") return true;
  if (format === "python" || format === "shell") return t.startsWith("#");
  return t.startsWith("//") || t.startsWith("/*") || t.startsWith("*");
}

/** A YAML tool's code is its executor's: the chain decides what it can reach. */
function executorCapabilities(executorId: string | null): SafetyCapability[] {
  if (!executorId) return [];
  const found: SafetyCapability[] = [];
  if (/(?:^|\/)(?:http_client|mcp_http)$/.test(executorId)) found.push("network");
  if (/(?:^|\/)(?:subprocess|bash|mcp_stdio|node|python_function|python_script)$/.test(executorId)) found.push("process");
  return found;
}

const LANGUAGE: Record<ToolFormat, string> = { python: "python", javascript: "node", typescript: "node (TypeScript)", shell: "bash", yaml: "config" };

const cut = (s: string) => (s.trim().length > 120 ? `${s.trim().slice(0, 117)}...` : s.trim());

export interface SafetyInput {
  format: ToolFormat;
  /** The file, lines numbered as people see it (a signature line blanked, not removed: see `scannableToolFile`). */
  body: string;
  executorId: string | null;
  /** The tool's other declared keys (`__tier__` / `tier`, `sandbox` through `config`). */
  extras: Record<string, unknown>;
  config?: unknown;
}

/**
 * A signed tool file with its signature line (the first line, or the second after a shebang) blanked, so the
 * report's line numbers are those of the served file and the signature's characters match no pattern.
 */
export function scannableToolFile(content: string): string {
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  const isSignature = (line: string | undefined) => line !== undefined && /^\s*(?:#|\/\/)\s*rye:signed:/.test(line);
  const at = isSignature(lines[0]) ? 0 : lines[0]?.startsWith("#!") && isSignature(lines[1]) ? 1 : -1;
  if (at >= 0) lines[at] = "";
  return lines.join("\n");
}

/** A line, or the windows of a long one, each with its 1-based line number. */
function segments(lines: readonly string[]): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  lines.forEach((text, i) => {
    if (text.length <= SAFETY_MAX_WINDOW_CHARS) out.push({ line: i + 1, text });
    else for (let at = 0; at < text.length; at += SAFETY_MAX_WINDOW_CHARS - SAFETY_WINDOW_OVERLAP) out.push({ line: i + 1, text: text.slice(at, at + SAFETY_MAX_WINDOW_CHARS) });
  });
  return out;
}

export function safetyReport(input: SafetyInput, rules: readonly CompiledRule[]): SafetyReport {
  const truncated = input.body.length > SAFETY_MAX_SCANNED_CHARS;
  const lines = (truncated ? input.body.slice(0, SAFETY_MAX_SCANNED_CHARS) : input.body).split("\n");
  const scanned = segments(lines);
  const { tier, declared: tierDeclared } = declaredTier(input.extras);
  const sandboxRaw = input.config && typeof input.config === "object" ? (input.config as Record<string, unknown>).sandbox : undefined;
  const sandbox = sandboxRaw && typeof sandboxRaw === "object" ? (sandboxRaw as Record<string, unknown>) : {};
  const sandboxNetwork = typeof sandbox.network === "boolean" ? sandbox.network : null;
  const sandboxFilesystem = typeof sandbox.filesystem === "string" ? sandbox.filesystem : null;

  const evidence = new Map<SafetyCapability, { line: number; text: string }[]>(SAFETY_CAPABILITIES.map((c) => [c, []]));
  const detectors = input.format === "python" ? PYTHON : input.format === "shell" ? SHELL : input.format === "yaml" ? {} : JAVASCRIPT;
  for (const { line, text } of scanned) {
    if (isCommentLine(lines[line - 1]!, input.format)) continue;
    for (const capability of SAFETY_CAPABILITIES) {
      const list = evidence.get(capability)!;
      if (list.length < SAFETY_MAX_EVIDENCE && list.at(-1)?.line !== line && detectors[capability]?.some((re) => re.test(text))) list.push({ line, text: cut(text) });
    }
  }
  // A shell script runs commands by its nature: its first command is the evidence.
  if (input.format === "shell") {
    const first = lines.findIndex((line) => !isCommentLine(line, "shell"));
    if (first >= 0) evidence.get("process")!.push({ line: first + 1, text: cut(lines[first]!) });
  }
  if (input.format === "yaml") {
    const at = lines.findIndex((line) => /^executor_id\s*:/.test(line));
    for (const capability of executorCapabilities(input.executorId)) evidence.get(capability)!.push({ line: at >= 0 ? at + 1 : 1, text: at >= 0 ? cut(lines[at]!) : `executor_id: ${input.executorId}` });
  }

  const capabilities = SAFETY_CAPABILITIES.map((capability) => {
    let declared = tierDeclared && rank(tier) >= rank(ALLOWED_FROM[capability]);
    if (capability === "network" && sandboxNetwork === false) declared = false;
    const found = evidence.get(capability)!;
    return { capability, declared, found: found.length > 0, evidence: found };
  });

  const dangerous: SafetyReport["dangerous"] = [];
  for (const rule of rules) {
    for (const { line, text } of scanned) {
      const m = rule.regex.exec(text);
      if (m) {
        dangerous.push({ rule: rule.id, description: rule.description, tier: rule.tier, line, text: cut(m[0]) });
        break;
      }
    }
  }
  const effective = TIERS[Math.max(rank(tier), ...dangerous.map((d) => rank(d.tier)))]!;
  const undeclared = capabilities.filter((c) => c.found && !c.declared).map((c) => c.capability);
  return {
    rules_version: safetyRulesVersion(rules),
    runtime: { format: input.format, language: input.format === "yaml" && input.executorId ? input.executorId : LANGUAGE[input.format], executor_id: input.executorId },
    tier,
    tier_declared: tierDeclared,
    effective_tier: effective,
    sandbox: { network: sandboxNetwork, filesystem: sandboxFilesystem },
    capabilities,
    undeclared,
    dangerous,
    verdict: dangerous.length > 0 ? "danger" : undeclared.length > 0 ? "review" : "ok",
    truncated,
  };
}
