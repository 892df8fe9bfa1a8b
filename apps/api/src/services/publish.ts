/**
 * POST /v1/push: validate with @rye/core, check the author's inline signature against their registered
 * keys, re-sign with the registry key (`|rye-registry@<publisher>`), attest, log, store — atomically.
 */
import type { ItemType, KeyPair, PublishAttestation } from "@rye/core";
import {
  ATTESTATION_TYPE,
  computeContentHash,
  extractSignature,
  insertSignatureLine,
  keyResolverFrom,
  normalizeNewlines,
  parseItem,
  parseRegistryItemId,
  publicKeyFromPem,
  reviewFiles,
  reviewSummary,
  boundedItemReferences,
  RyeError,
  sha256Hex,
  signDocument,
  signItem,
  stripSignature,
  utf8Encode,
  verifyItem,
} from "@rye/core";
import { type Database, isUniqueViolation, type Prisma } from "@rye/db";
import { credentialOf } from "../auth/credential.ts";
import type { Principal } from "../auth/principal.ts";
import type { RegistryConfig } from "../config.ts";
import { requirePublishAccess } from "./access.ts";
import { approvalAnswer, approvalFor, holdReason } from "./approval.ts";
import { recordAudit } from "./audit.ts";
import { recordItemEvent } from "./item-events.ts";
import { claimRelations, storeRelations } from "./relations.ts";
import { refreshItemQuality, safetyOf, versionSignals } from "./quality.ts";
import { type SafetyRules, systemSafetyRules } from "./safety-rules.ts";
import { refreshSearchDocument } from "./search-document.ts";
import { latestOf, semverColumns } from "./versions.ts";
import { assertStorableDeclaration } from "../middleware/json-text.ts";

export interface PushInput {
  item_type: ItemType;
  item_id: string;
  content: string;
  version: string;
  changelog?: string | undefined;
  /** Tools: the file extension (".py", ".yaml", ".mjs", …) that decides the format. Default ".py". */
  file_extension?: string | undefined;
  metadata?: { visibility?: "public" | "unlisted" | "private" | undefined; description?: string | undefined } | undefined;
}

export interface PushContext {
  db: Database;
  principal: Principal;
  registryKey: KeyPair;
  registryUrl: string;
  maxItemBytes: number;
  ip: string | null;
  requestId: string;
  /** The registry's approval setting (default off: every version is published at once). */
  approval?: RegistryConfig["approval"] | undefined;
  /** The rules of tools' safety reports; default: the system bundle's (services/safety-rules.ts). */
  safetyRules?: SafetyRules | undefined;
}

const TOOL_EXTENSION_RE = /^\.(py|ya?ml|m?js|cjs|m?ts|sh)$/;


async function authorSignature(db: Database, principal: Principal, content: string, type: ItemType) {
  const extracted = extractSignature(content, type);
  if (extracted.status !== "signed") return null;
  const sig = extracted.signature;
  const registered = await db.prisma.userKey.findFirst({ where: { fingerprint: sig.fingerprint, userId: principal.userId, revokedAt: null } });
  if (!registered) {
    throw new RyeError("UNTRUSTED_KEY", `The item is signed with key ${sig.fingerprint}, which is not registered to ${principal.username}`, {
      hint: "Register your public key with the registry (rye push does this for you), or push the item unsigned.",
    });
  }
  const result = await verifyItem(content, type, keyResolverFrom([publicKeyFromPem(registered.publicKeyPem)]));
  if (!result.ok) throw new RyeError(result.code === "OK" ? "BAD_SIGNATURE" : result.code, `The author signature does not verify: ${result.message}`);
  return { fingerprint: sig.fingerprint, signature: sig.signature, verified: true };
}

