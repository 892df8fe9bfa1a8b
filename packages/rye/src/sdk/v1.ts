/**
 * `ryeos/sdk/v1`: the versioned programmatic entry of the rye client, for code that runs beside it —
 * the system tool `rye/registry/registry` today, the agent runtime later. It reaches the same functions
 * the `rye` CLI calls, with the caller's stored credentials and configuration.
 *
 * Stability: everything exported here is kept compatible for the life of `v1` (additions only). A
 * breaking change ships as `ryeos/sdk/v2` beside this entry. `docs/sdk.md` documents each export and
 * `sdk.test.ts` pins the list of names.
 */
import "@rye/core/node"; // node:crypto for Ed25519 and SHA-256, as in the CLI

/** The version of this entry's contract (semver; the major is the `v1` in the import path). */
export const SDK_VERSION = "1.0.0";

export { RyeError } from "@rye/core";
export type { ErrorCode, ItemType } from "@rye/core";

// Registry client: items
export { manageItem, pullItemToFile, pushItem, splitVersion } from "../registry/publish.ts";
export type { ManageAction, ManageOptions, PublishContext, PullOptions, PullResult, PushOptions, PushResult, Visibility } from "../registry/publish.ts";
// Registry client: bundles
export { pullBundle, pushBundle, splitBundleRef } from "../registry/bundle-transfer.ts";
export type { BundleTransferContext, PullBundleOptions, PullBundleResult, PushBundleOptions, PushBundleResult } from "../registry/bundle-transfer.ts";
// Registry client: search, routing, sessions
export { searchOneRegistry, searchRegistries } from "../registry/remote-search.ts";
export type { MergedRegistrySearch, RegistryHit, RegistrySearchQuery, RegistrySearchResult } from "../registry/remote-search.ts";
export { resolveRegistryFor } from "../registry/registries.ts";
export type { RegistryRoute } from "../registry/registries.ts";
export { normalizeRegistryUrl } from "../registry/registry-url.ts";
export { accessTokenFor } from "../registry/session.ts";
export { whoAmI } from "../registry/login.ts";
export type { WhoAmI } from "../registry/login.ts";
