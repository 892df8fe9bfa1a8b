/**
 * Bundles: POST /v1/bundle/push checks a signed manifest (rye-format §5.2) against the pushed files and
 * the publisher's registered keys, stores the files as blobs, re-signs the manifest with the registry
 * key (`|rye-registry@<publisher>`), attests and logs the version. Pull-side lookups live here too.
 */
import type { BundleManifest, ErrorCode, KeyResolver, PublishAttestation } from "@rye/core";
import {
  ATTESTATION_TYPE,
  computeContentHash,
  isInlineSigned,
  itemTypeOfBundlePath,
  keyResolverFrom,
  parseManifest,
  publicKeyFromPem,
  RyeError,
  sha256Hex,
  signDocument,
  signManifest,
  utf8Decode,
  utf8Encode,
  bundleFilePathProblem,
  validateItemId,
  validateNamespace,
  verifyItem,
} from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import type { Principal } from "../auth/principal.ts";
import { canRead, requirePublishAccess } from "./access.ts";
import { recordAudit } from "./audit.ts";
import type { BlobStore } from "./blob-store.ts";
import type { PushContext } from "./publish.ts";
import { credentialOf } from "../auth/credential.ts";
import { recordItemEvent } from "./item-events.ts";
import { latestOf, semverColumns } from "./versions.ts";
import { assertStorableDeclaration } from "../middleware/json-text.ts";

export interface BundleRef {
  namespace: string;
  /** The id without its namespace (may contain "/"): `Bundle.name`. */
  name: string;
  /** `namespace/name…` */
  id: string;
}

/** Bundle ids are item-id shaped (safe `/`-separated segments) and start with a lowercase namespace. */
export function parseBundleId(id: string): BundleRef {
  const problem = validateItemId(id);
  const segments = id.split("/");
  const nsProblem = problem ?? (segments.length < 2 ? "it needs a namespace and a name" : validateNamespace(segments[0]!));
  if (nsProblem) {
    throw new RyeError("INVALID_ITEM_ID", `Invalid bundle id ${JSON.stringify(id)}: ${nsProblem}`, {
      hint: "Bundle ids are namespace/name…, e.g. alice/web-tools: the namespace is your username or organization.",
    });
  }
  return { namespace: segments[0]!, name: segments.slice(1).join("/"), id };
}

export interface PushedFile {
  bytes: Uint8Array;
  /** The SHA-256 the client claims. */
  sha256: string;
  inline_signed?: boolean | undefined;
}

export interface BundlePushInput {
  bundle_id: string;
  version?: string | undefined;
  /** The manifest YAML, signed by the publisher. */
  manifest: string;
  files: Record<string, PushedFile>;
  visibility?: "public" | "unlisted" | "private" | undefined;
}

export interface BundlePushContext extends Omit<PushContext, "maxItemBytes"> {
  blobs: BlobStore;
  maxBundleBytes: number;
}

/** What `BundleVersion.files` holds per path. */
export interface StoredBundleFile {
  sha256: string;
  size: number;
  inline_signed: boolean;
}

interface CheckedFile extends StoredBundleFile {
  path: string;
  bytes: Uint8Array;
}

function checkSize(input: BundlePushInput, max: number): void {
  const total = Object.values(input.files).reduce((sum, f) => sum + f.bytes.length, utf8Encode(input.manifest).length);
  if (total > max) throw new RyeError("PAYLOAD_TOO_LARGE", `The bundle is ${total} bytes; the registry accepts at most ${max}`);
}

/** Every pushed path is safe, the pushed files are exactly the manifest's, and every byte hashes as declared. */
function checkFiles(manifest: BundleManifest, files: Record<string, PushedFile>): CheckedFile[] {
  const unsafe = Object.keys(files).flatMap((path) => {
    const problem = bundleFilePathProblem(manifest.bundle.id, path);
    return problem ? [{ path, reason: problem }] : [];
  });
  if (unsafe.length > 0) throw new RyeError("PATH_TRAVERSAL", "Bundle file paths must stay inside the bundle", { details: unsafe });
  const missing = Object.keys(manifest.files).filter((path) => !Object.hasOwn(files, path));
  if (missing.length > 0) throw new RyeError("BUNDLE_FILES_MISSING", `${missing.length} file(s) of the manifest are not in the request`, { details: missing });
  const unlisted = Object.keys(files).filter((path) => !Object.hasOwn(manifest.files, path));
  if (unlisted.length > 0) {
    throw new RyeError("BUNDLE_INVALID", `${unlisted.length} pushed file(s) are not listed in the manifest`, { details: unlisted, hint: "Rebuild the manifest with `rye bundle create`." });
  }
  const checked: CheckedFile[] = [];
  const tampered: { path: string; reason: string }[] = [];
  for (const [path, entry] of Object.entries(manifest.files)) {
    const file = files[path]!;
    const actual = sha256Hex(file.bytes);
    if (actual !== file.sha256) tampered.push({ path, reason: "the bytes do not match the request's sha256" });
    else if (actual !== entry.sha256) tampered.push({ path, reason: "the bytes do not match the manifest's sha256" });
    const inline = entry.inline_signed || file.inline_signed === true || isInlineSigned(file.bytes);
    checked.push({ path, bytes: file.bytes, sha256: actual, size: file.bytes.length, inline_signed: inline });
  }
  if (tampered.length > 0) throw new RyeError("BUNDLE_FILES_TAMPERED", `${tampered.length} file(s) differ from their sha256`, { details: tampered });
  return checked;
}

