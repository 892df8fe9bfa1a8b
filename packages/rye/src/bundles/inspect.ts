/** `inspectBundle`: what a manifest says plus file sizes on disk, without verifying anything. */
import { extractSignature, itemTypeOfBundlePath, parseManifest } from "@rye/core";
import type { BundleManifest, ItemType } from "@rye/core";
import { ConfinedRoot } from "./confined.ts";
import { assertBundleId } from "./ids.ts";
import { readManifestFile } from "./manifest-file.ts";

export interface InspectedFile {
  path: string;
  sha256: string;
  inline_signed: boolean;
  type: ItemType | null;
  /** Bytes on disk; null when the file is absent or cannot be read inside the root. */
  size: number | null;
}

export interface BundleInspection {
  bundleId: string;
  manifestPath: string;
  bundle: BundleManifest["bundle"];
  /** The signature line as written (not checked against the content or the trust store). */
  signature: { status: "signed" | "unsigned" | "legacy" | "malformed"; fingerprint?: string; timestamp?: string };
  counts: Record<ItemType | "other", number> & { total: number };
  /** Sum of the sizes of the listed files present on disk. */
  totalBytes: number;
  /** Listed files not found (or not readable) under the root. */
  filesAbsent: number;
  files: InspectedFile[];
}

export async function inspectBundle(options: { root: string; bundleId: string }): Promise<BundleInspection> {
  const bundleId = assertBundleId(options.bundleId);
  const root = await ConfinedRoot.open(options.root);
  const { manifestPath, text } = await readManifestFile(root, bundleId);
  const manifest = parseManifest(text);
  const extracted = extractSignature(text, "tool");
  const signature: BundleInspection["signature"] = { status: extracted.status };
  if (extracted.status === "signed") {
    signature.fingerprint = extracted.signature.fingerprint;
    signature.timestamp = extracted.signature.timestamp;
  }

  const counts: BundleInspection["counts"] = { directive: 0, tool: 0, knowledge: 0, other: 0, total: 0 };
  const files: InspectedFile[] = [];
  let totalBytes = 0;
  let filesAbsent = 0;
  for (const [path, entry] of Object.entries(manifest.files)) {
    const type = itemTypeOfBundlePath(path);
    counts[type ?? "other"] += 1;
    counts.total += 1;
    const sized = await root.size(path);
    const size = sized.kind === "file" ? sized.size : null;
    if (size === null) filesAbsent += 1;
    else totalBytes += size;
    files.push({ path, sha256: entry.sha256, inline_signed: entry.inline_signed, type, size });
  }
  return { bundleId, manifestPath, bundle: manifest.bundle, signature, counts, totalBytes, filesAbsent, files };
}
