/**
 * POST /v1/skills/push: an Agent Skill version is its author-signed manifest (`.rye/manifest.yaml`) plus its files.
 * The registry validates the files as `rye skill validate` does, checks the manifest's signature against the
 * publisher's registered keys and that it lists exactly these files (verifySkill), stores every file and the
 * served artifacts (SKILL.md, .tar.gz, .zip) as content-addressed blobs, re-signs the manifest with the registry
 * key (`|rye-registry@<publisher>`), attests (with the artifacts' digests) and logs — like items, atomically.
 */
import type { PublishAttestation, SkillFile } from "@rye/core";
import {
  ATTESTATION_TYPE,
  checkSkillFiles,
  computeContentHash,
  keyResolverFrom,
  normalizeNewlines,
  publicKeyFromPem,
  reviewSummary,
  reviewTextFiles,
  RyeError,
  sha256Hex,
  signDocument,
  signItem,
  SKILL_FILE,
  skillVersionNote,
  utf8Decode,
  verifySkill,
} from "@rye/core";
import { isUniqueViolation, type Prisma } from "@rye/db";
import { credentialOf } from "../../auth/credential.ts";
import { requirePublishAccess } from "../access.ts";
import { approvalAnswer, approvalFor, holdReason } from "../approval.ts";
import { recordAudit } from "../audit.ts";
import type { BlobStore } from "../blob-store.ts";
import type { PushContext } from "../publish.ts";
import { recordItemEvent } from "../item-events.ts";
import { refreshSearchDocument } from "../search-document.ts";
import { tokenAllowsItem } from "../tokens.ts";
import { latestOf, semverColumns } from "../versions.ts";
import { skillTarGz, skillZip } from "./archive.ts";
import type { SkillArtifacts } from "./stored.ts";
import { assertStorableDeclaration } from "../../middleware/json-text.ts";

export interface SkillPushInput {
  namespace: string;
  /** The signed `.rye/manifest.yaml` text. */
  manifest: string;
  /** Every file of the skill (never `.rye/`), with the sha256 the client claims. */
  files: { path: string; bytes: Uint8Array; sha256: string }[];
  version?: string | undefined;
  visibility?: "public" | "unlisted" | "private" | undefined;
}

export interface SkillPushContext extends Omit<PushContext, "maxItemBytes"> {
  blobs: BlobStore;
}

const REGISTER_KEY_HINT = "Register your public key with the registry (rye push does this for you), then sign the skill with it (`rye sign <dir>`).";

function validationFailed(message: string, details: unknown): RyeError {
  return new RyeError("VALIDATION_FAILED", message, { hint: "Run `rye skill validate <dir>` and fix what it lists.", details });
}

/** The files as the manifest describes them (execute bits come from the signed manifest). */
function checkedFiles(input: SkillPushInput): SkillFile[] {
  const tampered = input.files.filter((f) => sha256Hex(f.bytes) !== f.sha256).map((f) => f.path);
  if (tampered.length > 0) throw new RyeError("INTEGRITY_MISMATCH", `${tampered.length} file(s) do not match the sha256 sent with them`, { details: tampered });
  return input.files.map((f) => ({ path: f.path, bytes: f.bytes }));
}

async function authorOf(ctx: SkillPushContext, manifestText: string, files: SkillFile[]) {
  const rows = await ctx.db.prisma.userKey.findMany({ where: { userId: ctx.principal.userId, revokedAt: null }, select: { publicKeyPem: true } });
  const result = await verifySkill(manifestText, keyResolverFrom(rows.map((r) => publicKeyFromPem(r.publicKeyPem))), files);
  if (result.ok && result.manifest && result.signature.signature) {
    return { manifest: result.manifest, author: { fingerprint: result.signature.signature.fingerprint, signature: result.signature.signature.signature, verified: true } };
  }
  if (result.code === "UNSIGNED") throw new RyeError("UNSIGNED", "The skill manifest is not signed", { hint: "Sign the skill with `rye sign <dir>` (rye push does it for you)." });
  if (result.code === "UNTRUSTED_KEY") {
    throw new RyeError("UNTRUSTED_KEY", `The skill manifest is signed with a key that is not registered to ${ctx.principal.username}`, { hint: REGISTER_KEY_HINT });
  }
  if (result.code === "INTEGRITY_MISMATCH") {
    throw new RyeError("INTEGRITY_MISMATCH", result.message, { details: { missing: result.missing, changed: result.changed, added: result.added }, hint: "Sign the skill again (`rye sign <dir>`) and push." });
  }
  throw new RyeError(result.code === "OK" ? "BAD_SIGNATURE" : result.code, `The skill manifest does not verify: ${result.message}`);
}

