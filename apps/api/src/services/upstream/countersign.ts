/**
 * Caching a verified upstream version: re-signed with this registry's key (the same content hash: the inline
 * signature covers the file without its signature line), attested by this registry with `mirror_of` naming the
 * upstream's attestation (the countersignature), logged in this registry's publish log as a `mirror` entry, and
 * stored next to the upstream's file and attestation exactly as fetched.
 */
import { ATTESTATION_TYPE, canonicalJson, computeContentHash, documentDigest, type ItemType, type KeyPair, type RegistryItemType, type MirrorOf, type PublishAttestation, RyeError, sha256Hex, signDocument, signItem, type VerifiedCopy } from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import { appendLogEntry } from "../publish-log.ts";
import type { SkillArtifacts } from "../skills/stored.ts";

export interface UpstreamVersion {
  upstreamUrl: string;
  type: RegistryItemType;
  id: string;
  namespace: string;
  version: string;
  fileExtension: string;
  /** The upstream's answer, as fetched. */
  content: string;
  attestation: { payload: unknown; signature: string; key_fingerprint: string };
  logIndex: number | null;
  description: string;
  yanked: boolean;
  deprecated: boolean;
  deprecationMessage: string | null;
  /** Skills: the artifacts built (and stored as blobs) from the verified files; attested like a local skill's. */
  skillArtifacts?: SkillArtifacts;
}

export type MirroredRow = NonNullable<Awaited<ReturnType<Database["prisma"]["mirroredVersion"]["findFirst"]>>>;

type Tx = Parameters<Parameters<Database["prisma"]["$transaction"]>[0]>[0];

/**
 * This registry's statement about a verified upstream version (an item, a skill or a bundle), inside the caller's
 * transaction: a `mirror` entry in the publish log and the publish attestation with `mirror_of`, signed by `key`.
 */
export async function countersignIn(
  tx: Tx,
  c: { registryUrl: string; key: KeyPair; upstreamUrl: string; subject: PublishAttestation["subject"]; fileSha256: string; contentHash: string; verified: VerifiedCopy; extra?: Partial<PublishAttestation> },
) {
  const upstreamPayload = c.verified.attestation.payload;
  const mirrorOf: MirrorOf = { registry: c.upstreamUrl, key_fingerprint: c.verified.key.fingerprint, attestation_digest: documentDigest(c.verified.attestation), file_sha256: c.verified.fileSha256, log_index: upstreamPayload.log_index };
  // Logged as a digest, like a private publish: the log commits to what the mirror vouched for without telling the
  // world (or the public changes feed, which skips such entries) which upstream items this organization pulls.
  const logged = { ...c.subject, file_sha256: c.fileSha256, content_hash: c.contentHash, publisher: c.verified.publisher, mirror_of: mirrorOf };
  const entry = await appendLogEntry(tx, "mirror", { kind: c.subject.kind, private: true, subject_digest: sha256Hex(canonicalJson(logged)) });
  const attestation: PublishAttestation & { mirror_of: MirrorOf } = {
    _type: ATTESTATION_TYPE,
    registry: c.registryUrl,
    subject: c.subject,
    file_sha256: c.fileSha256,
    content_hash: c.contentHash,
    author: upstreamPayload.author,
    publisher: c.verified.publisher,
    published_at: upstreamPayload.published_at,
    log_index: entry.index,
    mirror_of: mirrorOf,
    ...c.extra,
  };
  const signedAttestation = await signDocument(attestation, c.key);
  return { attestation, signedAttestation, entry };
}

/** Stores `upstream` (verified as `verified`) countersigned by `key`; a copy cached meanwhile by another process wins. */
export async function cacheUpstreamVersion(db: Database, registryUrl: string, key: KeyPair, upstream: UpstreamVersion, verified: VerifiedCopy): Promise<MirroredRow> {
  // A skill's file is its manifest, signed in the tool format (as services/skills/publish-skill.ts signs it).
  const signedAs: ItemType = upstream.type === "skill" ? "tool" : upstream.type;
  const signed = await signItem(upstream.content, signedAs, key, {
    path: upstream.type === "skill" ? "manifest.yaml" : upstream.fileExtension,
    provenance: { provider: "rye-registry", username: verified.publisher },
  });
  const contentHash = computeContentHash(signed.content, signedAs);
  // Re-signing touches only the signature line; anything else means the file was not what it seemed.
  if (contentHash !== verified.contentHash) throw new RyeError("INTERNAL", `Re-signing ${upstream.id}@${upstream.version} changed its content hash`);
  const fileSha256 = sha256Hex(signed.content);
  try {
    return await db.prisma.$transaction(async (tx) => {
      const subject = { kind: "item" as const, item_type: upstream.type, id: upstream.id, version: upstream.version };
      const extra = upstream.skillArtifacts ? { artifacts: artifactDigests(upstream.skillArtifacts) } : {};
      const { attestation, signedAttestation, entry } = await countersignIn(tx, { registryUrl, key, upstreamUrl: upstream.upstreamUrl, subject, fileSha256, contentHash, verified, extra });
      return await tx.mirroredVersion.create({
        data: {
          upstreamUrl: upstream.upstreamUrl,
          itemType: upstream.type,
          itemId: upstream.id,
          namespace: upstream.namespace,
          version: upstream.version,
          content: signed.content,
          contentHash,
          fileSha256,
          fileExtension: upstream.fileExtension,
          publisher: verified.publisher,
          attestation: attestation as unknown as Prisma.InputJsonValue,
          attestationSignature: signedAttestation.signature,
          attestationKey: key.publicKey.fingerprint,
          logIndex: BigInt(entry.index),
          upstreamContent: upstream.content,
          upstreamAttestation: upstream.attestation as unknown as Prisma.InputJsonValue,
          upstreamKeyFingerprint: verified.key.fingerprint,
          upstreamLogIndex: upstream.logIndex === null ? null : BigInt(upstream.logIndex),
          description: upstream.description.slice(0, 2000),
          yanked: upstream.yanked,
          deprecated: upstream.deprecated,
          deprecationMessage: upstream.deprecationMessage,
          ...(upstream.skillArtifacts ? { skillArtifacts: upstream.skillArtifacts as unknown as Prisma.InputJsonValue } : {}),
        },
      });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return await db.prisma.mirroredVersion.findFirstOrThrow({ where: { upstreamUrl: upstream.upstreamUrl, itemType: upstream.type, itemId: upstream.id, version: upstream.version } });
  }
}

function artifactDigests(a: SkillArtifacts): { skill_md?: string; tar_gz: string; zip: string } {
  return { ...(a.skill_md ? { skill_md: a.skill_md.sha256 } : {}), tar_gz: a.tar_gz.sha256, zip: a.zip.sha256 };
}
