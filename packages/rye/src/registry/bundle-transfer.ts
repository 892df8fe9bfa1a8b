/**
 * Bundles to and from a registry: `pushBundle` (verify the local bundle, upload it with the credentials of
 * the registry serving its namespace) and `pullBundle` (download, verify everything, write atomically).
 *
 * Pull verifies BEFORE anything is written:
 * - the manifest carries the registry's signature by the PINNED key of that registry, with the
 *   `|rye-registry@<publisher>` provenance, and describes exactly the requested bundle (and version);
 * - the publish attestation is signed by the same pinned key and is about exactly this manifest;
 * - the served files are exactly the manifest's, each path is one `rye bundle create` can produce
 *   (`.ai/{directives,tools,knowledge}/<bundle_id>/…`: no absolute paths, `..`, or writes into keys,
 *   trust stores or configuration) and each file's SHA-256 is the manifest's;
 * - every inline-signed item verifies with the pinned registry key or a key you trust (your own, or one
 *   added with `rye trust add`). The registry does not serve its publishers' public keys, so an item
 *   signed by an author you do not trust is refused, naming the key.
 * Then the files are staged in a temporary folder inside the target `.ai/` and renamed into place; an
 * existing different file is only replaced with `force`, a symlink on the way is refused, and on any
 * failure every rename is undone and the folders created are removed again.
 */
import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readFile, rename, rm, rmdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { KeyResolver, PublicKey, PublishAttestation, SignedDocument } from "@rye/core";
import {
  computeContentHash,
  extractSignature,
  isInlineSigned,
  isSemver,
  itemTypeOfBundlePath,
  parseManifest,
  publicKeyFromPem,
  RyeError,
  sha256Hex,
  utf8Decode,
  bundleFilePathProblem,
  validateItemId,
  validateNamespace,
  verifyItem,
} from "@rye/core";
import { ConfinedRoot } from "../bundles/confined.ts";
import { manifestRelPath } from "../bundles/ids.ts";
import { MAX_BUNDLE_BYTES } from "../bundles/limits.ts";
import { readManifestFile } from "../bundles/manifest-file.ts";
import { verifyBundleAt } from "../bundles/verify.ts";
import { KeyStore } from "../keys/keystore.ts";
import { userSpaceBase } from "../spaces/paths.ts";
import { TrustStore } from "../trust/store.ts";
import type { RegistryAnswer } from "./http.ts";
import { httpLimits, readJson, registryFetch } from "./http.ts";
import type { RegistryKeyResult } from "./key-pinning.ts";
import { readRegistryPins, registryKeyFor } from "./key-pinning.ts";
import { tlogAsk, verifyLogProof } from "./log-proof.ts";
import type { RegistrySignature } from "./registry-signed.ts";
import { attestationShape, bundlePullAnswerSchema, bundlePushAnswerSchema } from "./answers.ts";
import { verifyAttestation, verifyRegistrySignature } from "./registry-signed.ts";
import type { PublishContext, Visibility } from "./publish.ts";
import { ensureKeyRegistered } from "./publish.ts";
import { resolveRegistryFor } from "./registries.ts";
import { normalizeRegistryUrl } from "./registry-url.ts";
import { accessTokenFor } from "./session.ts";


export interface TransferProgress {
  direction: "push" | "pull";
  bundleId: string;
  version?: string | undefined;
  /** push: read → upload; pull: download → verify → write. */
  phase: "read" | "upload" | "download" | "verify" | "write";
  filesDone: number;
  /** Unknown (undefined) while downloading. */
  filesTotal?: number | undefined;
  bytesDone: number;
  bytesTotal?: number | undefined;
}

export type ProgressListener = (progress: TransferProgress) => void;

export interface BundleTransferContext extends PublishContext {
  onProgress?: ProgressListener | undefined;
}

/* ------------------------------------------------------------------ ids */

/** Registry bundle ids are `namespace/name…` with a lowercase namespace. */
export function assertRegistryBundleId(bundleId: string): string {
  const problem = validateItemId(bundleId);
  const segments = bundleId.split("/");
  const nsProblem = problem ?? (segments.length < 2 ? "it needs a namespace and a name" : validateNamespace(segments[0]!));
  if (nsProblem) {
    throw new RyeError("INVALID_ITEM_ID", `Invalid registry bundle id ${JSON.stringify(bundleId)}: ${nsProblem}`, {
      hint: "Registry bundles are namespace/name…, e.g. alice/web-tools (your username or organization first); create the bundle under that id.",
    });
  }
  return bundleId;
}

