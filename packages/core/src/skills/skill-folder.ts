/**
 * The files of an Agent Skill folder: safe relative paths and explicit limits, checked the same way by the
 * registry, the CLI and the website. `.rye/` at the folder's root is rye's own (the signed manifest lives there)
 * and is never part of the skill's content.
 */
import { validateBundlePath } from "../bundle/manifest.ts";
import { utf8Decode } from "../text.ts";
import type { ParsedSkillMd, SkillFrontmatter, SkillIssue } from "./skill-md.ts";
import { parseSkillMd, SKILL_FILE } from "./skill-md.ts";

/** At most this many files in a skill (the `skills` CLI refuses archives of more than 1000). */
export const MAX_SKILL_FILES = 500;
/** Largest single file. */
export const MAX_SKILL_FILE_BYTES = 5 * 1024 * 1024;
/** All files together (the `skills` CLI unpacks at most 50 MiB). */
export const MAX_SKILL_TOTAL_BYTES = 20 * 1024 * 1024;
/** Longest path in UTF-8 bytes: a ustar archive's name field holds 100, and the `skills` CLI reads no more. */
export const MAX_SKILL_PATH_BYTES = 100;
/** rye's folder inside a skill folder (the signed manifest); not part of the skill's content. */
export const SKILL_RYE_DIR = ".rye";
export const SKILL_MANIFEST_PATH = `${SKILL_RYE_DIR}/manifest.yaml`;

export interface SkillFile {
  /** Relative to the skill folder, `/`-separated. */
  path: string;
  bytes: Uint8Array;
  /** The file had an execute bit (scripts). */
  executable?: boolean;
}

export interface SkillCheck {
  ok: boolean;
  frontmatter: SkillFrontmatter | null;
  body: string;
  issues: SkillIssue[];
  fileCount: number;
  totalBytes: number;
}

/** Why `path` may not be a file of a skill, or null. */
export function skillPathProblem(path: string): string | null {
  const basic = validateBundlePath(path);
  if (basic) return basic;
  if (new TextEncoder().encode(path).length > MAX_SKILL_PATH_BYTES) return `path must be at most ${MAX_SKILL_PATH_BYTES} bytes`;
  if (path === SKILL_RYE_DIR || path.startsWith(`${SKILL_RYE_DIR}/`)) return `${SKILL_RYE_DIR}/ is reserved for rye's manifest`;
  // Control characters would be invisible in listings and break archive tools.
  if (/[\u0000-\u001f\u007f]/.test(path)) return "path must not contain control characters";
  return null;
}

/**
 * Validates a skill's files (without `.rye/`): paths, limits, a `SKILL.md` at the root that is UTF-8 and valid.
 * `folderName` is the name the folder has (or will have): it must equal the skill's `name`.
 */
export function checkSkillFiles(files: readonly SkillFile[], folderName?: string): SkillCheck {
  const issues: SkillIssue[] = [];
  let totalBytes = 0;
  const seen = new Set<string>();
  for (const file of files) {
    const problem = skillPathProblem(file.path);
    if (problem) issues.push({ field: file.path, message: problem });
    if (seen.has(file.path)) issues.push({ field: file.path, message: "the same path appears twice" });
    seen.add(file.path);
    if (file.bytes.length > MAX_SKILL_FILE_BYTES) issues.push({ field: file.path, message: `file is ${file.bytes.length} bytes; at most ${MAX_SKILL_FILE_BYTES} per file` });
    totalBytes += file.bytes.length;
  }
  if (files.length > MAX_SKILL_FILES) issues.push({ field: "files", message: `a skill holds at most ${MAX_SKILL_FILES} files (this one has ${files.length})` });
  if (totalBytes > MAX_SKILL_TOTAL_BYTES) issues.push({ field: "files", message: `a skill holds at most ${MAX_SKILL_TOTAL_BYTES} bytes (this one has ${totalBytes})` });

  let parsed: ParsedSkillMd = { frontmatter: null, body: "", issues: [] };
  const skillMd = files.find((f) => f.path === SKILL_FILE);
  if (!skillMd) issues.push({ field: SKILL_FILE, message: `missing required file ${SKILL_FILE} at the folder's root` });
  else {
    let text: string | undefined;
    try {
      text = utf8Decode(skillMd.bytes);
    } catch {
      issues.push({ field: SKILL_FILE, message: `${SKILL_FILE} is not valid UTF-8` });
    }
    if (text !== undefined) {
      parsed = parseSkillMd(text, folderName);
      issues.push(...parsed.issues);
    }
  }
  return { ok: issues.length === 0, frontmatter: parsed.frontmatter, body: parsed.body, issues, fileCount: files.length, totalBytes };
}
