/**
 * Reading an Agent Skill folder from disk, and signing and verifying it in place. Symlinks and special files are
 * refused (a skill is copied to other machines; a link would point anywhere there). `.rye/` holds the signed
 * manifest and `.git/` is a checkout's own: neither is part of the skill.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import type { SkillCheck, SkillFile, SkillVerification } from "@rye/core";
import {
  buildSkillManifest,
  checkSkillFiles,
  MAX_SKILL_FILE_BYTES,
  MAX_SKILL_FILES,
  MAX_SKILL_TOTAL_BYTES,
  RyeError,
  SKILL_FILE,
  SKILL_MANIFEST_PATH,
  SKILL_RYE_DIR,
  signSkillManifest,
  verifySkill,
} from "@rye/core";
import type { KeyResolver } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { KeyStore } from "../keys/keystore.ts";

const SKIPPED_DIRS = new Set([SKILL_RYE_DIR, ".git"]);

/** Whether `dir` is a skill folder (it has a SKILL.md file). */
export async function isSkillFolder(dir: string): Promise<boolean> {
  return lstat(join(dir, SKILL_FILE)).then((s) => s.isFile(), () => false);
}

/**
 * The skill's files (sorted, `/`-separated paths), read with the limits applied while walking so a huge folder
 * is refused before it is read. Throws NOT_FOUND, PATH_TRAVERSAL (a symlink) or PAYLOAD_TOO_LARGE.
 */
export async function readSkillFolder(dir: string): Promise<SkillFile[]> {
  const root = resolve(dir);
  const top = await lstat(root).catch(() => undefined);
  if (!top?.isDirectory()) throw new RyeError("NOT_FOUND", `${dir} is not a directory`, { hint: "Give the folder that holds SKILL.md." });
  const files: SkillFile[] = [];
  let total = 0;
  const walk = async (folder: string): Promise<void> => {
    const entries: Dirent[] = await readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(folder, entry.name);
      const path = relative(root, full).split(sep).join("/");
      if (entry.isDirectory()) {
        if (folder === root && SKIPPED_DIRS.has(entry.name)) continue;
        await walk(full);
        continue;
      }
      if (entry.isSymbolicLink()) {
        throw new RyeError("PATH_TRAVERSAL", `${path} in the skill is a symbolic link`, { hint: "Skills are copied to other machines: replace the link with the file itself." });
      }
      if (!entry.isFile()) throw new RyeError("VALIDATION_FAILED", `${path} in the skill is not a regular file`, { hint: "Remove it from the skill folder." });
      const info = await lstat(full);
      if (info.size > MAX_SKILL_FILE_BYTES) throw new RyeError("PAYLOAD_TOO_LARGE", `${path} is ${info.size} bytes; a skill file may have at most ${MAX_SKILL_FILE_BYTES}`, { hint: "Keep large assets out of the skill, or link to them from its instructions." });
      total += info.size;
      if (total > MAX_SKILL_TOTAL_BYTES) throw new RyeError("PAYLOAD_TOO_LARGE", `The skill is larger than ${MAX_SKILL_TOTAL_BYTES} bytes`, { hint: "Keep large assets out of the skill." });
      if (files.length >= MAX_SKILL_FILES) throw new RyeError("PAYLOAD_TOO_LARGE", `The skill has more than ${MAX_SKILL_FILES} files`, { hint: "Skills hold instructions, scripts and references, not whole projects." });
      files.push({ path, bytes: new Uint8Array(await readFile(full)), ...((info.mode & 0o111) !== 0 ? { executable: true } : {}) });
    }
  };
  await walk(root);
  return files;
}

/** Validates a skill folder: SKILL.md, file paths and limits, the folder's name equal to the skill's. */
export async function validateSkillFolder(dir: string): Promise<SkillCheck> {
  return checkSkillFiles(await readSkillFolder(dir), basename(resolve(dir)));
}

/** Signs a skill folder with your key: writes `.rye/manifest.yaml` (atomic). SKILL.md and the files are untouched. */
export async function signSkillFolder(dir: string, keyStore: KeyStore): Promise<{ manifestPath: string; name: string; version: string; files: number; fingerprint: string; created: boolean }> {
  const manifest = buildSkillManifest(await readSkillFolder(dir), basename(resolve(dir)));
  const { key, created } = await keyStore.loadOrCreate();
  const manifestPath = join(resolve(dir), ...SKILL_MANIFEST_PATH.split("/"));
  await writeFileAtomic(manifestPath, await signSkillManifest(manifest, key));
  return { manifestPath, name: manifest.skill.name, version: manifest.skill.version, files: Object.keys(manifest.files).length, fingerprint: key.publicKey.fingerprint, created };
}

/** Verifies a skill folder against its `.rye/manifest.yaml` with `keys`. */
export async function verifySkillFolder(dir: string, keys: KeyResolver): Promise<SkillVerification> {
  const manifestPath = join(resolve(dir), ...SKILL_MANIFEST_PATH.split("/"));
  const manifest = await readFile(manifestPath, "utf8").catch(() => undefined);
  if (manifest === undefined) {
    throw new RyeError("UNSIGNED", `${dir} has no signed manifest (${SKILL_MANIFEST_PATH})`, { hint: `Sign the skill with \`rye sign ${dir}\`.` });
  }
  return verifySkill(manifest, keys, await readSkillFolder(dir));
}
