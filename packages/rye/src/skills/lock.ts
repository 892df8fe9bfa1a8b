/**
 * Installed skills in a lock (`<project>/.ai/rye.lock`, or the user space's for `--global`), beside the registry
 * items: where each skill came from, how it was verified, where it was written and the SHA-256 of every file, so
 * `rye skill list` can tell an intact install from one changed on disk.
 */
import { dirname } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { userAiDir } from "../spaces/paths.ts";
import { serialised } from "../fs/serialised.ts";
import { projectLockPath, readProjectLock, writeProjectLock } from "../registry/project-lock.ts";

/** The folder whose `.ai/rye.lock` records the skills: the project, or (global) the user space's parent. */
export function lockRoot(ctx: { projectPath: string; env: NodeJS.ProcessEnv }, global: boolean | undefined): string {
  return global ? dirname(userAiDir(ctx.env)) : ctx.projectPath;
}

export const skillLockEntrySchema = z.object({
  name: z.string(),
  source: z.object({ kind: z.enum(["folder", "well-known", "registry"]), location: z.string() }),
  version: z.string().nullable(),
  /** `sha256:<hex>` of the downloaded artifact (well-known), else null. */
  digest: z.string().nullable(),
  /** How the bytes were checked: a rye signature, the index's digest only, or nothing (an unsigned folder). */
  verified: z.enum(["signature", "digest", "none"]),
  signer: z.string().nullable(),
  scope: z.enum(["project", "global"]),
  agents: z.array(z.string()),
  /** Install folders: relative to the project, or absolute for global installs. */
  paths: z.array(z.string()),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
  installed_at: z.string(),
});
export type SkillLockEntry = z.infer<typeof skillLockEntrySchema>;

/** The skills a lock records (an entry that does not parse is an error: the lock was damaged). */
export async function readSkillLock(root: string): Promise<SkillLockEntry[]> {
  const lock = await readProjectLock(root);
  const parsed = z.array(skillLockEntrySchema).safeParse(lock.skills ?? []);
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `The skills in ${projectLockPath(root)} are damaged`, { hint: "Restore the lock from version control, or remove its skills list and install the skills again." });
  }
  return parsed.data;
}

/** Replaces the entries of `names` by `entries` (read-modify-write, atomic, serialised in this process). */
export async function updateSkillLock(root: string, change: (entries: SkillLockEntry[]) => SkillLockEntry[]): Promise<void> {
  await serialised(projectLockPath(root), async () => {
    const lock = await readProjectLock(root);
    const current = await readSkillLock(root);
    const next = change(current).sort((a, b) => (a.name === b.name ? a.scope.localeCompare(b.scope) : a.name.localeCompare(b.name)));
    await writeProjectLock(root, { ...lock, skills: next.map((e) => skillLockEntrySchema.parse(e)) });
  });
}