/** Stores the files and builds the served artifacts; returns their blob names and sizes (a mirror's too). */
export async function storeSkillArtifacts(blobs: BlobStore, files: SkillFile[]): Promise<SkillArtifacts> {
  for (const file of files) await blobs.put(file.bytes);
  const blob = async (bytes: Uint8Array) => ({ sha256: await blobs.put(bytes), size: bytes.length });
  const skillMd = files.length === 1 ? files.find((f) => f.path === SKILL_FILE) : undefined;
  return {
    ...(skillMd ? { skill_md: { sha256: sha256Hex(skillMd.bytes), size: skillMd.bytes.length } } : {}),
    tar_gz: await blob(skillTarGz(files)),
    zip: await blob(skillZip(files)),
  };
}

export async function publishSkill(input: SkillPushInput, ctx: SkillPushContext) {
  const pushed = checkedFiles(input);
  const check = checkSkillFiles(pushed);
  if (!check.ok || !check.frontmatter) throw validationFailed(`The skill is not valid (${check.issues.length} issue(s))`, { issues: check.issues });
  assertStorableDeclaration(check.frontmatter, `The skill's SKILL.md`);
  const name = check.frontmatter.name;
  const access = await requirePublishAccess(ctx.db, ctx.principal, input.namespace.toLowerCase());
  const id = `${access.namespace.name}/${name}`;
  if (!tokenAllowsItem(ctx.principal, id)) throw new RyeError("FORBIDDEN", `This token may only publish items matching ${ctx.principal.itemPattern}`);
  const manifestText = normalizeNewlines(input.manifest);
  const { manifest, author } = await authorOf(ctx, manifestText, pushed);
  // The signed manifest's version: SKILL.md's (MAJOR.MINOR read as MAJOR.MINOR.0), or one given beside the files
  // when SKILL.md declares none it could be read from (verifySkill holds the manifest to that).
  const version = manifest.skill.version;
  if (input.version !== undefined && input.version !== version) {
    throw new RyeError("VERSION_MISMATCH", `The pushed version ${input.version} differs from the skill's own version ${version}`);
  }
  const declaredVersion = check.frontmatter.metadata?.version ?? null;
  // Nothing is stored for a version that exists (the transaction checks again, under the item's lock).
  const known = await ctx.db.prisma.itemVersion.count({ where: { version, item: { type: "skill", namespaceId: access.namespace.id, category: "", name } } });
  if (known > 0) throw versionExists(id, version);
  // Execute bits are part of what was signed: the archives carry them from the manifest.
  const files = pushed.map((f) => ({ ...f, executable: manifest.files[f.path]?.executable === true }));
  const artifacts = await storeSkillArtifacts(ctx.blobs, files);
  const signed = await signItem(manifestText, "tool", ctx.registryKey, { path: "manifest.yaml", provenance: { provider: "rye-registry", username: ctx.principal.username } });
  const fileSha256 = sha256Hex(signed.content);
  const contentHash = computeContentHash(signed.content, "tool");
  const description = manifest.skill.description.slice(0, 2000);
  const skillMdText = utf8Decode(files.find((f) => f.path === SKILL_FILE)!.bytes);
  const review = reviewSummary(reviewTextFiles(files));
  const heldReason = holdReason(await approvalFor(ctx.db, ctx.approval ?? { mode: "off", risk: "high" }, access.namespace), review);

  try {
    return await ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO items (id, type, namespace_id, category, name, description, visibility, updated_at)
        VALUES (gen_random_uuid(), 'skill'::item_type, ${access.namespace.id}::uuid, '', ${name}, ${description}, ${input.visibility ?? "public"}::visibility, now())
        ON CONFLICT (type, namespace_id, category, name) DO NOTHING`;
      await tx.$executeRaw`SELECT 1 FROM items WHERE type = 'skill'::item_type AND namespace_id = ${access.namespace.id}::uuid AND category = '' AND name = ${name} FOR UPDATE`;
      const item = await tx.item.findUniqueOrThrow({
        where: { type_namespaceId_category_name: { type: "skill", namespaceId: access.namespace.id, category: "", name } },
        include: { versions: { select: { version: true, yanked: true, status: true } } },
      });
      if (item.versions.some((v) => v.version === version)) throw versionExists(id, version);
      const held = heldReason !== null && !item.versions.some((v) => v.status === "published");
      const publishedAt = new Date();
      const entry = await recordItemEvent(tx, {
        kind: "publish",
        namespaceId: access.namespace.id,
        visibility: item.visibility,
        held: heldReason !== null,
        subject: { kind: "item", item_type: "skill", id, version, file_sha256: fileSha256, content_hash: contentHash, publisher: ctx.principal.username },
        attribution: { author_key: author.fingerprint, credential: credentialOf(ctx.principal) },
      });
      const attestation: PublishAttestation = {
        _type: ATTESTATION_TYPE,
        registry: ctx.registryUrl,
        subject: { kind: "item", item_type: "skill", id, version },
        file_sha256: fileSha256,
        content_hash: contentHash,
        author,
        publisher: ctx.principal.username,
        published_at: publishedAt.toISOString(),
        log_index: entry.index,
        artifacts: { ...(artifacts.skill_md ? { skill_md: artifacts.skill_md.sha256 } : {}), tar_gz: artifacts.tar_gz.sha256, zip: artifacts.zip.sha256 },
      };
      const signedAttestation = await signDocument(attestation, ctx.registryKey);
      await tx.itemVersion.create({
        data: {
          itemId: item.id,
          version,
          ...semverColumns(version),
          content: signed.content,
          contentHash,
          fileSha256,
          sizeBytes: files.reduce((n, f) => n + f.bytes.length, 0),
          authorFingerprint: author.fingerprint,
          authorSignature: author.signature,
          authorVerified: true,
          publisherId: ctx.principal.userId,
          attestation: attestation as unknown as Prisma.InputJsonValue,
          attestationSignature: signedAttestation.signature,
          logIndex: BigInt(entry.index),
          skillArtifacts: artifacts as unknown as Prisma.InputJsonValue,
          review: review as unknown as Prisma.InputJsonValue,
          status: heldReason !== null ? "pending" : "published",
          heldReason,
          createdAt: publishedAt,
        },
      });
      const latest = latestOf([...item.versions, { version, yanked: false, status: heldReason !== null ? "pending" : "published" }]);
      await tx.item.update({ where: { id: item.id }, data: { latestVersion: latest, held, ...(latest === version ? { description } : {}) } });
      if (latest === version) await refreshSearchDocument(tx, item.id, skillMdText);
      await recordAudit(tx, {
        actorId: ctx.principal.userId,
        action: "item.publish",
        targetType: "item",
        targetId: `skill/${id}@${version}`,
        details: { log_index: entry.index, author_fingerprint: author.fingerprint, ...(heldReason !== null ? { held: heldReason } : {}) },
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      return {
        ...approvalAnswer(heldReason, review),
        item_type: "skill" as const,
        item_id: id,
        namespace: access.namespace.name,
        name,
        version,
        declared_version: declaredVersion,
        version_note: skillVersionNote(declaredVersion, version),
        files: files.length,
        signed_manifest: signed.content,
        file_sha256: fileSha256,
        artifacts,
        attestation: signedAttestation,
        log_index: entry.index,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw versionExists(id, version);
    throw err;
  }
}

function versionExists(id: string, version: string): RyeError {
  return new RyeError("VERSION_EXISTS", `${id}@${version} already exists; versions are immutable`, { details: { item_id: id, version }, hint: "Bump metadata.version in SKILL.md, sign and push again." });
}

