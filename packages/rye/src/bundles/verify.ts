/**
 * `verifyBundleAt`: core `verifyBundle` over files read through the confined root. A listed file whose
 * path escapes the root (symlink) or is not a regular file is never read and counts as tampered.
 */
import { parseManifest, RyeError, verifyBundle } from "@rye/core";
import type { BundleVerification, KeyResolver } from "@rye/core";
import { scanBundleFiles } from "./collect.ts";
import { ConfinedRoot } from "./confined.ts";
import { assertBundleId } from "./ids.ts";
import { DEFAULT_BUNDLE_LIMITS, MAX_BUNDLE_BYTES } from "./limits.ts";
import { readManifestFile } from "./manifest-file.ts";

export interface VerifyBundleOptions {
  /** The directory containing `.ai`. */
  root: string;
  bundleId: string;
  /** Trusted keys, for the manifest signature and the inline signatures of listed items. */
  keys: KeyResolver;
}

export interface BundleVerifyReport extends BundleVerification {
  bundleId: string;
  manifestPath: string;
  /** One-line summary of the outcome. */
  message: string;
  /** Files in the bundle's folders that the manifest does not list: not covered by it, reported only. */
  files_unlisted: string[];
  warnings: string[];
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Why core rejected the manifest (it only reports BUNDLE_INVALID). */
function manifestProblem(text: string): string {
  try {
    parseManifest(text);
    return "The bundle manifest is invalid";
  } catch (err) {
    if (!(err instanceof RyeError)) return String(err);
    const details = Array.isArray(err.details) ? (err.details as { field: string; message: string }[]) : [];
    return [err.message, ...details.map((d) => `${d.field}: ${d.message}`)].join("; ");
  }
}

async function unlistedFiles(root: ConfinedRoot, bundleId: string, listed: Record<string, unknown>, warnings: string[]): Promise<string[]> {
  try {
    const scan = await scanBundleFiles(root, bundleId, DEFAULT_BUNDLE_LIMITS);
    return scan.files.map((f) => f.path).filter((p) => !Object.hasOwn(listed, p));
  } catch (err) {
    warnings.push(`could not look for unlisted files: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
}

export async function verifyBundleAt(options: VerifyBundleOptions): Promise<BundleVerifyReport> {
  const bundleId = assertBundleId(options.bundleId);
  const root = await ConfinedRoot.open(options.root);
  const { manifestPath, text } = await readManifestFile(root, bundleId);

  const refused = new Map<string, string>();
  const core = await verifyBundle(text, options.keys, async (path) => {
    const read = await root.read(path, MAX_BUNDLE_BYTES);
    if (read.kind === "file") return read.bytes;
    if (read.kind === "refused") refused.set(path, read.reason);
    return undefined;
  });

  const report: BundleVerifyReport = {
    ...core,
    files_missing: core.files_missing.filter((p) => !refused.has(p)).sort(),
    files_tampered: [...core.files_tampered, ...[...refused].map(([path, reason]) => ({ path, reason: `refused: ${reason}` }))].sort(byPath),
    files_ok: [...core.files_ok].sort(),
    bundleId,
    manifestPath,
    message: "",
    files_unlisted: [],
    warnings: [],
  };

  // Precedence: an unreadable manifest, then its signature, then what it says, then the files.
  const fileCount = report.files_ok.length + report.files_missing.length + report.files_tampered.length;
  if (!core.manifest) {
    report.code = "BUNDLE_INVALID";
    report.message = manifestProblem(text);
  } else if (!core.manifestSignature.ok) {
    report.code = core.manifestSignature.code;
    report.message = `The manifest signature does not verify: ${core.manifestSignature.message}`;
  } else if (core.manifest.bundle.id !== bundleId) {
    // A validly signed manifest of another bundle copied here must not vouch for this one.
    report.code = "BUNDLE_INVALID";
    report.message = `The manifest at ${manifestPath} belongs to bundle ${JSON.stringify(core.manifest.bundle.id)}, not ${JSON.stringify(bundleId)}`;
  } else if (report.files_missing.length > 0) {
    report.code = "BUNDLE_FILES_MISSING";
  } else if (report.files_tampered.length > 0) {
    report.code = "BUNDLE_FILES_TAMPERED";
  } else {
    report.code = "OK";
    report.message = `Bundle ${bundleId} verified: ${fileCount} files, manifest signed by ${core.manifestSignature.fingerprint}`;
  }
  if (report.code === "BUNDLE_FILES_MISSING" || report.code === "BUNDLE_FILES_TAMPERED") {
    report.message = `Bundle ${bundleId}: ${report.files_missing.length} missing and ${report.files_tampered.length} tampered of ${fileCount} files`;
  }
  report.ok = report.code === "OK";

  if (core.manifest) report.files_unlisted = await unlistedFiles(root, bundleId, core.manifest.files, report.warnings);
  return report;
}
