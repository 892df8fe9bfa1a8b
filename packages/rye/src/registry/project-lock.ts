/**
 * The project lock `<project>/.ai/rye.lock` (JSON, written atomically): which registry item versions
 * the project uses, with the hashes and the registry key they were verified with. Later loads use the
 * pinned version and hash (and work offline); a pull that would change a pinned hash or go back to an
 * older version is refused unless an explicit update is requested.
 */
import { join } from "node:path";
import { z } from "zod";
import type { ItemType } from "@rye/core";
import { compareSemver, ITEM_TYPES, RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { serialised } from "../fs/serialised.ts";

export const PROJECT_LOCK_VERSION = 1;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const lockEntrySchema = z.object({
  id: z.string(),
  type: z.enum(ITEM_TYPES),
  version: z.string(),
  content_hash: hex64,
  file_sha256: hex64,
  registry: z.string(),
  key_fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
  attestation_digest: hex64,
  /** Extension of the cached file (`.md`, `.js`…). */
  file_extension: z.string().optional(),
  pinned_at: z.string().optional(),
  /**
   * The registry log's proof that this version's publish is in its signed tree, as verified at pull time
   * (log-proof.ts): `rye verify` checks it again offline.
   */
  log: z
    .object({
      index: z.number().int().nonnegative(),
      tree_size: z.number().int().positive(),
      root_hash: z.string(),
      checkpoint: z.string(),
      leaf: z.string(),
      proof: z.array(z.string()),
      /** A mirror's copy: the `mirror_of` its attestation carries, kept whole (its log entry is a digest over it). */
      mirror_of: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type LockEntry = z.infer<typeof lockEntrySchema>;

const lockFileSchema = z.object({
  lockfile_version: z.literal(PROJECT_LOCK_VERSION),
  items: z.array(lockEntrySchema),
  /** Installed Agent Skills (skills/lock.ts validates their entries). */
  skills: z.array(z.unknown()).optional(),
});
export type ProjectLock = z.infer<typeof lockFileSchema>;

export function projectLockPath(projectPath: string): string {
  return join(projectPath, ".ai", "rye.lock");
}

/** The project lock (empty when absent). A damaged lock is an error, never silently replaced. */
export async function readProjectLock(projectPath: string): Promise<ProjectLock> {
  const lock = await readJsonFileAs(projectLockPath(projectPath), lockFileSchema, {
    what: "a rye project lock",
    hint: "Restore it from version control, or delete it and pull the items again.",
  });
  return lock ?? { lockfile_version: PROJECT_LOCK_VERSION, items: [] };
}

export function findLockEntry(lock: ProjectLock, type: ItemType, id: string): LockEntry | undefined {
  return lock.items.find((e) => e.type === type && e.id === id);
}

export async function getLockEntry(projectPath: string, type: ItemType, id: string): Promise<LockEntry | undefined> {
  return findLockEntry(await readProjectLock(projectPath), type, id);
}

/** Adds or replaces the entry for (type, id), atomically. */
export async function upsertLockEntry(projectPath: string, entry: LockEntry): Promise<void> {
  await upsertLockEntries(projectPath, [entry]);
}

/** Adds or replaces the entries for their (type, id)s in one atomic write of the lock: all of them or none. */
export async function upsertLockEntries(projectPath: string, entries: LockEntry[]): Promise<void> {
  const path = projectLockPath(projectPath);
  const parsed = entries.map((entry) => lockEntrySchema.parse(entry));
  const run = async () => {
    const lock = await readProjectLock(projectPath);
    const replaced = new Set(parsed.map((e) => `${e.type}:${e.id}`));
    const items = [...lock.items.filter((e) => !replaced.has(`${e.type}:${e.id}`)), ...parsed];
    items.sort((a, b) => (a.type === b.type ? a.id.localeCompare(b.id) : a.type.localeCompare(b.type)));
    await writeProjectLock(projectPath, { ...lock, items });
  };
  await serialised(path, run);
}

/** Writes the whole lock, atomically (keys in a fixed order; `skills` only when there are any). */
export async function writeProjectLock(projectPath: string, lock: ProjectLock): Promise<void> {
  const out = { lockfile_version: PROJECT_LOCK_VERSION, items: lock.items, ...(lock.skills && lock.skills.length > 0 ? { skills: lock.skills } : {}) };
  await writeFileAtomic(projectLockPath(projectPath), `${JSON.stringify(out, null, 2)}\n`);
}

/**
 * Refuses a pulled version that contradicts the pin: the same version with another hash
 * (INTEGRITY_MISMATCH) or an older version (VERSION_MISMATCH, a rollback), unless `update`.
 */
export function checkAgainstPin(pin: LockEntry, pulled: { version: string; content_hash: string; file_sha256: string }, options: { update?: boolean; lockPath?: string } = {}): void {
  if (options.update) return;
  const where = options.lockPath ? ` (${options.lockPath})` : "";
  if (pulled.version === pin.version) {
    if (pulled.content_hash !== pin.content_hash || pulled.file_sha256 !== pin.file_sha256) {
      throw new RyeError("INTEGRITY_MISMATCH", `The registry now serves different content for the pinned ${pin.type} ${pin.id}@${pin.version}: pinned file sha256 ${pin.file_sha256.slice(0, 16)}…, served ${pulled.file_sha256.slice(0, 16)}…${where}`, {
        hint: `A published version must never change. If you trust the change, run \`rye update ${pin.id}\`.`,
        details: { id: pin.id, version: pin.version, pinned: { content_hash: pin.content_hash, file_sha256: pin.file_sha256 }, served: { content_hash: pulled.content_hash, file_sha256: pulled.file_sha256 } },
      });
    }
    return;
  }
  if (compareSemver(pulled.version, pin.version) < 0) throw rollbackError(pin, pulled.version, options.lockPath);
}

/** The refusal of a version older than the pinned one (VERSION_MISMATCH), shared with `rye update`. */
export function rollbackError(pin: Pick<LockEntry, "type" | "id" | "version">, version: string, lockPath?: string): RyeError {
  const where = lockPath ? ` (${lockPath})` : "";
  return new RyeError("VERSION_MISMATCH", `Refusing to roll ${pin.type} ${pin.id} back from the pinned ${pin.version} to ${version}${where}`, {
    hint: `To move to an older version on purpose, run \`rye update ${pin.id}@${version} --allow-downgrade\`.`,
    details: { id: pin.id, pinned: pin.version, served: version },
  });
}