export { splitBundleRef } from "./refs.ts";

/** Why a manifest path may not be written when pulling `bundleId`, or null (the registry's own rule). */
export function pulledPathProblem(bundleId: string, path: string): string | null {
  return bundleFilePathProblem(bundleId, path);
}

/* ------------------------------------------------------------------ registry plumbing */

async function registryFor(bundleId: string, registryUrl: string | undefined, ctx: PublishContext): Promise<string> {
  if (registryUrl) return normalizeRegistryUrl(registryUrl);
  return (await resolveRegistryFor(bundleId, { env: ctx.env, projectPath: ctx.projectPath })).url;
}

/** The registry's error, with a sign-in hint for 401. */
function failure(res: RegistryAnswer, registryUrl: string): never {
  try {
    readJson(res);
  } catch (err) {
    if (err instanceof RyeError && err.code === "UNAUTHORIZED") {
      throw new RyeError("UNAUTHORIZED", `${err.message} (${registryUrl})`, { hint: `Run: rye login --registry ${registryUrl}`, details: err.details });
    }
    throw err;
  }
  throw new RyeError("UNAVAILABLE", `The registry at ${registryUrl} answered ${res.status}`);
}

async function pinnedKey(registryUrl: string, ctx: PublishContext): Promise<RegistryKeyResult> {
  const pinned = await registryKeyFor(registryUrl, { env: ctx.env, ...(ctx.fetchKeys ? { fetchKeys: ctx.fetchKeys } : {}) });
  if (pinned.notice) ctx.info?.(pinned.notice);
  for (const w of pinned.warnings) ctx.info?.(`warning: ${w}`);
  return pinned;
}

function refused(what: string, registryUrl: string, details?: unknown): RyeError {
  return new RyeError("INTEGRITY_MISMATCH", `The bundle from ${registryUrl} does not match: ${what}; nothing was written`, {
    hint: "The registry or the network altered the bundle. Do not use it; retry on a trusted network or report it to the registry operators.",
    ...(details !== undefined ? { details } : {}),
  });
}

/** The registry-signed manifest: signed by the pinned key with registry provenance. */
function checkRegistryManifest(manifest: string, pinned: RegistryKeyResult, label: string): Promise<RegistrySignature> {
  return verifyRegistrySignature(manifest, "tool", pinned, `The manifest of ${label}`);
}

/** The publish attestation: signed by the pinned key, about exactly this bundle version and manifest. */
async function checkAttestation(raw: unknown, pinned: RegistryKeyResult, expected: { bundleId: string; version: string; manifest: string; signature: RegistrySignature }): Promise<SignedDocument<PublishAttestation>> {
  const label = `${expected.bundleId}@${expected.version}`;
  const shape = attestationShape.safeParse(raw);
  if (!shape.success) throw refused(`the publish attestation of ${label} is missing or malformed`, pinned.url);
  return verifyAttestation(shape.data, pinned, { subject: { kind: "bundle", id: expected.bundleId, version: expected.version }, served: expected.manifest, signature: expected.signature, label: `bundle ${label}` });
}

/* ------------------------------------------------------------------ trust for `rye bundle verify` */

/**
 * Keys for verifying a bundle on disk: your trust store, plus — only for a manifest the registry re-signed
 * (`|rye-registry@<publisher>`, as `pullBundle` writes it) — the keys currently pinned for your
 * registries (`rye registry list`). Registry keys never enter the trust store itself.
 */
