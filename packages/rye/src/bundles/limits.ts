/** Size limits and collection rules of bundles. */
import { MAX_BUNDLE_FILES } from "@rye/core";

export { MAX_BUNDLE_FILES };

/** Total bytes of the files a bundle may list (and the largest single file verification will read). */
export const MAX_BUNDLE_BYTES = 50 * 1024 * 1024;

/** A manifest of MAX_BUNDLE_FILES entries with 512-character paths stays well below this. */
export const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** How deep collection and listing descend below the folder they start in. */
export const MAX_WALK_DEPTH = 32;

/** Directory names never collected into a bundle (the original's `rye/core/bundler/collect.yaml`). */
export const SKIPPED_DIR_NAMES: ReadonlySet<string> = new Set([
  "__pycache__",
  ".venv",
  "node_modules",
  ".git",
  "dist",
  "build",
  ".ruff_cache",
  ".pytest_cache",
  ".mypy_cache",
]);

export interface BundleLimits {
  maxFiles: number;
  maxBytes: number;
}

export const DEFAULT_BUNDLE_LIMITS: Readonly<BundleLimits> = { maxFiles: MAX_BUNDLE_FILES, maxBytes: MAX_BUNDLE_BYTES };