export async function publishItem(input: PushInput, ctx: PushContext) {
  const ref = parseRegistryItemId(input.item_id);
  const bytes = utf8Encode(input.content).length;
  if (bytes > ctx.maxItemBytes) {
    throw new RyeError("PAYLOAD_TOO_LARGE", `The item is ${bytes} bytes; the registry accepts at most ${ctx.maxItemBytes}`);
  }
  const access = await requirePublishAccess(ctx.db, ctx.principal, ref.namespace);
  const content = normalizeNewlines(input.content);
  const extension = input.item_type === "tool" ? (input.file_extension ?? ".py").toLowerCase() : ".md";
  if (input.item_type === "tool" && !TOOL_EXTENSION_RE.test(extension)) {
    throw new RyeError("BAD_REQUEST", `Unsupported tool file extension ${JSON.stringify(extension)}`, { hint: "Use .py, .yaml, .yml, .js, .mjs, .cjs, .ts, .mts or .sh." });
  }
  const parsed = parseItem(stripSignature(content, input.item_type), input.item_type, {
    path: `${ref.name}${extension}`,
    location: { stem: ref.name, category: ref.category },
  });
  if (parsed.issues.length > 0) {
    throw new RyeError("VALIDATION_FAILED", `${input.item_type} ${ref.id} is not valid`, { details: parsed.issues });
  }
  assertStorableDeclaration(parsed, `${input.item_type} ${ref.id}`);
  if (parsed.summary.version !== input.version) {
    throw new RyeError("VERSION_MISMATCH", `The pushed version ${input.version} differs from the item's own version ${parsed.summary.version}`);
  }
  const references = boundedItemReferences(parsed);
  const author = await authorSignature(ctx.db, ctx.principal, content, input.item_type);
  const signed = await signItem(content, input.item_type, ctx.registryKey, {
    path: extension,
    provenance: { provider: "rye-registry", username: ctx.principal.username },
  });
  const fileSha256 = sha256Hex(signed.content);
  const contentHash = computeContentHash(signed.content, input.item_type);
  const description = (input.metadata?.description ?? parsed.summary.description ?? "").slice(0, 2000);
  const toolType = input.item_type === "tool" ? (parsed.summary.toolType ?? null) : null;
  // The static review at publish time (as for skills); under RYE_REGISTRY_APPROVAL it may hold the version. It reads
  // the served file with its signature line blanked, so a finding's line number is the line in the file as served.
  const review = reviewSummary(reviewFiles([{ path: `${ref.name}${extension}`, text: insertSignatureLine(signed.content, input.item_type, "") }]));
  // The static safety report of a tool (docs/quality.md), with the security gate's own rules, over the served file.
  const body = stripSignature(content, input.item_type);
  const safety = parsed.type === "tool" ? safetyOf(parsed, signed.content, ctx.safetyRules ?? (await systemSafetyRules())) : null;
  const heldReason = holdReason(await approvalFor(ctx.db, ctx.approval ?? { mode: "off", risk: "high" }, access.namespace), review);

  try {
    return await ctx.db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        INSERT INTO items (id, type, namespace_id, category, name, description, visibility, tool_type, file_extension, updated_at)
        VALUES (gen_random_uuid(), ${input.item_type}::item_type, ${access.namespace.id}::uuid, ${ref.category}, ${ref.name}, ${description},
                ${input.metadata?.visibility ?? "public"}::visibility, ${toolType}, ${input.item_type === "tool" ? extension : null}, now())
        ON CONFLICT (type, namespace_id, category, name) DO NOTHING`;
      // Lock the item row: a concurrent yank or publish must not compute latest_version from a stale list.
      await tx.$executeRaw`SELECT 1 FROM items WHERE type = ${input.item_type}::item_type AND namespace_id = ${access.namespace.id}::uuid AND category = ${ref.category} AND name = ${ref.name} FOR UPDATE`;
      const item = await tx.item.findUniqueOrThrow({
        where: { type_namespaceId_category_name: { type: input.item_type, namespaceId: access.namespace.id, category: ref.category, name: ref.name } },
        include: { versions: { select: { version: true, yanked: true, status: true } } },
      });
      if (item.versions.some((v) => v.version === input.version)) throw versionExists(ref.id, input.version);
      // A new item whose first version is held stays hidden until a version of it is approved.
      const held = heldReason !== null && !item.versions.some((v) => v.status === "published");
      const publishedAt = new Date();
      // A held version is logged like a private one (a digest): the public log must not reveal it before approval.
      const entry = await recordItemEvent(tx, {
        kind: "publish",
        namespaceId: access.namespace.id,
        visibility: item.visibility,
        held: heldReason !== null,
        subject: {
          kind: "item",
          item_type: input.item_type,
          id: ref.id,
          version: input.version,
          file_sha256: fileSha256,
          content_hash: contentHash,
          publisher: ctx.principal.username,
        },
        attribution: { author_key: author?.fingerprint ?? null, credential: credentialOf(ctx.principal) },
      });
      const attestation: PublishAttestation = {
        _type: ATTESTATION_TYPE,
        registry: ctx.registryUrl,
        subject: { kind: "item", item_type: input.item_type, id: ref.id, version: input.version },
        file_sha256: fileSha256,
        content_hash: contentHash,
        author,
        publisher: ctx.principal.username,
        published_at: publishedAt.toISOString(),
        log_index: entry.index,
      };
      const signedAttestation = await signDocument(attestation, ctx.registryKey);
      const signals = versionSignals(parsed, body, { authorVerified: author?.verified ?? false, authorFingerprint: author?.fingerprint ?? null, logIndex: entry.index, attested: true }, safety);
      const created = await tx.itemVersion.create({
        data: {
          itemId: item.id,
          version: input.version,
          ...semverColumns(input.version),
          content: signed.content,
          contentHash,
          fileSha256,
          sizeBytes: utf8Encode(signed.content).length,
          authorFingerprint: author?.fingerprint ?? null,
          authorSignature: author?.signature ?? null,
          authorVerified: author?.verified ?? false,
          publisherId: ctx.principal.userId,
          attestation: attestation as unknown as Prisma.InputJsonValue,
          attestationSignature: signedAttestation.signature,
          logIndex: BigInt(entry.index),
          review: review as unknown as Prisma.InputJsonValue,
          quality: signals.quality as unknown as Prisma.InputJsonValue,
          ...(signals.safety ? { safety: signals.safety as unknown as Prisma.InputJsonValue, safetyRulesVersion: signals.safetyRulesVersion } : {}),
          status: heldReason !== null ? "pending" : "published",
          heldReason,
          createdAt: publishedAt,
        },
      });
      await storeRelations(tx, created.id, references);
      await claimRelations(tx, item, ref.id);
      const latest = latestOf([...item.versions, { version: input.version, yanked: false, status: heldReason !== null ? "pending" : "published" }]);
      await tx.item.update({
        where: { id: item.id },
        data: { latestVersion: latest, held, ...(latest === input.version ? { description, toolType, fileExtension: input.item_type === "tool" ? extension : null } : {}) },
      });
      if (latest === input.version) await refreshSearchDocument(tx, item.id, signed.content);
      await refreshItemQuality(tx, item.id);
      await recordAudit(tx, {
        actorId: ctx.principal.userId,
        action: "item.publish",
        targetType: "item",
        targetId: `${input.item_type}/${ref.id}@${input.version}`,
        details: { log_index: entry.index, author_fingerprint: author?.fingerprint ?? null, ...(heldReason !== null ? { held: heldReason } : {}) },
        ip: ctx.ip,
        requestId: ctx.requestId,
      });
      return {
        ...approvalAnswer(heldReason, review),
        item_type: input.item_type,
        item_id: ref.id,
        namespace: ref.namespace,
        category: ref.category,
        name: ref.name,
        version: input.version,
        signature: {
          timestamp: signed.signature.timestamp,
          hash: signed.signature.hash,
          registry_username: ctx.principal.username,
          fingerprint: signed.signature.fingerprint,
        },
        signed_content: signed.content,
        file_sha256: fileSha256,
        attestation: signedAttestation,
        log_index: entry.index,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw versionExists(ref.id, input.version);
    throw err;
  }
}

function versionExists(id: string, version: string): RyeError {
  return new RyeError("VERSION_EXISTS", `${id}@${version} already exists; versions are immutable`, { details: { item_id: id, version } });
}
