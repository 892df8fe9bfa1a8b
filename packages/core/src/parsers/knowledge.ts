/** Knowledge files: optional signature line, YAML frontmatter between `---` lines, markdown body. */
import { parse as parseYaml } from "yaml";
import { documentBody } from "../signature/line.ts";

export interface ParsedKnowledge {
  /** Frontmatter keys (id, title, version, entry_type, category, tags, …). */
  frontmatter: Record<string, unknown>;
  body: string;
  hasFrontmatter: boolean;
  /** Set when the frontmatter is not valid YAML and the original's line parser was used instead. */
  warning?: string;
}

const FRONTMATTER = /^---[ \t]*\n(?:([\s\S]*?)\n)??---[ \t]*(?:\n|$)/;

/** The original's line parser: `key: value`, quotes stripped, `[a, b]` lists, `#` comments skipped. */
function parseFrontmatterLines(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of text.split("\n")) {
    if (line.trim().startsWith("#") || !line.includes(":")) continue;
    const at = line.indexOf(":");
    const key = line.slice(0, at).trim();
    let value = line.slice(at + 1).trim();
    if (!key) continue;
    if (value.startsWith("[") && value.endsWith("]")) {
      out[key] = value
        .slice(1, -1)
        .split(",")
        .map((v) => v.trim().replace(/^["']|["']$/g, ""))
        .filter((v) => v !== "");
      continue;
    }
    value = value.replace(/^["']|["']$/g, "");
    out[key] = value;
  }
  return out;
}

function normalizeScalars(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    out[key] = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  }
  return out;
}

export function parseKnowledge(rawContent: string): ParsedKnowledge {
  const text = documentBody(rawContent, "knowledge");
  const m = FRONTMATTER.exec(text);
  if (!m) return { frontmatter: {}, body: text.trim(), hasFrontmatter: false };
  const body = text.slice(m[0].length).trim();
  const block = m[1] ?? "";
  try {
    const data: unknown = parseYaml(block, { schema: "core", maxAliasCount: 16 });
    if (data === null || data === undefined) return { frontmatter: {}, body, hasFrontmatter: true };
    if (typeof data !== "object" || Array.isArray(data)) throw new Error("frontmatter is not a mapping");
    return { frontmatter: normalizeScalars(data as Record<string, unknown>), body, hasFrontmatter: true };
  } catch (err) {
    return {
      frontmatter: parseFrontmatterLines(block),
      body,
      hasFrontmatter: true,
      warning: `frontmatter is not valid YAML (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); read line by line`,
    };
  }
}