export async function bundleVerificationKeys(root: string, bundleId: string, env: NodeJS.ProcessEnv): Promise<{ keys: KeyResolver; registry?: { url: string; fingerprint: string; publisher: string } }> {
  const trust = new TrustStore({ env });
  let manifestText: string;
  try {
    manifestText = (await readManifestFile(await ConfinedRoot.open(root), bundleId)).text;
  } catch {
    return { keys: trust }; // verifyBundleAt reports the problem
  }
  const sig = extractSignature(manifestText, "tool");
  if (sig.status !== "signed" || sig.signature.provider !== "rye-registry" || !sig.signature.username) return { keys: trust };
  const pins = await readRegistryPins(env).catch(() => ({}));
  const registryKeys = new Map<string, { key: PublicKey; url: string }>();
  for (const [url, pin] of Object.entries(pins)) {
    try {
      const key = publicKeyFromPem(pin.public_key);
      if (key.fingerprint === pin.fingerprint) registryKeys.set(key.fingerprint, { key, url });
    } catch {
      // a damaged pin grants nothing
    }
  }
  const signer = registryKeys.get(sig.signature.fingerprint);
  return {
    keys: { resolve: async (fingerprint) => (await trust.resolve(fingerprint)) ?? registryKeys.get(fingerprint)?.key },
    ...(signer ? { registry: { url: signer.url, fingerprint: signer.key.fingerprint, publisher: sig.signature.username } } : {}),
  };
}

/* ------------------------------------------------------------------ push */

export interface PushBundleOptions {
  bundleId: string;
  /** The bundle lives in the user space instead of the project. */
  fromUser?: boolean;
  visibility?: Visibility;
  registryUrl?: string;
}

