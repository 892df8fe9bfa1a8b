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

// The registry client loads on first call (each function below is async): a thread process imports this entry and
// never talks to a registry (the entry imported 2.1 MB of bundle with them, 1.2 MB without).
type Publish = typeof import("../registry/publish.ts");
type BundleTransfer = typeof import("../registry/bundle-transfer.ts");
type RemoteSearch = typeof import("../registry/remote-search.ts");
/** `module[name]`, imported when first called. */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return (async (...args: unknown[]) => ((await load())[name] as (...a: unknown[]) => unknown)(...args)) as M[K];
}
const publish = () => import("../registry/publish.ts");
const bundleTransfer = () => import("../registry/bundle-transfer.ts");
const remoteSearch = () => import("../registry/remote-search.ts");

// Registry client: items
export const decideHeld = lazy<Publish, "decideHeld">(publish, "decideHeld");
export const listHeld = lazy<Publish, "listHeld">(publish, "listHeld");
export const manageItem = lazy<Publish, "manageItem">(publish, "manageItem");
export const pushItem = lazy<Publish, "pushItem">(publish, "pushItem");
export { splitVersion, splitBundleRef } from "../registry/refs.ts";
export type { HeldVersion, ManageAction, ManageOptions, PublishContext, PushApproval, PushOptions, PushResult, Visibility } from "../registry/publish.ts";
// `rye pull`: the one verified pull path, written and pinned in .ai/rye.lock.
export const pullItemToFile = lazy<typeof import("../registry/pull-command.ts"), "pullCommand">(() => import("../registry/pull-command.ts"), "pullCommand");
export type { PullCommandOptions as PullOptions, PullCommandResult as PullResult } from "../registry/pull-command.ts";
// Registry client: bundles
export const pullBundle = lazy<BundleTransfer, "pullBundle">(bundleTransfer, "pullBundle");
export const pushBundle = lazy<BundleTransfer, "pushBundle">(bundleTransfer, "pushBundle");
export type { BundleTransferContext, PullBundleOptions, PullBundleResult, PushBundleOptions, PushBundleResult } from "../registry/bundle-transfer.ts";
// Registry client: search, routing, sessions
export const searchOneRegistry = lazy<RemoteSearch, "searchOneRegistry">(remoteSearch, "searchOneRegistry");
export const searchRegistries = lazy<RemoteSearch, "searchRegistries">(remoteSearch, "searchRegistries");
export type { MergedRegistrySearch, RegistryHit, RegistrySearchQuery, RegistrySearchResult } from "../registry/remote-search.ts";
export const resolveRegistryFor = lazy<typeof import("../registry/registries.ts"), "resolveRegistryFor">(() => import("../registry/registries.ts"), "resolveRegistryFor");
export type { RegistryRoute } from "../registry/registries.ts";
export { normalizeRegistryUrl } from "../registry/registry-url.ts";
export const accessTokenFor = lazy<typeof import("../registry/session.ts"), "accessTokenFor">(() => import("../registry/session.ts"), "accessTokenFor");
export const whoAmI = lazy<typeof import("../registry/login.ts"), "whoAmI">(() => import("../registry/login.ts"), "whoAmI");
export type { WhoAmI } from "../registry/login.ts";
// The agent runtime (docs/agent-runtime.md): the engine, verified reads, the verified module loader, threads.
export { importVerifiedModule, listVerifiedItems, openEngine, readConfigOverride, readVerifiedItem } from "./runtime.ts";
export type { VerifiedItem } from "./runtime.ts";
export { threads } from "./threads.ts";
export type { ParentContext } from "./threads.ts";
export { parseYaml } from "./parsed-yaml.ts";
// The state_graph runtime (docs/state-graphs.md): runners/state-graph.mjs hands a graph tool to the walker, which
// loads on that first call (a thread process never walks a graph; the walker and its orchestration are ~70 kB).
type Graphs = (typeof import("../graphs/index.ts"))["graphs"];
export const graphs: Graphs = {
  runGraphTool: lazy<Graphs, "runGraphTool">(async () => (await import("../graphs/index.ts")).graphs, "runGraphTool"),
};
// MCP server management (docs/mcp-servers.md): what the system tool rye/mcp/manager reads (signing stays with the CLI).
import { discoverTools, listServers, planStubs, readServer, readStubs, tierOf } from "../mcp-servers/manage.ts";
export const mcpServers = { discoverTools, listServers, planStubs, readServer, readStubs, tierOf };
/** Capability checks of `@rye/core` (fail-closed; see docs/agent-runtime.md §3). */
export const capabilities = { checkCapability, searchFilter, intersectCapabilities };
