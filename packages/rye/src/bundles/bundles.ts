/**
 * Bundles: a signed manifest (`.ai/bundles/<id>/manifest.yaml`) listing the sha256 of every file under
 * `.ai/{directives,tools,knowledge}/<id>/` (rye-format §5.2). The format itself lives in `@rye/core`;
 * this module adds the file system: collection, confined reading, listing.
 */
export { createBundle } from "./create.ts";
export type { CreateBundleOptions, CreatedBundle } from "./create.ts";
export { verifyBundleAt } from "./verify.ts";
export type { BundleVerifyReport, VerifyBundleOptions } from "./verify.ts";
export { inspectBundle } from "./inspect.ts";
export type { BundleInspection, InspectedFile } from "./inspect.ts";
export { listBundles } from "./list.ts";
export type { ListedBundle } from "./list.ts";
export { assertBundleId, manifestPathOf, manifestRelPath } from "./ids.ts";
export { DEFAULT_BUNDLE_LIMITS, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, MAX_MANIFEST_BYTES, SKIPPED_DIR_NAMES } from "./limits.ts";
export type { BundleLimits } from "./limits.ts";
