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
import { checkCapability, intersectCapabilities, searchFilter } from "@rye/core";

/** The version of this entry's contract (semver; the major is the `v1` in the import path). */
export const SDK_VERSION = "1.3.0";

export { RyeError } from "@rye/core";
export type { ErrorCode, ItemType } from "@rye/core";

// Registry client: items
export { decideHeld, listHeld, manageItem, pushItem, splitVersion } from "../registry/publish.ts";
export type { HeldVersion, ManageAction, ManageOptions, PublishContext, PushApproval, PushOptions, PushResult, Visibility } from "../registry/publish.ts";
// `rye pull`: the one verified pull path, written and pinned in .ai/rye.lock.
export { pullCommand as pullItemToFile } from "../registry/pull-command.ts";
export type { PullCommandOptions as PullOptions, PullCommandResult as PullResult } from "../registry/pull-command.ts";
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
// The agent runtime (docs/agent-runtime.md): the engine, verified reads, the verified module loader, threads.
export { importVerifiedModule, listVerifiedItems, openEngine, readConfigOverride, readVerifiedItem } from "./runtime.ts";
export type { VerifiedItem } from "./runtime.ts";
export { threads } from "./threads.ts";
export type { ParentContext } from "./threads.ts";
export { parse as parseYaml } from "yaml";
// The state_graph runtime (docs/state-graphs.md): runners/state-graph.mjs hands a graph tool to the walker.
export { graphs } from "../graphs/index.ts";
// MCP server management (docs/mcp-servers.md): what the system tool rye/mcp/manager reads (signing stays with the CLI).
import { discoverTools, listServers, planStubs, readServer, readStubs, tierOf } from "../mcp-servers/manage.ts";
export const mcpServers = { discoverTools, listServers, planStubs, readServer, readStubs, tierOf };
/** Capability checks of `@rye/core` (fail-closed; see docs/agent-runtime.md §3). */
export const capabilities = { checkCapability, searchFilter, intersectCapabilities };
