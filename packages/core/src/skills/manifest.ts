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

const MAJOR_MINOR = /^(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/**
 * A version as SKILL.md declares it (`metadata.version`), read as rye's semantic version: a semantic version as it
 * is, `MAJOR.MINOR` (the Agent Skills specification's own example declares "1.0") as `MAJOR.MINOR.0`; anything else
 * undefined.
 */
export function readDeclaredSkillVersion(declared: string): string | undefined {
  if (isSemver(declared)) return declared;
  return MAJOR_MINOR.test(declared) ? `${declared}.0` : undefined;
}

/** A skill's version and how it was read; `note` says so in a sentence when it is not exactly what SKILL.md declares. */
export interface SkillVersionReading {
  version: string;
  /** `metadata.version` as SKILL.md writes it, or null when it declares none. */
  declared: string | null;
  note: string | null;
}

/** The sentence that tells a publisher how the version differs from SKILL.md's `metadata.version` (null when it does not). */
export function skillVersionNote(declared: string | null, version: string): string | null {
  if (declared === version) return null;
  if (declared === null) return `SKILL.md declares no version; published as ${version}, the version given with the push (SKILL.md is unchanged)`;
  if (readDeclaredSkillVersion(declared) === version) return `SKILL.md declares version ${JSON.stringify(declared)}, read as ${version}`;
  return `SKILL.md declares version ${JSON.stringify(declared)}, which is not a semantic version; published as ${version}, the version given with the push (SKILL.md is unchanged)`;
}

/**
 * The version of a skill: SKILL.md's `metadata.version` read by readDeclaredSkillVersion, or `given` (a version
 * passed beside the files, e.g. `rye push <dir> --version`) when SKILL.md declares none or none that reads as a
 * semantic version. A `given` that contradicts a readable declared version is refused (VERSION_MISMATCH): the
 * manifest must not label the files as a version they do not claim. The files themselves are never changed.
 */
export function readSkillVersion(frontmatter: SkillFrontmatter, given?: string): SkillVersionReading {
  const declared = frontmatter.metadata?.version ?? null;
  if (given !== undefined) {
    if (!isSemver(given)) {
      throw new RyeError("INVALID_VERSION", `The version given for skill ${frontmatter.name}, ${JSON.stringify(given)}, is not a semantic version`, {
        hint: "Give MAJOR.MINOR.PATCH[-prerelease][+build], e.g. --version 1.0.0.",
      });
    }
    const readable = declared === null ? undefined : readDeclaredSkillVersion(declared);
    if (readable !== undefined && readable !== given) {
      throw new RyeError("VERSION_MISMATCH", `Skill ${frontmatter.name} declares version ${JSON.stringify(declared)}; the version given, ${given}, would label its files as another version`, {
        hint: `Drop the version given (it is for skills whose SKILL.md declares none, or no semantic version), or change metadata.version in SKILL.md to ${JSON.stringify(given)}.`,
      });
    }
    return { version: given, declared, note: skillVersionNote(declared, given) };
  }
  if (declared === null) {
    throw new RyeError("INVALID_VERSION", `Skill ${frontmatter.name} declares no version`, {
      hint: 'Give one beside the files, without editing them: rye push <dir> --version 1.0.0. Or declare it in SKILL.md\'s frontmatter as metadata (a field the specification allows):\nmetadata:\n  version: "1.0.0"',
    });
  }
  const version = readDeclaredSkillVersion(declared);
  if (version === undefined) {
    throw new RyeError("INVALID_VERSION", `Skill ${frontmatter.name} declares version ${JSON.stringify(declared)}, which is not a semantic version (MAJOR.MINOR.PATCH, or MAJOR.MINOR read as MAJOR.MINOR.0)`, {
      hint: 'Give the version beside the files, without editing them: rye push <dir> --version 1.0.0. Or use MAJOR.MINOR.PATCH in SKILL.md, e.g. metadata:\n  version: "1.0.0"',
    });
  }
  return { version, declared, note: skillVersionNote(declared, version) };
}

/** The version a skill declares (see readSkillVersion). */
export function skillVersion(frontmatter: SkillFrontmatter): string {
  return readSkillVersion(frontmatter).version;
}

const byPath = (a: SkillFile, b: SkillFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Validates the files and builds their manifest; throws VALIDATION_FAILED with every issue, INVALID_VERSION when
 * there is no version to read (readSkillVersion). `version` is one given beside the files (it wins over SKILL.md's).
 */
export function buildSkillManifest(files: readonly SkillFile[], folderName?: string, options: { version?: string } = {}): SkillManifest {
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
    skill: { name: check.frontmatter.name, version: readSkillVersion(check.frontmatter, options.version).version, description: check.frontmatter.description },
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
  // The manifest must describe the SKILL.md it covers (a signer could otherwise label one skill as another): its
  // name, and its version as readSkillVersion reads it. Only a SKILL.md without a readable version leaves the
  // version to the manifest (given beside the files).
  const declared = checkSkillFiles(files).frontmatter;
  const declaredVersion = declared?.metadata?.version;
  const readable = declaredVersion === undefined ? undefined : readDeclaredSkillVersion(declaredVersion);
  if (!declared || declared.name !== result.manifest.skill.name || (readable !== undefined && readable !== result.manifest.skill.version)) {
    return { ...result, code: "VALIDATION_FAILED", message: `The manifest names ${result.manifest.skill.name}@${result.manifest.skill.version} but SKILL.md declares ${declared ? `${declared.name}@${declaredVersion ?? "(no version)"}` : "no valid skill"}` };
  }
  return { ...result, ok: true, code: "OK", message: `Skill ${result.manifest.skill.name}@${result.manifest.skill.version}: ${Object.keys(result.manifest.files).length} files verified` };
}