const REGISTER_KEY_HINT = "Register your public key with the registry (rye push does this for you), then sign with that key.";

/** The manifest must carry a valid signature by a key registered to the publisher. */
async function manifestAuthor(manifestText: string, publisherKeys: KeyResolver, publisher: string) {
  const result = await verifyItem(manifestText, "tool", publisherKeys);
  if (result.ok && result.signature) return { fingerprint: result.signature.fingerprint, signature: result.signature.signature, verified: true };
  if (result.code === "UNSIGNED") {
    throw new RyeError("UNSIGNED", "The bundle manifest is not signed", { hint: "Create the bundle with `rye bundle create`, which signs the manifest with your key." });
  }
  if (result.code === "UNTRUSTED_KEY") {
    throw new RyeError("UNTRUSTED_KEY", `The manifest is signed with key ${result.fingerprint}, which is not registered to ${publisher}`, { hint: REGISTER_KEY_HINT });
  }
  throw new RyeError(result.code === "OK" ? "BAD_SIGNATURE" : result.code, `The manifest signature does not verify: ${result.message}`);
}

/** Inline-signed items must verify with the publisher's keys or a registry key (items pulled from this registry). */
async function checkInlineSignatures(files: CheckedFile[], trusted: KeyResolver): Promise<void> {
  const failures: { path: string; code: ErrorCode; reason: string }[] = [];
  for (const file of files) {
    const type = itemTypeOfBundlePath(file.path);
    if (!file.inline_signed || !type) continue;
    let text: string;
    try {
      text = utf8Decode(file.bytes);
    } catch {
      failures.push({ path: file.path, code: "BUNDLE_FILES_TAMPERED", reason: "not valid UTF-8" });
      continue;
    }
    const result = await verifyItem(text, type, trusted);
    if (!result.ok) failures.push({ path: file.path, code: result.code === "OK" ? "BAD_SIGNATURE" : result.code, reason: result.message });
  }
  const first = failures[0];
  if (!first) return;
  throw new RyeError(first.code, `${failures.length} inline-signed item(s) do not verify`, {
    details: failures,
    ...(first.code === "UNTRUSTED_KEY" ? { hint: `Items must be signed by a key registered to you or by this registry. ${REGISTER_KEY_HINT}` } : {}),
  });
}

async function publisherKeys(db: Database, principal: Principal) {
  const rows = await db.prisma.userKey.findMany({ where: { userId: principal.userId, revokedAt: null }, select: { publicKeyPem: true } });
  return rows.map((r) => publicKeyFromPem(r.publicKeyPem));
}

async function registryKeys(db: Database) {
  const rows = await db.prisma.registryKey.findMany({ where: { revokedAt: null }, select: { publicKeyPem: true } });
  return rows.map((r) => publicKeyFromPem(r.publicKeyPem));
}

function versionExists(id: string, version: string): RyeError {
  return new RyeError("VERSION_EXISTS", `${id}@${version} already exists; versions are immutable`, { details: { bundle_id: id, version } });
}

