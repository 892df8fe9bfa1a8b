/** The text a skill is found by: its SKILL.md (frontmatter and body), read from the blob table inside the caller's transaction. */
import { parseSkillManifest, SKILL_FILE, utf8Decode } from "@rye/core";
import type { Prisma } from "@rye/db";

/** SKILL.md of the version whose signed manifest is `manifestText`; the manifest itself when the blob is elsewhere. */
export async function skillSearchText(tx: Prisma.TransactionClient, manifestText: string): Promise<string> {
  const sha256 = parseSkillManifest(manifestText).files[SKILL_FILE]?.sha256;
  const blob = sha256 ? await tx.blob.findUnique({ where: { sha256 }, select: { content: true } }) : null;
  return blob ? utf8Decode(blob.content) : manifestText;
}
