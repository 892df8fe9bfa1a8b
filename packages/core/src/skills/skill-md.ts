/**
 * `SKILL.md` of an Agent Skill (agentskills.io specification): YAML frontmatter from byte 0, then Markdown.
 *
 * Rules follow the reference validator (`skills-ref validate`): the file starts with `---` (no BOM, no line
 * before it), the frontmatter is a mapping of only `name`, `description`, `license`, `allowed-tools`,
 * `metadata` and `compatibility`, scalars are strings (as strictyaml reads them), flow collections (`[a, b]`,
 * `{a: b}`) and duplicate keys are refused. rye is stricter in three documented places: `name` is ASCII (it
 * becomes part of an item id and of URLs), `metadata` must map strings to strings, and `allowed-tools` must be a
 * string or a list of strings.
 */
import { isMap, isScalar, isSeq, parseDocument, visit } from "yaml";
import { skillNameProblem } from "./skill-name.ts";

export { MAX_SKILL_NAME_LENGTH, skillNameProblem } from "./skill-name.ts";

export const SKILL_FILE = "SKILL.md";
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;
export const MAX_SKILL_COMPATIBILITY_LENGTH = 500;
export const SKILL_FRONTMATTER_FIELDS = ["name", "description", "license", "allowed-tools", "metadata", "compatibility"] as const;

export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** As written: a space-separated string or a list. */
  "allowed-tools"?: string | string[];
}

export interface SkillIssue {
  /** The frontmatter field, `frontmatter` for the block as a whole, or a file path. */
  field: string;
  message: string;
}

export interface ParsedSkillMd {
  frontmatter: SkillFrontmatter | null;
  /** The Markdown after the frontmatter. */
  body: string;
  issues: SkillIssue[];
}

/** The list of tools `allowed-tools` names (a space-separated string or a list). */
export function allowedTools(frontmatter: SkillFrontmatter): string[] {
  const value = frontmatter["allowed-tools"];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(/\s+/)).map((t) => t.trim()).filter(Boolean);
}

/** Splits `SKILL.md` at its frontmatter; null when it does not start with a closed `---` block. */
function splitFrontmatter(text: string): { yaml: string; body: string } | { problem: string } {
  if (!text.startsWith("---")) {
    return { problem: text.startsWith("\uFEFF") ? "SKILL.md must start with YAML frontmatter (---); remove the byte order mark" : "SKILL.md must start with YAML frontmatter (---) on its first line" };
  }
  const lines = text.split("\n");
  if (lines[0]!.replace(/\r$/, "").trim() !== "---") return { problem: "the first line of SKILL.md must be exactly ---" };
  const end = lines.findIndex((line, i) => i > 0 && line.replace(/\r$/, "").trimEnd() === "---");
  if (end < 0) return { problem: "the frontmatter is not closed (a line with --- after it)" };
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

/** Parses and validates the text of a `SKILL.md`. `folderName`, when given, must equal `name`. */
export function parseSkillMd(text: string, folderName?: string): ParsedSkillMd {
  const issues: SkillIssue[] = [];
  const split = splitFrontmatter(text);
  if ("problem" in split) return { frontmatter: null, body: text, issues: [{ field: "frontmatter", message: split.problem }] };

  // The failsafe schema reads every scalar as a string, as strictyaml does (`version: 1.0` stays "1.0").
  const doc = parseDocument(split.yaml, { schema: "failsafe", uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return { frontmatter: null, body: split.body, issues: [{ field: "frontmatter", message: `invalid YAML: ${doc.errors[0]!.message.split("\n")[0]}` }] };
  }
  let flow = false;
  let alias = false;
  visit(doc, {
    Alias() {
      alias = true;
    },
    Map(_, node) {
      if (node.flow) flow = true;
    },
    Seq(_, node) {
      if (node.flow) flow = true;
    },
  });
  if (flow) issues.push({ field: "frontmatter", message: "flow style ([a, b] or {a: b}) is not allowed: write lists and maps one entry per line" });
  if (alias) issues.push({ field: "frontmatter", message: "YAML anchors and aliases are not allowed" });
  if (!isMap(doc.contents)) return { frontmatter: null, body: split.body, issues: [...issues, { field: "frontmatter", message: "the frontmatter must be a mapping of fields" }] };

  const map = doc.contents;
  const out: Record<string, unknown> = {};
  const unexpected: string[] = [];
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!(SKILL_FRONTMATTER_FIELDS as readonly string[]).includes(key)) {
      unexpected.push(key);
      continue;
    }
    out[key] = pair.value;
  }
  if (unexpected.length > 0) issues.push({ field: "frontmatter", message: `unexpected fields: ${unexpected.sort().join(", ")} (allowed: ${SKILL_FRONTMATTER_FIELDS.join(", ")}; put extra data under metadata)` });

  const stringField = (key: string, max?: number, required = false): string | undefined => {
    const node = out[key];
    if (node === undefined || (isScalar(node) && (node.value === null || node.value === ""))) {
      if (required) issues.push({ field: key, message: `${key} is required and must not be empty` });
      return undefined;
    }
    if (!isScalar(node)) {
      issues.push({ field: key, message: `${key} must be a string` });
      return undefined;
    }
    const value = String(node.value);
    if (max !== undefined && value.length > max) issues.push({ field: key, message: `${key} must be at most ${max} characters (it has ${value.length})` });
    return value;
  };

  const rawName = stringField("name", undefined, true);
  const name = rawName?.normalize("NFKC").trim();
  if (name !== undefined) {
    const problem = skillNameProblem(name);
    if (problem) issues.push({ field: "name", message: `name ${JSON.stringify(name)} ${problem}` });
    else if (folderName !== undefined && folderName.normalize("NFKC") !== name) {
      issues.push({ field: "name", message: `the folder is named ${JSON.stringify(folderName)} but the skill is ${JSON.stringify(name)}: they must be equal` });
    }
  }
  const description = stringField("description", MAX_SKILL_DESCRIPTION_LENGTH, true);
  if (description !== undefined && description.trim() === "") issues.push({ field: "description", message: "description must not be blank" });
  const license = stringField("license");
  const compatibility = stringField("compatibility", MAX_SKILL_COMPATIBILITY_LENGTH);

  let metadata: Record<string, string> | undefined;
  if (out.metadata !== undefined) {
    const node = out.metadata;
    if (!isMap(node)) issues.push({ field: "metadata", message: "metadata must map names to strings (one `key: value` per line)" });
    else {
      metadata = {};
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : "";
        if (!isScalar(pair.value) || pair.value.value === null) issues.push({ field: `metadata.${key}`, message: "metadata values must be strings" });
        else metadata[key] = String(pair.value.value);
      }
    }
  }

  let tools: string | string[] | undefined;
  if (out["allowed-tools"] !== undefined) {
    const node = out["allowed-tools"];
    if (isScalar(node)) tools = node.value === null ? undefined : String(node.value);
    else if (isSeq(node) && node.items.every((item) => isScalar(item) && item.value !== null)) tools = node.items.map((item) => String((item as { value: unknown }).value));
    else issues.push({ field: "allowed-tools", message: "allowed-tools must be a space-separated string or a list of strings" });
  }

  if (name === undefined || description === undefined) return { frontmatter: null, body: split.body, issues };
  const frontmatter: SkillFrontmatter = { name, description };
  if (license !== undefined) frontmatter.license = license;
  if (compatibility !== undefined) frontmatter.compatibility = compatibility;
  if (metadata !== undefined) frontmatter.metadata = metadata;
  if (tools !== undefined) frontmatter["allowed-tools"] = tools;
  return { frontmatter, body: split.body, issues };
}