export async function publishBundle(input: BundlePushInput, ctx: BundlePushContext) {
  const ref = parseBundleId(input.bundle_id);
  checkSize(input, ctx.maxBundleBytes);
  const access = await requirePublishAccess(ctx.db, ctx.principal, ref.namespace);
  const manifest = parseManifest(input.manifest);
  assertStorableDeclaration(manifest, `The manifest of bundle ${ref.id}`);
  if (manifest.bundle.id !== ref.id) {
    throw new RyeError("BUNDLE_INVALID", `The manifest describes bundle ${JSON.stringify(manifest.bundle.id)}, not ${JSON.stringify(ref.id)}`);
  }
  if (input.version !== undefined && input.version !== manifest.bundle.version) {
    throw new RyeError("VERSION_MISMATCH", `The pushed version ${input.version} differs from the manifest's version ${manifest.bundle.version}`);
  }
  const version = manifest.bundle.version;
  const description = manifest.bundle.description.slice(0, 2000);
  const semver = semverColumns(version);
  const files = checkFiles(manifest, input.files);
  const ownKeys = await publisherKeys(ctx.db, ctx.principal);
  const author = await manifestAuthor(input.manifest, keyResolverFrom(ownKeys), ctx.principal.username);
  await checkInlineSignatures(files, keyResolverFrom([...ownKeys, ...(await registryKeys(ctx.db))]));

  const known = await ctx.db.prisma.bundleVersion.count({ where: { version, bundle: { namespaceId: access.namespace.id, name: ref.name } } });
  if (known > 0) throw versionExists(ref.id, version);
  for (const file of files) await ctx.blobs.put(file.bytes);

  const signedManifest = await signManifest(input.manifest, ctx.registryKey, { provenance: { provider: "rye-registry", username: ctx.principal.username } });
  const manifestSha256 = sha256Hex(signedManifest);
  const contentHash = computeContentHash(signedManifest, "tool");
  const stored: Record<string, StoredBundleFile> = {};
  for (const f of files) stored[f.path] = { sha256: f.sha256, size: f.size, inline_signed: f.inline_signed };

  return ctx.db.prisma.$transaction(async (tx) => {
    const key = { namespaceId: access.namespace.id, name: ref.name };
    await tx.bundle.createMany({ data: [{ ...key, description, visibility: input.visibility ?? "public" }], skipDuplicates: true });
    const bundle = await tx.bundle.findUniqueOrThrow({ where: { namespaceId_name: key }, include: { versions: { select: { version: true, yanked: true } } } });
    if (bundle.versions.some((v) => v.version === version)) throw versionExists(ref.id, version);
    const entry = await recordItemEvent(tx, {
      kind: "publish",
      namespaceId: access.namespace.id,
      visibility: bundle.visibility,
      subject: { kind: "bundle", id: ref.id, version, file_sha256: manifestSha256, content_hash: contentHash, publisher: ctx.principal.username },
      attribution: { author_key: author.fingerprint, credential: credentialOf(ctx.principal) },
    });
    const publishedAt = new Date();
    const attestation: PublishAttestation = {
      _type: ATTESTATION_TYPE,
      registry: ctx.registryUrl,
      subject: { kind: "bundle", id: ref.id, version },
      file_sha256: manifestSha256,
      content_hash: contentHash,
      author,
      publisher: ctx.principal.username,
      published_at: publishedAt.toISOString(),
      log_index: entry.index,
    };
    const signedAttestation = await signDocument(attestation, ctx.registryKey);
    // ON CONFLICT DO NOTHING: a concurrent push of the same version that committed first wins; this one is a 409.
    const created = await tx.bundleVersion.createMany({
      data: [
        {
          bundleId: bundle.id,
          version,
          ...semver,
          manifest: signedManifest,
          manifestSha256,
          files: stored as unknown as Prisma.InputJsonValue,
          publisherId: ctx.principal.userId,
          attestation: attestation as unknown as Prisma.InputJsonValue,
          attestationSignature: signedAttestation.signature,
          logIndex: BigInt(entry.index),
          createdAt: publishedAt,
        },
      ],
      skipDuplicates: true,
    });
    if (created.count === 0) throw versionExists(ref.id, version);
    const latest = latestOf([...bundle.versions, { version, yanked: false }]);
    await tx.bundle.update({ where: { id: bundle.id }, data: { latestVersion: latest, ...(latest === version ? { description } : {}) } });
    await recordAudit(tx, {
      actorId: ctx.principal.userId,
      action: "bundle.publish",
      targetType: "bundle",
      targetId: `${ref.id}@${version}`,
      details: { log_index: entry.index, author_fingerprint: author.fingerprint, file_count: files.length },
      ip: ctx.ip,
      requestId: ctx.requestId,
    });
    return {
      status: "pushed" as const,
      bundle_id: ref.id,
      version,
      file_count: files.length,
      manifest: signedManifest,
      attestation: signedAttestation,
      log_index: entry.index,
    };
  });
}

/** The bundle behind an id, or NOT_FOUND — also for a private bundle the caller may not see. */
export async function findReadableBundle(db: Database, principal: Principal | null, bundleId: string) {
  const ref = parseBundleId(bundleId);
  const bundle = await db.prisma.bundle.findFirst({ where: { name: ref.name, namespace: { name: ref.namespace } }, include: { namespace: true } });
  if (!bundle || !(await canRead(db, principal, bundle, bundle.namespace.name))) {
    throw new RyeError("NOT_FOUND", `Bundle ${ref.id} not found`, { hint: "Check the id, or sign in if it is private." });
  }
  return { ref, bundle };
}

const READ_CONCURRENCY = 8;

/** The stored files of a version with their bytes; a blob that went missing is a server fault. */
export async function readBundleFiles(blobs: BlobStore, files: Record<string, StoredBundleFile>): Promise<(StoredBundleFile & { path: string; bytes: Uint8Array })[]> {
  const read = async (path: string) => {
    const entry = files[path]!;
    const bytes = await blobs.get(entry.sha256);
    if (!bytes) throw new RyeError("INTERNAL", `The stored file ${path} (blob ${entry.sha256}) is missing`, { details: { path, sha256: entry.sha256 } });
    return { path, ...entry, bytes };
  };
  const paths = Object.keys(files).sort();
  const out: Awaited<ReturnType<typeof read>>[] = [];
  for (let i = 0; i < paths.length; i += READ_CONCURRENCY) out.push(...(await Promise.all(paths.slice(i, i + READ_CONCURRENCY).map(read))));
  return out;
}
