/**
 * Caching a verified upstream version: re-signed with this registry's key (the same content hash: the inline
 * signature covers the file without its signature line), attested by this registry with `mirror_of` naming the
 * upstream's attestation (the countersignature), logged in this registry's publish log as a `mirror` entry, and
 * stored next to the upstream's file and attestation exactly as fetched.
 */
import { ATTESTATION_TYPE, canonicalJson, computeContentHash, documentDigest, type ItemType, type KeyPair, type MirrorOf, type PublishAttestation, RyeError, sha256Hex, signDocument, signItem, type VerifiedCopy } from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import { appendLogEntry } from "../publish-log.ts";

export interface UpstreamVersion {
  upstreamUrl: string;
  type: ItemType;
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
}

export type MirroredRow = NonNullable<Awaited<ReturnType<Database["prisma"]["mirroredVersion"]["findFirst"]>>>;

/** Stores `upstream` (verified as `verified`) countersigned by `key`; a copy cached meanwhile by another process wins. */
export async function cacheUpstreamVersion(db: Database, registryUrl: string, key: KeyPair, upstream: UpstreamVersion, verified: VerifiedCopy): Promise<MirroredRow> {
  const signed = await signItem(upstream.content, upstream.type, key, {
    path: upstream.fileExtension,
    provenance: { provider: "rye-registry", username: verified.publisher },
  });
  const contentHash = computeContentHash(signed.content, upstream.type);
  // Re-signing touches only the signature line; anything else means the file was not what it seemed.
  if (contentHash !== verified.contentHash) throw new RyeError("INTERNAL", `Re-signing ${upstream.id}@${upstream.version} changed its content hash`);
  const fileSha256 = sha256Hex(signed.content);
  const upstreamPayload = verified.attestation.payload;
  try {
    return await db.prisma.$transaction(async (tx) => {
      const subject = { kind: "item" as const, item_type: upstream.type, id: upstream.id, version: upstream.version };
      const mirrorOfBase = { registry: upstream.upstreamUrl, key_fingerprint: verified.key.fingerprint, attestation_digest: documentDigest(verified.attestation), file_sha256: verified.fileSha256, log_index: upstreamPayload.log_index };
      // Logged as a digest, like a private publish: the log commits to what the mirror vouched for without telling the
      // world (or the public changes feed, which skips such entries) which upstream items this organization pulls.
      const logged = { ...subject, file_sha256: fileSha256, content_hash: contentHash, publisher: verified.publisher, mirror_of: mirrorOfBase };
      const entry = await appendLogEntry(tx, "mirror", { kind: "item", private: true, subject_digest: sha256Hex(canonicalJson(logged)) });
      const mirrorOf: MirrorOf = mirrorOfBase;
      const attestation: PublishAttestation & { mirror_of: MirrorOf } = {
        _type: ATTESTATION_TYPE,
        registry: registryUrl,
        subject,
        file_sha256: fileSha256,
        content_hash: contentHash,
        author: upstreamPayload.author,
        publisher: verified.publisher,
        published_at: upstreamPayload.published_at,
        log_index: entry.index,
        mirror_of: mirrorOf,
      };
      const signedAttestation = await signDocument(attestation, key);
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
        },
      });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return await db.prisma.mirroredVersion.findFirstOrThrow({ where: { upstreamUrl: upstream.upstreamUrl, itemType: upstream.type, itemId: upstream.id, version: upstream.version } });
  }
}