export interface PushBundleResult {
  status: "pushed";
  registry: string;
  bundle_id: string;
  version: string;
  file_count: number;
  total_bytes: number;
  manifest_path: string;
  author_fingerprint: string;
  registry_fingerprint: string;
  key_registration: "registered" | "already_registered" | "not_checked";
  log_index: number | null;
  /** Files in the bundle's folders that the manifest does not list (not pushed). */
  files_unlisted: string[];
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export async function pushBundle(options: PushBundleOptions, ctx: BundleTransferContext): Promise<PushBundleResult> {
  const bundleId = assertRegistryBundleId(options.bundleId);
  const root = options.fromUser ? userSpaceBase(ctx.env) : resolve(ctx.projectPath);

  // 1. The local bundle must verify as it is (manifest signature, every file), like `rye bundle verify`.
  const report = await verifyBundleAt({ root, bundleId, keys: new TrustStore({ env: ctx.env }) });
  if (!report.ok || !report.manifest) {
    throw new RyeError(report.code === "OK" ? "BUNDLE_INVALID" : report.code, `${report.message}; nothing was pushed`, {
      hint: "Fix the files (or recreate the manifest with `rye bundle create`), check with `rye bundle verify`, then push again.",
      details: [...report.files_missing.map((path) => ({ field: path, message: "missing" })), ...report.files_tampered.map((t) => ({ field: t.path, message: t.reason }))],
    });
  }
  if (report.manifest.bundle.id !== bundleId) throw new RyeError("BUNDLE_INVALID", `The manifest describes ${report.manifest.bundle.id}, not ${bundleId}`);
  const version = report.manifest.bundle.version;
  for (const path of report.files_unlisted) ctx.info?.(`warning: ${path} is not listed in the manifest and is not pushed (run \`rye bundle create ${bundleId}\` to include it)`);

  // 2. Read what was verified, once more through the confined root, and hash it again (it may have changed since).
  const confined = await ConfinedRoot.open(root);
  const { manifestPath, text: manifest } = await readManifestFile(confined, bundleId);
  const entries = Object.entries(report.manifest.files);
  const progress = (phase: TransferProgress["phase"], filesDone: number, bytesDone: number, bytesTotal?: number) =>
    ctx.onProgress?.({ direction: "push", bundleId, version, phase, filesDone, filesTotal: entries.length, bytesDone, bytesTotal });
  const files: Record<string, { content_base64: string; sha256: string; inline_signed: boolean }> = {};
  let total = 0;
  progress("read", 0, 0);
  for (const [index, [path, entry]] of entries.entries()) {
    const read = await confined.read(path, MAX_BUNDLE_BYTES - total);
    if (read.kind === "refused" && read.refusal === "too-large") throw new RyeError("PAYLOAD_TOO_LARGE", `Bundle ${bundleId} holds more than ${MAX_BUNDLE_BYTES} bytes`);
    if (read.kind !== "file" || sha256Hex(read.bytes) !== entry.sha256) {
      throw new RyeError("CONFLICT", `${path} changed while bundle ${bundleId} was being pushed; nothing was pushed`, { hint: "Run `rye bundle verify` and push again once the files are stable." });
    }
    total += read.bytes.length;
    files[path] = { content_base64: toBase64(read.bytes), sha256: entry.sha256, inline_signed: entry.inline_signed };
    progress("read", index + 1, total);
  }
  if ((await readManifestFile(confined, bundleId)).text !== manifest) throw new RyeError("CONFLICT", `The manifest of ${bundleId} changed while it was being pushed; nothing was pushed`);

  // 3. Registry, token, and the manifest signer's key registered (asking first) when it is your key.
  const registryUrl = await registryFor(bundleId, options.registryUrl, ctx);
  const token = await accessTokenFor(registryUrl, ctx.env);
  if (!token) throw new RyeError("UNAUTHORIZED", `Not signed in to ${registryUrl}`, { hint: `Run: rye login --registry ${registryUrl} (or set RYE_TOKEN)` });
  const authorFingerprint = report.manifestSignature.fingerprint ?? "";
  const own = await new KeyStore({ env: ctx.env }).load();
  const keyRegistration =
    own && own.publicKey.fingerprint === authorFingerprint ? await ensureKeyRegistered(registryUrl, token, { fingerprint: own.publicKey.fingerprint, pem: own.publicKey.pem }, ctx) : ("not_checked" as const);

  // 4. Upload (a POST is never retried), then check the registry's signature and attestation.
  progress("upload", entries.length, total, total);
  // The upload happens before the response headers: their clock is the whole deadline.
  const res = await registryFetch(registryUrl, "/v1/bundle/push", {
    token,
    kind: "bundle",
    env: ctx.env,
    limits: { connectTimeoutMs: httpLimits("bundle", ctx.env).deadlineMs },
    json: { bundle_id: bundleId, version, manifest, files, ...(options.visibility ? { visibility: options.visibility } : {}) },
  });
  if (!res.ok) failure(res, registryUrl);
  const pushed = readJson(res, bundlePushAnswerSchema);
  const pinned = await pinnedKey(registryUrl, ctx);
  const label = `${bundleId}@${version}`;
  if (typeof pushed.manifest !== "string" || pushed.bundle_id !== bundleId || pushed.version !== version) {
    throw new RyeError("INTEGRITY_MISMATCH", `${registryUrl} answered the push of ${label} with ${String(pushed.bundle_id)}@${String(pushed.version)}`);
  }
  const sig = await checkRegistryManifest(pushed.manifest, pinned, label);
  if (sig.hash !== computeContentHash(manifest, "tool")) {
    throw new RyeError("INTEGRITY_MISMATCH", `The registry signed a different manifest than the one pushed for ${label}`, { hint: "Report this to the registry operators." });
  }
  await checkAttestation(pushed.attestation, pinned, { bundleId, version, manifest: pushed.manifest, signature: sig });
  progress("upload", entries.length, total, total);
  return {
    status: "pushed",
    registry: registryUrl,
    bundle_id: bundleId,
    version,
    file_count: entries.length,
    total_bytes: total,
    manifest_path: manifestPath,
    author_fingerprint: authorFingerprint,
    registry_fingerprint: sig.key.fingerprint,
    key_registration: keyRegistration,
    log_index: typeof pushed.log_index === "number" ? pushed.log_index : null,
    files_unlisted: report.files_unlisted,
  };
}

/* ------------------------------------------------------------------ pull: download and verify */

export interface PullBundleOptions {
  bundleId: string;
  version?: string | undefined;
  /** Where to write: the project (default) or the user space. */
  to?: "project" | "user" | undefined;
  /** Replace existing files whose content differs. */
  force?: boolean | undefined;
  registryUrl?: string | undefined;
  /** Called before each rename into place (tests inject failures here). */
  beforeCommit?: ((relPath: string) => void | Promise<void>) | undefined;
}

export interface PullBundleResult {
  status: "pulled" | "unchanged";
  registry: string;
  bundle_id: string;
  version: string;
  space: "project" | "user";
  root: string;
  manifest_path: string;
  publisher: string;
  registry_fingerprint: string;
  author_fingerprint: string | null;
  file_count: number;
  total_bytes: number;
  files_written: string[];
  files_unchanged: string[];
  log_index: number | null;
  yanked: boolean;
}

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !STRICT_BASE64.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, "base64"));
}

