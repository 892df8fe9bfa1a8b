/**
 * The signed manifest of an Agent Skill: `.rye/manifest.yaml` beside the skill's files, signed with the tool
 * rule (`# rye:signed:` line). It names the skill and version and lists every file with its SHA-256, size and
 * execute bit, so the signature covers every byte of every file, `SKILL.md`'s frontmatter included, while
 * `SKILL.md` itself stays untouched (an agent that knows nothing of rye reads exactly what was signed).
 */
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import type { KeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { isSemver } from "../semver.ts";
import { stripSignature } from "../signature/line.ts";
import type { SignOptions } from "../signature/sign.ts";
import { signItem } from "../signature/sign.ts";
import type { KeyResolver, VerifyResult } from "../signature/verify.ts";
import { verifyItem } from "../signature/verify.ts";
import type { SkillFile } from "./skill-folder.ts";
import { checkSkillFiles, MAX_SKILL_FILES, skillPathProblem } from "./skill-folder.ts";
import type { SkillFrontmatter } from "./skill-md.ts";
import { skillNameProblem } from "./skill-md.ts";

const skillPath = z.string().superRefine((p, ctx) => {
  const problem = skillPathProblem(p);
  if (problem) ctx.addIssue({ code: "custom", message: `${JSON.stringify(p)}: ${problem}` });
});

export const skillManifestSchema = z.object({
  skill: z.object({
    name: z.string().refine((n) => skillNameProblem(n) === null, "skill.name must be a valid skill name"),
    version: z.string().refine(isSemver, "skill.version must be a semantic version"),
    description: z.string(),
  }),
  files: z
    .record(skillPath, z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex"), size: z.number().int().nonnegative(), executable: z.boolean().optional() }))
    .refine((files) => Object.keys(files).length <= MAX_SKILL_FILES, `a skill holds at most ${MAX_SKILL_FILES} files`),
});
export type SkillManifest = z.infer<typeof skillManifestSchema>;

/** The version a skill declares: `metadata.version` in its frontmatter (a semantic version for rye). */
export function skillVersion(frontmatter: SkillFrontmatter): string {
  const version = frontmatter.metadata?.version;
  if (version === undefined) {
    throw new RyeError("INVALID_VERSION", `Skill ${frontmatter.name} declares no version`, {
      hint: 'Add it to SKILL.md\'s frontmatter as metadata (a field the specification allows):\nmetadata:\n  version: "1.0.0"',
    });
  }
  if (!isSemver(version)) {
    throw new RyeError("INVALID_VERSION", `Skill ${frontmatter.name} declares version ${JSON.stringify(version)}, which is not a semantic version`, {
      hint: 'Use MAJOR.MINOR.PATCH in SKILL.md, e.g. metadata:\n  version: "1.0.0"',
    });
  }
  return version;
}

const byPath = (a: SkillFile, b: SkillFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Validates the files and builds their manifest; throws VALIDATION_FAILED with every issue. */
export function buildSkillManifest(files: readonly SkillFile[], folderName?: string): SkillManifest {
  const check = checkSkillFiles(files, folderName);
  if (!check.ok || !check.frontmatter) {
    throw new RyeError("VALIDATION_FAILED", `The skill is not valid (${check.issues.length} issue${check.issues.length === 1 ? "" : "s"})`, {
      hint: "Fix the listed issues (rye skill validate <dir> shows them) and try again.",
      details: { issues: check.issues },
    });
  }
  const entries: SkillManifest["files"] = {};
  for (const file of [...files].sort(byPath)) {
    entries[file.path] = { sha256: sha256Hex(file.bytes), size: file.bytes.length, ...(file.executable ? { executable: true } : {}) };
  }
  return skillManifestSchema.parse({
    skill: { name: check.frontmatter.name, version: skillVersion(check.frontmatter), description: check.frontmatter.description },
    files: entries,
  });
}

export function serializeSkillManifest(manifest: SkillManifest): string {
  return stringifyYaml(manifest, { lineWidth: 0, defaultKeyType: "PLAIN" });
}

export function parseSkillManifest(text: string): SkillManifest {
  let data: unknown;
  try {
    data = parseYaml(stripSignature(text, "tool"), { schema: "core", maxAliasCount: 0 });
  } catch (err) {
    throw new RyeError("VALIDATION_FAILED", `The skill manifest is not valid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`, {
      hint: "Sign the skill again with `rye sign <dir>`.",
    });
  }
  const result = skillManifestSchema.safeParse(data);
  if (!result.success) {
    const traversal = result.error.issues.some((i) => i.path[0] === "files" && i.code === "invalid_key");
    throw new RyeError(traversal ? "PATH_TRAVERSAL" : "VALIDATION_FAILED", "The skill manifest is invalid", {
      hint: "Sign the skill again with `rye sign <dir>`.",
      details: result.error.issues.map((i) => ({
        field: i.path.map(String).join("."),
        message: i.code === "invalid_key" && i.issues.length > 0 ? i.issues.map((inner) => inner.message).join("; ") : i.message,
      })),
    });
  }
  return result.data;
}

export async function signSkillManifest(manifest: SkillManifest, key: KeyPair, options: Omit<SignOptions, "path"> = {}): Promise<string> {
  return (await signItem(serializeSkillManifest(manifest), "tool", key, { ...options, path: "manifest.yaml" })).content;
}

export interface SkillVerification {
  ok: boolean;
  /** OK, the signature's failure code, VALIDATION_FAILED (unreadable manifest) or INTEGRITY_MISMATCH (files differ). */
  code: "OK" | "VALIDATION_FAILED" | "INTEGRITY_MISMATCH" | VerifyResult["code"];
  message: string;
  signature: VerifyResult;
  manifest?: SkillManifest;
  missing: string[];
  changed: string[];
  added: string[];
}

/**
 * Verifies a skill: the manifest's signature with `keys`, then that the files are exactly the listed ones, each
 * with its SHA-256 and size (a file missing, changed or added fails). `files` excludes `.rye/`.
 */
export async function verifySkill(manifestText: string, keys: KeyResolver, files: readonly SkillFile[]): Promise<SkillVerification> {
  const signature = await verifyItem(manifestText, "tool", keys);
  const result: SkillVerification = { ok: false, code: "OK", message: "", signature, missing: [], changed: [], added: [] };
  try {
    result.manifest = parseSkillManifest(manifestText);
  } catch (err) {
    return { ...result, code: "VALIDATION_FAILED", message: err instanceof Error ? err.message : String(err) };
  }
  const present = new Map(files.map((f) => [f.path, f]));
  for (const [path, entry] of Object.entries(result.manifest.files)) {
    const file = present.get(path);
    if (!file) result.missing.push(path);
    else if (file.bytes.length !== entry.size || sha256Hex(file.bytes) !== entry.sha256) result.changed.push(path);
  }
  for (const path of present.keys()) if (!Object.hasOwn(result.manifest.files, path)) result.added.push(path);
  result.added.sort();
  if (!signature.ok) return { ...result, code: signature.code, message: signature.message };
  if (result.missing.length + result.changed.length + result.added.length > 0) {
    const parts = [
      result.changed.length ? `changed: ${result.changed.join(", ")}` : "",
      result.missing.length ? `missing: ${result.missing.join(", ")}` : "",
      result.added.length ? `not signed: ${result.added.join(", ")}` : "",
    ].filter(Boolean);
    return { ...result, code: "INTEGRITY_MISMATCH", message: `The skill's files differ from its signed manifest (${parts.join("; ")})` };
  }
  // The manifest must describe the SKILL.md it covers (a signer could otherwise label one skill as another).
  const check = checkSkillFiles(files);
  const declared = check.frontmatter;
  const version = declared?.metadata?.version;
  if (!declared || declared.name !== result.manifest.skill.name || version !== result.manifest.skill.version) {
    return { ...result, code: "VALIDATION_FAILED", message: `The manifest names ${result.manifest.skill.name}@${result.manifest.skill.version} but SKILL.md declares ${declared ? `${declared.name}@${version ?? "(no version)"}` : "no valid skill"}` };
  }
  return { ...result, ok: true, code: "OK", message: `Skill ${result.manifest.skill.name}@${result.manifest.skill.version}: ${Object.keys(result.manifest.files).length} files verified` };
}
