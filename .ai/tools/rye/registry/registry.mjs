// rye:signed:2026-11-29T13:41:57Z:40f5777bd867762de340080dc7421c35ec79adf354be75474b4a5d687ea94b96:6L1gSLQ30S2JhaxL-0iI5-VuGCR955dYhH_sC4Prz1ffy7QBsnJ8bUfXwr9pvaVN3CJKxp5jX0h6hiWZLkbOBw==:334f126a02990a0c
export const __version__ = "1.1.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node";
export const __tier__ = "T2";
export const __category__ = "rye/registry";
export const __tool_description__ =
  "Registry operations with your stored rye credentials: search, pull, push, publish, unpublish, yank, unyank, deprecate, delete, whoami, bundle_push, bundle_pull, and pending / approve / reject for versions a registry holds for approval (everything pulled is verified with the pinned registry key before it is written)";
export const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    action: {
      type: "string",
      enum: ["search", "pull", "push", "publish", "unpublish", "yank", "unyank", "deprecate", "delete", "whoami", "bundle_push", "bundle_pull", "pending", "approve", "reject"],
      description: "What to do",
    },
    item_type: { type: "string", enum: ["directive", "tool", "knowledge", "skill"], description: "Item type (search filter; pull: optional; push by id and the management and approval actions: required; skill: management and approval actions only)" },
    item_id: { type: "string", minLength: 1, maxLength: 300, description: "Registry item id namespace/category/name (pull also takes id@version); push: a local item id of the project or user space" },
    item_path: { type: "string", minLength: 1, maxLength: 1000, description: "push: the item file, relative to the project" },
    bundle_id: { type: "string", minLength: 1, maxLength: 300, description: "bundle_push / bundle_pull: namespace/name (bundle_pull also takes id@version)" },
    version: { type: "string", minLength: 1, maxLength: 256, description: "An exact version (pull, yank, unyank, delete, bundle_pull); or append @version to item_id / bundle_id" },
    query: { type: "string", minLength: 1, maxLength: 256, description: "search: the query" },
    category: { type: "string", maxLength: 256, description: "search: a category prefix" },
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "search: the number of hits" },
    visibility: { type: "string", enum: ["public", "unlisted", "private"], description: "push / bundle_push: visibility of a new item or bundle" },
    namespace: { type: "string", minLength: 1, maxLength: 39, description: "push: publish under this namespace (an organization) instead of your username; pending: only this namespace's held versions" },
    rejected: { type: "boolean", default: false, description: "pending: list rejected versions instead" },
    changelog: { type: "string", maxLength: 5000, description: "push: what changed in this version" },
    reason: { type: "string", maxLength: 1000, description: "yank, approve: why; reject: why (required)" },
    message: { type: "string", minLength: 1, maxLength: 1000, description: "deprecate: what to use instead" },
    undo: { type: "boolean", description: "deprecate: lift the deprecation" },
    to: { type: "string", enum: ["project", "user"], default: "project", description: "pull / bundle_pull: where to write" },
    from: { type: "string", enum: ["project", "user"], default: "project", description: "bundle_push: the space holding the bundle" },
    force: { type: "boolean", default: false, description: "pull / bundle_pull: replace local files whose content differs; delete: bypass the deletion policy (registry administrators)" },
    allow_downgrade: { type: "boolean", default: false, description: "pull: an explicit version older than the one pinned in .ai/rye.lock" },
    yes: { type: "boolean", default: false, description: "push / bundle_push: register your public key with the registry if it is not registered yet" },
    registry: { type: "string", minLength: 1, maxLength: 2000, description: "Registry URL (default: the registry serving the namespace, or the default registry)" },
  },
  required: ["action"],
  additionalProperties: false,
  allOf: [
    { "if": { properties: { action: { "const": "search" } } }, "then": { required: ["query"] } },
    { "if": { properties: { action: { "const": "pull" } } }, "then": { required: ["item_id"] } },
    { "if": { properties: { action: { "const": "push" } } }, "then": { anyOf: [{ required: ["item_path"] }, { required: ["item_id", "item_type"] }] } },
    { "if": { properties: { action: { "enum": ["publish", "unpublish", "yank", "unyank", "deprecate", "delete"] } } }, "then": { required: ["item_type", "item_id"] } },
    { "if": { properties: { action: { "enum": ["yank", "unyank"] } } }, "then": { anyOf: [{ required: ["version"] }, { required: ["item_id"], properties: { item_id: { pattern: "@" } } }] } },
    { "if": { properties: { action: { "const": "deprecate" } } }, "then": { anyOf: [{ required: ["message"] }, { required: ["undo"], properties: { undo: { "const": true } } }] } },
    { "if": { properties: { action: { "enum": ["bundle_push", "bundle_pull"] } } }, "then": { required: ["bundle_id"] } },
    { "if": { properties: { action: { "enum": ["approve", "reject"] } } }, "then": { required: ["item_type", "item_id"], anyOf: [{ required: ["version"] }, { properties: { item_id: { pattern: "@" } } }] } },
    { "if": { properties: { action: { "const": "reject" } } }, "then": { required: ["reason"] } },
  ],
};

