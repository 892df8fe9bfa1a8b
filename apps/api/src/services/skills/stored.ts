/** What the registry stores per skill version besides the signed manifest (`ItemVersion.skillArtifacts`). */
import type { SkillManifest } from "@rye/core";
import { parseSkillManifest, RyeError } from "@rye/core";
import type { BlobStore } from "../blob-store.ts";

export interface StoredBlob {
  sha256: string;
  size: number;
}

/** The served artifacts: `skill_md` only for one-file skills (the index's `skill-md` entries). */
export interface SkillArtifacts {
  skill_md?: StoredBlob;
  tar_gz: StoredBlob;
  zip: StoredBlob;
}

export function artifactsOf(value: unknown): SkillArtifacts {
  const a = value as Partial<SkillArtifacts> | null;
  if (!a || !a.tar_gz || !a.zip) throw new RyeError("INTERNAL", "This skill version has no stored artifacts");
  return a as SkillArtifacts;
}

/** The manifest of a stored (registry-signed) skill version. */
export function storedManifest(content: string): SkillManifest {
  return parseSkillManifest(content);
}

/** A blob that must exist (the version row points at it). */
export async function requiredBlob(blobs: BlobStore, sha256: string): Promise<Uint8Array> {
  const bytes = await blobs.get(sha256);
  if (!bytes) throw new RyeError("INTERNAL", `Blob ${sha256} is missing from the store`);
  return bytes;
}
