/**
 * What a skill pull answers about a version's files, the same for a skill published here (routes/skills.ts) and one
 * cached from an upstream (upstream/skill-hooks.ts): its manifest's files, with their bytes when asked (an install),
 * and the URLs, digests and sizes of its artifacts on this registry.
 */
import type { SkillPullResponse } from "@rye/core";
import type { BlobStore } from "../blob-store.ts";
import { artifactPaths } from "./discovery-index.ts";
import { artifactsOf, requiredBlob, storedManifest } from "./stored.ts";

export interface StoredSkillVersion {
  /** The signed manifest as stored. */
  content: string;
  skillArtifacts: unknown;
  namespace: string;
  name: string;
  version: string;
}

export async function skillPullContents(blobs: BlobStore, publicUrl: string, stored: StoredSkillVersion, withFiles: boolean): Promise<Pick<SkillPullResponse, "description" | "files" | "artifacts">> {
  const manifest = storedManifest(stored.content);
  const artifacts = artifactsOf(stored.skillArtifacts);
  const paths = artifactPaths(stored.namespace, stored.name, stored.version);
  const files: SkillPullResponse["files"] = [];
  for (const [path, entry] of Object.entries(manifest.files)) {
    const bytes = withFiles ? await requiredBlob(blobs, entry.sha256) : null;
    files.push({ path, sha256: entry.sha256, size: entry.size, executable: entry.executable === true, ...(bytes ? { content_base64: Buffer.from(bytes).toString("base64") } : {}) });
  }
  const base = publicUrl.replace(/\/+$/, "");
  return {
    description: manifest.skill.description,
    files,
    artifacts: {
      ...(artifacts.skill_md ? { skill_md: { url: `${base}${paths.skillMd}`, digest: `sha256:${artifacts.skill_md.sha256}`, size: artifacts.skill_md.size } } : {}),
      tar_gz: { url: `${base}${paths.tarGz}`, digest: `sha256:${artifacts.tar_gz.sha256}`, size: artifacts.tar_gz.size },
      zip: { url: `${base}${paths.zip}`, digest: `sha256:${artifacts.zip.sha256}`, size: artifacts.zip.size },
    },
  };
}