import { resolve } from "node:path";

/*
 * How this tool reaches rye's client code (the same functions the `rye` CLI calls; nothing is shelled out):
 * through the versioned SDK entry of the client package, `ryeos/sdk/v1` (docs/sdk.md), which the node runtime's
 * runner hands to every tool as `context.loadSdk(major)`.
 */
const SDK_MAJOR = "1";

let clientPromise;

function loadClient(context) {
  clientPromise ??= (async () => {
    if (!context?.loadSdk) throw new Error("rye/registry/registry must run through rye's node runtime (rye/core/runtimes/node), which provides the SDK");
    const sdk = await context.loadSdk(SDK_MAJOR);
    return {
      core: { RyeError: sdk.RyeError },
      publish: { splitVersion: sdk.splitVersion, pullItemToFile: sdk.pullItemToFile, pushItem: sdk.pushItem, manageItem: sdk.manageItem, listHeld: sdk.listHeld, decideHeld: sdk.decideHeld },
      bundles: { pushBundle: sdk.pushBundle, pullBundle: sdk.pullBundle, splitBundleRef: sdk.splitBundleRef },
      search: { searchOneRegistry: sdk.searchOneRegistry, searchRegistries: sdk.searchRegistries },
      session: { accessTokenFor: sdk.accessTokenFor },
      registries: { resolveRegistryFor: sdk.resolveRegistryFor },
      login: { whoAmI: sdk.whoAmI },
      registryUrl: { normalizeRegistryUrl: sdk.normalizeRegistryUrl },
    };
  })();
  return clientPromise;
}

const ITEM_TYPES = ["directive", "tool", "knowledge"];

/** `id@1.2.3` in item_id/bundle_id, or the version parameter (both only when they agree). */
function idAndVersion(client, ref, version) {
  const { id, version: inRef } = client.publish.splitVersion(ref);
  if (inRef && version && inRef !== version) throw new client.core.RyeError("BAD_REQUEST", `${ref} and version ${version} disagree`, { hint: "Pass the version once." });
  return { id, version: inRef ?? version };
}

