/** Finds the files of a bundle: everything below `.ai/{directives,tools,knowledge}/<bundle_id>/`. */
import { RyeError, validateBundlePath } from "@rye/core";
import type { ConfinedRoot } from "./confined.ts";
import { bundleSourceDirs } from "./ids.ts";
import type { BundleLimits } from "./limits.ts";
import { walkFiles } from "./walk.ts";

export interface FoundFile {
  /** Root-relative, `/`-separated (the manifest key). */
  path: string;
  size: number;
}

export interface BundleScan {
  files: FoundFile[];
  totalBytes: number;
  /** Entries left out, and why (symlinks leaving the root, loops, special files, too deep). */
  skipped: { path: string; reason: string }[];
  /** The root-relative folders that were searched. */
  searched: string[];
}

/** Throws PAYLOAD_TOO_LARGE past the limits and BUNDLE_INVALID for a file name no manifest can hold. */
export async function scanBundleFiles(root: ConfinedRoot, bundleId: string, limits: BundleLimits): Promise<BundleScan> {
  const scan: BundleScan = { files: [], totalBytes: 0, skipped: [], searched: [] };
  const visitor = {
    file(path: string, size: number): void {
      const problem = validateBundlePath(path);
      if (problem) {
        throw new RyeError("BUNDLE_INVALID", `${JSON.stringify(path)} cannot be listed in a bundle manifest: ${problem}`, {
          hint: "Rename the file (no backslashes, paths up to 512 characters).",
        });
      }
      if (scan.files.length >= limits.maxFiles) {
        throw new RyeError("PAYLOAD_TOO_LARGE", `Bundle ${bundleId} has more than ${limits.maxFiles} files`, { hint: "Split it into several bundles." });
      }
      scan.totalBytes += size;
      if (scan.totalBytes > limits.maxBytes) {
        throw new RyeError("PAYLOAD_TOO_LARGE", `Bundle ${bundleId} holds more than ${limits.maxBytes} bytes`, {
          hint: "Split it into several bundles or move large data out of .ai/.",
        });
      }
      scan.files.push({ path, size });
    },
    skip(path: string, reason: string): void {
      scan.skipped.push({ path, reason });
    },
  };
  for (const { relDir } of bundleSourceDirs(bundleId)) {
    scan.searched.push(`${relDir}/`);
    await walkFiles(root, relDir, visitor);
  }
  return scan;
}
