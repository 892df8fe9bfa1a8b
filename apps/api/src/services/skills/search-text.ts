/** The text a skill is found by: its SKILL.md (frontmatter and body), read while the caller's transaction is open. */
import { parseSkillManifest, SKILL_FILE, utf8Decode } from "@rye/core";
import type { Prisma } from "@rye/db";
import { type BlobStore, PostgresBlobStore } from "../blob-store.ts";

/**
 * SKILL.md of the version whose signed manifest is `manifestText`, from the blob table inside the transaction, else
 * from the registry's blob store when that is another one (S3); the manifest itself when the blob is nowhere.
 * The PostgreSQL store is never asked from here: it reads the same table outside the transaction, which waits
 * for it on the single-connection embedded database.
 */
export async function skillSearchText(tx: Prisma.TransactionClient, blobs: BlobStore, manifestText: string): Promise<string> {
  const sha256 = parseSkillManifest(manifestText).files[SKILL_FILE]?.sha256;
  if (!sha256) return manifestText;
  const row = await tx.blob.findUnique({ where: { sha256 }, select: { content: true } });
  const bytes = row?.content ?? (blobs instanceof PostgresBlobStore ? null : await blobs.get(sha256));
  return bytes ? utf8Decode(bytes) : manifestText;
}