interface VerifiedBundle {
  registryUrl: string;
  bundleId: string;
  version: string;
  manifest: string;
  publisher: string;
  registryFingerprint: string;
  authorFingerprint: string | null;
  files: { path: string; bytes: Uint8Array }[];
  logIndex: number | null;
  yanked: boolean;
}

/** Downloads `bundleId[@version]` and verifies every part of it; nothing is written. */
export async function fetchVerifiedBundle(options: PullBundleOptions, ctx: BundleTransferContext): Promise<VerifiedBundle> {
  const bundleId = assertRegistryBundleId(options.bundleId);
  if (options.version !== undefined && !isSemver(options.version)) throw new RyeError("INVALID_VERSION", `Invalid version ${JSON.stringify(options.version)}`);
  const label = `${bundleId}${options.version ? `@${options.version}` : ""}`;
  const registryUrl = await registryFor(bundleId, options.registryUrl, ctx);
  const token = await accessTokenFor(registryUrl, ctx.env);
  const pinned = await pinnedKey(registryUrl, ctx); // before downloading: fail closed early when no key can be pinned

  const ask = await tlogAsk(registryUrl, ctx.env);
  const path = `/v1/bundle/pull/${bundleId.split("/").map(encodeURIComponent).join("/")}?${options.version ? `version=${encodeURIComponent(options.version)}&` : ""}${ask.param}`;
  const progress = (phase: TransferProgress["phase"], p: Omit<TransferProgress, "direction" | "bundleId" | "phase">) => ctx.onProgress?.({ direction: "pull", bundleId, phase, ...p });
  progress("download", { version: options.version, filesDone: 0, bytesDone: 0 });
  const res = await registryFetch(registryUrl, path, {
    token,
    kind: "bundle",
    env: ctx.env,
    retry: ctx.retry,
    onBytes: (done, total) => progress("download", { version: options.version, filesDone: 0, bytesDone: done, bytesTotal: total }),
  });
  if (res.status === 404) {
    throw new RyeError("ITEM_NOT_FOUND", `Bundle ${label} not found at ${registryUrl}`, { hint: "Check the id and version; private bundles need `rye login`." });
  }
  if (!res.ok) failure(res, registryUrl);
  const body = readJson(res, bundlePullAnswerSchema);

  // The answer is the bundle and version asked for.
  if (body.bundle_id !== bundleId) throw refused(`it served bundle ${body.bundle_id} for ${bundleId}`, registryUrl);
  if (options.version && body.version !== options.version) throw refused(`it served version ${body.version} for ${label}`, registryUrl);
  const version = body.version;
  const full = `${bundleId}@${version}`;

  // Paths first: an unsafe name is refused as such, whatever else is wrong.
  const unsafe = Object.keys(body.files).flatMap((p) => {
    const problem = pulledPathProblem(bundleId, p);
    return problem ? [{ field: p, message: problem }] : [];
  });
  if (unsafe.length > 0) throw new RyeError("PATH_TRAVERSAL", `The bundle ${full} from ${registryUrl} names files that may not be written; nothing was written`, { details: unsafe });

  // The manifest: registry signature by the pinned key, attestation, and what it describes.
  const sig = await checkRegistryManifest(body.manifest, pinned, full);
  if (body.manifest_sha256 !== undefined && body.manifest_sha256 !== sha256Hex(body.manifest)) throw refused("the announced manifest_sha256 is not the manifest's", registryUrl);
  const attestation = await checkAttestation(body.attestation, pinned, { bundleId, version, manifest: body.manifest, signature: sig });
  await verifyLogProof(pinned, body.transparency, attestation, ask, { env: ctx.env, projectPath: ctx.projectPath }, `bundle ${full}`);
  const manifest = parseManifest(body.manifest);
  if (manifest.bundle.id !== bundleId || manifest.bundle.version !== version) {
    throw refused(`the manifest describes ${manifest.bundle.id}@${manifest.bundle.version}`, registryUrl);
  }
  const manifestUnsafe = Object.keys(manifest.files).flatMap((p) => {
    const problem = pulledPathProblem(bundleId, p);
    return problem ? [{ field: p, message: problem }] : [];
  });
  if (manifestUnsafe.length > 0) throw new RyeError("PATH_TRAVERSAL", `The manifest of ${full} lists files that may not be written; nothing was written`, { details: manifestUnsafe });
  const lower = new Map<string, string>();
  for (const p of Object.keys(manifest.files)) {
    const other = lower.get(p.toLowerCase());
    if (other) throw new RyeError("BUNDLE_INVALID", `The manifest of ${full} lists ${other} and ${p}, which are the same file on case-insensitive file systems; nothing was written`);
    lower.set(p.toLowerCase(), p);
  }

  // The files: exactly the manifest's, each with the manifest's SHA-256.
  const missing = Object.keys(manifest.files).filter((p) => !Object.hasOwn(body.files, p));
  if (missing.length > 0) throw new RyeError("BUNDLE_FILES_MISSING", `${missing.length} file(s) of ${full} are not in the registry's answer; nothing was written`, { details: missing });
  const unlisted = Object.keys(body.files).filter((p) => !Object.hasOwn(manifest.files, p));
  if (unlisted.length > 0) throw refused(`${unlisted.length} served file(s) are not in the signed manifest`, registryUrl, unlisted);
  const total = Object.keys(manifest.files).length;
  const trusted = new TrustStore({ env: ctx.env });
  const itemKeys: KeyResolver = { resolve: async (fp) => (fp === sig.key.fingerprint ? sig.key : trusted.resolve(fp)) };
  const files: { path: string; bytes: Uint8Array }[] = [];
  const tampered: { field: string; message: string }[] = [];
  const untrusted: { field: string; message: string }[] = [];
  let bytesDone = 0;
  for (const [path, entry] of Object.entries(manifest.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const served = body.files[path]!;
    const bytes = decodeBase64(served.content_base64);
    if (!bytes) {
      tampered.push({ field: path, message: "content_base64 is not valid base64" });
      continue;
    }
    const actual = sha256Hex(bytes);
    if (actual !== entry.sha256 || (served.sha256 !== undefined && served.sha256 !== actual)) {
      tampered.push({ field: path, message: "sha256 differs from the signed manifest" });
      continue;
    }
    const type = itemTypeOfBundlePath(path);
    if (type && (entry.inline_signed || served.inline_signed || isInlineSigned(bytes))) {
      let itemText: string;
      try {
        itemText = utf8Decode(bytes);
      } catch {
        tampered.push({ field: path, message: "an inline-signed item that is not valid UTF-8" });
        continue;
      }
      const result = await verifyItem(itemText, type, itemKeys);
      if (result.code === "UNTRUSTED_KEY") untrusted.push({ field: path, message: `signed by key ${result.fingerprint ?? "?"}, which you do not trust` });
      else if (!result.ok) tampered.push({ field: path, message: `inline signature: ${result.code} (${result.message})` });
    }
    files.push({ path, bytes });
    bytesDone += bytes.length;
    progress("verify", { version, filesDone: files.length, filesTotal: total, bytesDone });
  }
  if (tampered.length > 0) {
    throw new RyeError("BUNDLE_FILES_TAMPERED", `${tampered.length} file(s) of ${full} from ${registryUrl} fail verification; nothing was written`, {
      hint: "The registry or the network altered the bundle. Do not use it; retry on a trusted network or report it to the registry operators.",
      details: tampered,
    });
  }
  const author = attestation.payload.author?.fingerprint ?? null;
  if (untrusted.length > 0) {
    throw new RyeError("UNTRUSTED_KEY", `${untrusted.length} inline-signed item(s) of ${full} are signed by keys you do not trust; nothing was written`, {
      hint: `Every item is verified before it is written, and the registry does not serve its publishers' keys. Get ${sig.publisher}'s public key${author ? ` (the manifest's author key is ${author})` : ""} from them, trust it with \`rye trust add <public_key.pem>\`, and pull again.`,
      details: untrusted,
    });
  }
  return {
    registryUrl,
    bundleId,
    version,
    manifest: body.manifest,
    publisher: sig.publisher,
    registryFingerprint: sig.key.fingerprint,
    authorFingerprint: author,
    files,
    logIndex: typeof body.log_index === "number" ? body.log_index : null,
    yanked: body.yanked ?? false,
  };
}

/* ------------------------------------------------------------------ pull: atomic write */

interface PlannedWrite {
  rel: string;
  abs: string;
  bytes: Uint8Array;
  action: "create" | "replace" | "unchanged";
}

function isErrno(err: unknown, ...codes: string[]): boolean {
  return codes.includes((err as NodeJS.ErrnoException)?.code ?? "");
}

async function lstatOrNull(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (isErrno(err, "ENOENT")) return null;
    throw err;
  }
}

/** Every existing folder between `root` and the file is a real folder (no symlink, no file in the way). */
async function checkFoldersOnTheWay(root: string, rel: string): Promise<void> {
  const segments = rel.split("/");
  let dir = root;
  for (const segment of segments.slice(0, -1)) {
    dir = join(dir, segment);
    const info = await lstatOrNull(dir);
    if (!info) return; // the rest will be created
    if (info.isSymbolicLink()) {
      throw new RyeError("PATH_TRAVERSAL", `${dir} is a symlink; refusing to write ${rel} through it (nothing was written)`, { hint: "Replace the symlink with a real folder, or pull into another directory." });
    }
    if (!info.isDirectory()) throw new RyeError("CONFLICT", `${dir} is not a folder; cannot write ${rel} (nothing was written)`);
  }
}

async function planWrites(root: string, entries: { rel: string; bytes: Uint8Array }[], force: boolean): Promise<PlannedWrite[]> {
  const plan: PlannedWrite[] = [];
  const conflicts: { field: string; message: string }[] = [];
  for (const { rel, bytes } of entries) {
    await checkFoldersOnTheWay(root, rel);
    const abs = join(root, ...rel.split("/"));
    const info = await lstatOrNull(abs);
    if (!info) {
      plan.push({ rel, abs, bytes, action: "create" });
      continue;
    }
    if (info.isSymbolicLink()) throw new RyeError("PATH_TRAVERSAL", `${abs} is a symlink; refusing to write through it (nothing was written)`, { hint: "Remove the symlink, or pull into another directory." });
    if (!info.isFile()) throw new RyeError("CONFLICT", `${abs} exists and is not a regular file (nothing was written)`);
    const existing = new Uint8Array(await readFile(abs));
    if (Buffer.compare(existing, bytes) === 0) plan.push({ rel, abs, bytes, action: "unchanged" });
    else if (force) plan.push({ rel, abs, bytes, action: "replace" });
    else conflicts.push({ field: rel, message: "exists with different content" });
  }
  if (conflicts.length > 0) {
    throw new RyeError("ITEM_EXISTS", `${conflicts.length} file(s) of the bundle exist locally with different content; nothing was written`, {
      hint: "Review your local changes, then pass --force to replace them.",
      details: conflicts,
    });
  }
  return plan;
}

/** Creates the missing folders of `dir` one by one, recording each one created (for the rollback). */
async function ensureFolders(dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    const info = await lstatOrNull(d);
    if (info) {
      if (info.isSymbolicLink() || !info.isDirectory()) throw new RyeError("PATH_TRAVERSAL", `${d} changed into a ${info.isSymbolicLink() ? "symlink" : "file"} while the bundle was being written`);
      break;
    }
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      await mkdir(d);
      created.push(d);
    } catch (err) {
      if (!isErrno(err, "EEXIST")) throw err;
    }
  }
}