async function run(client, params, context) {
  const { RyeError } = client.core;
  const env = { ...process.env };
  const projectPath = resolve(context?.projectPath ?? process.env.RYE_PROJECT_PATH ?? process.cwd());
  const notices = [];
  const registryUrl = params.registry ? client.registryUrl.normalizeRegistryUrl(params.registry) : undefined;
  const ctx = {
    projectPath,
    env,
    info: (text) => notices.push(text),
    // Registering the user's public key with a registry happens only when the caller says so.
    confirm: async () => params.yes === true,
    // Bundle transfers: bytes while moving, files while reading, verifying and writing (MCP progress when asked for).
    onProgress: (p) => {
      const bytes = p.phase === "download" || p.phase === "upload";
      context?.reportProgress?.({
        phase: p.phase,
        progress: bytes ? p.bytesDone : p.filesDone,
        ...((bytes ? p.bytesTotal : p.filesTotal) !== undefined ? { total: bytes ? p.bytesTotal : p.filesTotal } : {}),
        message: `${p.direction === "pull" ? "bundle_pull" : "bundle_push"} ${p.bundleId}: ${p.phase} ${bytes ? `${p.bytesDone}${p.bytesTotal !== undefined ? `/${p.bytesTotal}` : ""} bytes` : `${p.filesDone}${p.filesTotal !== undefined ? `/${p.filesTotal}` : ""} files`}`,
      });
    },
  };
  const withNotices = (result) => (notices.length > 0 ? { ...result, notices } : result);

  switch (params.action) {
    case "search": {
      const query = { query: params.query, itemTypes: params.item_type ? [params.item_type] : ITEM_TYPES, category: params.category, limit: params.limit ?? 20 };
      // One named registry, else the default one plus every registry configured with scopes (as `rye search`).
      const result = registryUrl
        ? await client.search.searchOneRegistry(registryUrl, query, env)
        : await client.search.searchRegistries(query, { projectPath, env });
      const searched = registryUrl ? [result] : result.searched;
      const warnings = registryUrl ? (result.warning ? [result.warning] : []) : result.warnings;
      if (result.hits.length === 0 && warnings.length === searched.length && warnings.length > 0) {
        throw new RyeError("UNAVAILABLE", warnings.join("; "), { hint: "Check the registry URL (registry parameter, RYE_REGISTRY_URL) and your network." });
      }
      return {
        status: "ok",
        registry: searched[0].registry,
        registries: searched.map((r) => ({ url: r.registry, total: r.total })),
        total: result.total,
        results: result.hits,
        ...(warnings.length ? { warnings } : {}),
      };
    }
    case "pull": {
      const { id, version } = idAndVersion(client, params.item_id, params.version);
      const result = await client.publish.pullItemToFile(
        { id, version, type: params.item_type, to: params.to ?? "project", registryUrl, force: params.force === true, allowDowngrade: params.allow_downgrade === true },
        ctx,
      );
      return withNotices(result);
    }
    case "push": {
      const result = await client.publish.pushItem(
        {
          ...(params.item_path ? { path: resolve(projectPath, params.item_path) } : { itemId: params.item_id }),
          ...(params.item_type ? { type: params.item_type } : {}),
          ...(params.visibility ? { visibility: params.visibility } : {}),
          ...(params.namespace ? { namespace: params.namespace } : {}),
          ...(params.changelog ? { changelog: params.changelog } : {}),
          ...(registryUrl ? { registryUrl } : {}),
        },
        ctx,
      );
      return withNotices(result);
    }
    case "publish":
    case "unpublish":
    case "yank":
    case "unyank":
    case "deprecate":
    case "delete": {
      const { id, version } = idAndVersion(client, params.item_id, params.version);
      if (version && ["publish", "unpublish", "deprecate"].includes(params.action)) {
        throw new RyeError("BAD_REQUEST", `${params.action} applies to the whole item, not a version`, { hint: "Leave out the version." });
      }
      const result = await client.publish.manageItem(
        {
          action: params.action,
          type: params.item_type,
          id,
          ...(version ? { version } : {}),
          ...(params.reason ? { reason: params.reason } : {}),
          ...(params.message ? { message: params.message } : {}),
          ...(params.undo ? { undo: true } : {}),
          ...(params.action === "delete" && params.force ? { force: true } : {}),
          ...(registryUrl ? { registryUrl } : {}),
        },
        ctx,
      );
      return { status: "ok", action: params.action, ...result };
    }
    case "pending": {
      if (!client.publish.listHeld) throw new RyeError("UNAVAILABLE", "This rye client has no approval support (ryeos/sdk/v1 ≥ 1.3.0 needed)");
      const result = await client.publish.listHeld({ ...(params.namespace ? { namespace: params.namespace } : {}), ...(params.rejected ? { rejected: true } : {}), ...(registryUrl ? { registryUrl } : {}) }, ctx);
      return { status: "ok", action: "pending", ...result };
    }
    case "approve":
    case "reject": {
      if (!client.publish.decideHeld) throw new RyeError("UNAVAILABLE", "This rye client has no approval support (ryeos/sdk/v1 ≥ 1.3.0 needed)");
      const { id, version } = idAndVersion(client, params.item_id, params.version);
      if (!version) throw new RyeError("BAD_REQUEST", `${params.action} needs a version`, { hint: "Pass version, or item_id as id@version." });
      const result = await client.publish.decideHeld(
        { decision: params.action, type: params.item_type, id, version, ...(params.reason ? { reason: params.reason } : {}), ...(registryUrl ? { registryUrl } : {}) },
        ctx,
      );
      return { status: "ok", action: params.action, ...result };
    }
    case "whoami": {
      const url = registryUrl ?? (await client.registries.resolveRegistryFor(undefined, { env, projectPath })).url;
      const token = await client.session.accessTokenFor(url, env);
      if (!token) throw new RyeError("UNAUTHORIZED", `Not signed in to ${url}`, { hint: `Run \`rye login --registry ${url}\` in a terminal (or set RYE_TOKEN for the MCP server).` });
      const me = await client.login.whoAmI(url, token);
      return { status: "ok", registry: url, username: me.username, scopes: me.scopes ?? null, source: env.RYE_TOKEN ? "env" : "credentials" };
    }
    case "bundle_push": {
      if (params.bundle_id.includes("@")) throw new RyeError("BAD_REQUEST", "bundle_push takes a bundle id without @version", { hint: "The version is the manifest's (rye bundle create --version)." });
      const result = await client.bundles.pushBundle(
        { bundleId: params.bundle_id, ...(params.from === "user" ? { fromUser: true } : {}), ...(params.visibility ? { visibility: params.visibility } : {}), ...(registryUrl ? { registryUrl } : {}) },
        ctx,
      );
      return withNotices(result);
    }
    case "bundle_pull": {
      const ref = client.bundles.splitBundleRef(params.bundle_id);
      if (ref.version && params.version && ref.version !== params.version) throw new RyeError("BAD_REQUEST", `${params.bundle_id} and version ${params.version} disagree`);
      const result = await client.bundles.pullBundle(
        { bundleId: ref.bundleId, version: ref.version ?? params.version, to: params.to ?? "project", force: params.force === true, ...(registryUrl ? { registryUrl } : {}) },
        ctx,
      );
      return withNotices(result);
    }
    default:
      throw new RyeError("INPUT_INVALID", `Unknown action ${JSON.stringify(params.action)}`, { hint: `Use one of: ${CONFIG_SCHEMA.properties.action.enum.join(", ")}.` });
  }
}

/** The runner reports `{ success: false, error: { message, type } }`: the rye error code becomes the type. */
function asToolError(err) {
  if (err && typeof err === "object" && err.name === "RyeError" && typeof err.code === "string") {
    const wrapped = new Error(`${err.code}: ${err.message}${err.hint ? ` (hint: ${err.hint})` : ""}`);
    wrapped.name = err.code;
    return wrapped;
  }
  return err;
}

export async function main(params, context) {
  if (!params || typeof params !== "object" || !CONFIG_SCHEMA.properties.action.enum.includes(params.action)) {
    const error = new Error(`INPUT_INVALID: action must be one of ${CONFIG_SCHEMA.properties.action.enum.join(", ")}`);
    error.name = "INPUT_INVALID";
    throw error;
  }
  const client = await loadClient(context);
  try {
    return await run(client, params, context);
  } catch (err) {
    throw asToolError(err);
  }
}
