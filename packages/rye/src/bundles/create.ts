/** `createBundle`: collect a bundle's files, build and sign its manifest, write it atomically. */
import { buildManifest, isSemver, RyeError, serializeManifest, signManifest, validateItemId } from "@rye/core";
import type { BundleManifest, KeyPair } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { scanBundleFiles } from "./collect.ts";
import type { BundleScan } from "./collect.ts";
import { ConfinedRoot } from "./confined.ts";
import { assertBundleId, manifestPathOf } from "./ids.ts";
import type { BundleLimits } from "./limits.ts";
import { DEFAULT_BUNDLE_LIMITS } from "./limits.ts";

export interface CreateBundleOptions {
  /** The directory containing `.ai` (a project directory or the user-space base). */
  root: string;
  bundleId: string;
  /** Semantic version; defaults to `0.1.0`. */
  version?: string;
  description?: string;
  /** A directive item id. */
  entrypoint?: string;
  /** Marks the manifest `type: package`. */
  package?: boolean;
  /** The signing key, or a function giving it: called only once the bundle is known to be valid. */
  key: KeyPair | (() => Promise<KeyPair>);
  /** Defaults to now (tests pin it). */
  createdAt?: Date;
  /** Defaults to DEFAULT_BUNDLE_LIMITS (tests lower them). */
  limits?: BundleLimits;
}

export interface CreatedBundle {
  manifestPath: string;
  manifest: BundleManifest;
  fileCount: number;
  totalBytes: number;
  /** Fingerprint of the signing key. */
  fingerprint: string;
  skipped: BundleScan["skipped"];
}

function checkOptions(options: CreateBundleOptions): void {
  assertBundleId(options.bundleId);
  if (options.version !== undefined && !isSemver(options.version)) {
    throw new RyeError("INVALID_VERSION", `Bundle version ${JSON.stringify(options.version)} is not a semantic version`);
  }
  if (options.entrypoint) {
    const problem = validateItemId(options.entrypoint);
    if (problem) throw new RyeError("INVALID_ITEM_ID", `Invalid entrypoint ${JSON.stringify(options.entrypoint)}: ${problem}`);
  }
}

/** Reads every scanned file through the confined root; the byte limit is checked again on what was read. */
async function readScannedFiles(root: ConfinedRoot, scan: BundleScan, limits: BundleLimits): Promise<{ path: string; bytes: Uint8Array }[]> {
  const files: { path: string; bytes: Uint8Array }[] = [];
  let total = 0;
  for (const { path } of scan.files) {
    const read = await root.read(path, limits.maxBytes - total);
    if (read.kind === "refused" && read.refusal === "too-large") {
      throw new RyeError("PAYLOAD_TOO_LARGE", `The bundle grew past ${limits.maxBytes} bytes while it was being read (at ${path})`);
    }
    if (read.kind !== "file") {
      throw new RyeError("CONFLICT", `${path} changed while the bundle was being created (${read.kind === "refused" ? read.reason : "removed"})`, {
        hint: "Run `rye bundle create` again once the files are stable.",
      });
    }
    total += read.bytes.length;
    files.push({ path, bytes: read.bytes });
  }
  return files;
}

export async function createBundle(options: CreateBundleOptions): Promise<CreatedBundle> {
  checkOptions(options);
  const { bundleId } = options;
  const limits = options.limits ?? DEFAULT_BUNDLE_LIMITS;
  const root = await ConfinedRoot.open(options.root);
  const scan = await scanBundleFiles(root, bundleId, limits);
  if (scan.files.length === 0) {
    throw new RyeError("BUNDLE_INVALID", `Bundle ${bundleId} has no files`, {
      hint: `Put its items in ${scan.searched.join(", ")} under ${root.root}.`,
      details: scan.skipped.length > 0 ? scan.skipped.map((s) => ({ field: s.path, message: `skipped: ${s.reason}` })) : undefined,
    });
  }
  const files = await readScannedFiles(root, scan, limits);
  const manifest = buildManifest(
    {
      id: bundleId,
      version: options.version,
      description: options.description,
      entrypoint: options.entrypoint,
      type: options.package ? "package" : undefined,
      createdAt: options.createdAt,
    },
    files,
  );
  const key = typeof options.key === "function" ? await options.key() : options.key;
  const signed = await signManifest(serializeManifest(manifest), key);
  const manifestPath = manifestPathOf(root.root, bundleId);
  await root.assertWritable(manifestPath);
  await writeFileAtomic(manifestPath, signed);
  return {
    manifestPath,
    manifest,
    fileCount: files.length,
    totalBytes: files.reduce((sum, f) => sum + f.bytes.length, 0),
    fingerprint: key.publicKey.fingerprint,
    skipped: scan.skipped,
  };
}