async function writeStaged(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, "wx", 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `entries` under `root` all or nothing: staged in `<root>/.ai/.rye-staging-…/`, then renamed into
 * place (replaced files are moved aside first); any failure undoes the renames, restores what was
 * replaced and removes the folders it created.
 */
export async function writeFilesAtomically(
  root: string,
  entries: { rel: string; bytes: Uint8Array }[],
  options: { force?: boolean | undefined; beforeCommit?: ((rel: string) => void | Promise<void>) | undefined; onWritten?: (rel: string, bytes: number) => void } = {},
): Promise<PlannedWrite[]> {
  const plan = await planWrites(root, entries, options.force === true);
  const pending = plan.filter((w) => w.action !== "unchanged");
  if (pending.length === 0) return plan;

  const created: string[] = [];
  const done: { abs: string; backup?: string }[] = [];
  let staging: string | undefined;
  try {
    await ensureFolders(join(root, ".ai"), created);
    staging = join(root, ".ai", `.rye-staging-${randomBytes(8).toString("hex")}`);
    await mkdir(staging, { mode: 0o700 });
    for (const [index, w] of pending.entries()) await writeStaged(join(staging, String(index)), w.bytes);
    for (const [index, w] of pending.entries()) {
      await options.beforeCommit?.(w.rel);
      await checkFoldersOnTheWay(root, w.rel);
      await ensureFolders(dirname(w.abs), created);
      const info = await lstatOrNull(w.abs);
      if (info && (info.isSymbolicLink() || !info.isFile())) throw new RyeError("PATH_TRAVERSAL", `${w.abs} changed into a ${info.isSymbolicLink() ? "symlink" : "non-file"} while the bundle was being written`);
      if (info && w.action !== "replace") throw new RyeError("CONFLICT", `${w.abs} appeared while the bundle was being written`, { hint: "Pull again (with --force to replace it)." });
      let backup: string | undefined;
      if (info) {
        backup = join(staging, `${index}.previous`);
        await rename(w.abs, backup);
      }
      try {
        await rename(join(staging, String(index)), w.abs);
      } catch (err) {
        if (backup) await rename(backup, w.abs);
        throw err;
      }
      done.push({ abs: w.abs, ...(backup ? { backup } : {}) });
      options.onWritten?.(w.rel, w.bytes.length);
    }
  } catch (err) {
    const problems: string[] = [];
    for (const d of done.reverse()) {
      try {
        if (d.backup) await rename(d.backup, d.abs);
        else await rm(d.abs, { force: true });
      } catch (undo) {
        problems.push(`${d.abs}: ${(undo as Error).message}`);
      }
    }
    if (staging) await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    for (const dir of created.reverse()) await rmdir(dir).catch(() => undefined);
    if (problems.length > 0 && err instanceof RyeError) {
      throw new RyeError(err.code, `${err.message}; undoing the partial write failed for ${problems.length} file(s)`, { details: problems, ...(err.hint ? { hint: err.hint } : {}) });
    }
    throw err;
  }
  await rm(staging, { recursive: true, force: true });
  return plan;
}

export async function pullBundle(options: PullBundleOptions, ctx: BundleTransferContext): Promise<PullBundleResult> {
  const verified = await fetchVerifiedBundle(options, ctx);
  const space = options.to === "user" ? "user" : "project";
  const root = space === "user" ? userSpaceBase(ctx.env) : resolve(ctx.projectPath);
  const manifestRel = manifestRelPath(verified.bundleId);
  const entries = [...verified.files.map((f) => ({ rel: f.path, bytes: f.bytes })), { rel: manifestRel, bytes: new Uint8Array(Buffer.from(verified.manifest, "utf8")) }];
  const total = verified.files.length;
  const totalBytes = verified.files.reduce((sum, f) => sum + f.bytes.length, 0);
  let filesDone = 0;
  let bytesDone = 0;
  const progress = () =>
    ctx.onProgress?.({ direction: "pull", bundleId: verified.bundleId, version: verified.version, phase: "write", filesDone, filesTotal: total, bytesDone, bytesTotal: totalBytes });
  progress();
  const plan = await writeFilesAtomically(root, entries, {
    force: options.force,
    beforeCommit: options.beforeCommit,
    onWritten: (rel, bytes) => {
      if (rel === manifestRel) return;
      filesDone += 1;
      bytesDone += bytes;
      progress();
    },
  });
  const files = plan.filter((w) => w.rel !== manifestRel);
  filesDone = total;
  bytesDone = totalBytes;
  progress();
  const written = files.filter((w) => w.action !== "unchanged").map((w) => w.rel);
  return {
    status: plan.every((w) => w.action === "unchanged") ? "unchanged" : "pulled",
    registry: verified.registryUrl,
    bundle_id: verified.bundleId,
    version: verified.version,
    space,
    root,
    manifest_path: join(root, ...manifestRel.split("/")),
    publisher: verified.publisher,
    registry_fingerprint: verified.registryFingerprint,
    author_fingerprint: verified.authorFingerprint,
    file_count: total,
    total_bytes: totalBytes,
    files_written: written,
    files_unchanged: files.filter((w) => w.action === "unchanged").map((w) => w.rel),
    log_index: verified.logIndex,
    yanked: verified.yanked,
  };
}
