/**
 * `rye pull --with-deps <item>`: the item and everything it uses, transitively — a directive's tools,
 * knowledge and child directives, each tool's executor chain (tool → runtime → primitive) — pulled, verified and
 * pinned in one step, all or nothing.
 *
 * - What an item uses is read from its own verified bytes (@rye/core itemReferences), never from registry
 *   metadata: a registry cannot add a dependency the signed file does not name.
 * - Every item goes through the one verifier (`pullItem`) and the install checks (`planInstall`: the lock, local
 *   copies); the files are written only once every item of the closure is pulled, verified and accepted, and the
 *   lock is written once, last. A failure while writing restores the project files written so far.
 * - References that the system space ships (rye's own runtimes and primitives) are not pulled. Any other reference
 *   must be a registry id that its registry serves (DEPENDENCY_NOT_FOUND otherwise, naming who uses it).
 * - Limits: MAX_CLOSURE_ITEMS items and MAX_CLOSURE_DEPTH levels below the item (CLOSURE_TOO_LARGE). Directives
 *   may use each other in a cycle (each is pinned once); an executor chain that loops can never run (CHAIN_CYCLE).
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ItemReference, ItemType } from "@rye/core";
import { itemReferences, parseItem, RyeError, TYPE_FOLDERS, validateNamespace } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { Space } from "../spaces/spaces.ts";
import { resolveItem, resolveSpaces } from "../spaces/spaces.ts";
import type { InstallPlan, InstallResult, InstallTarget } from "./install.ts";
import { planInstall, pullAnyType, writePlannedFile } from "./install.ts";
import { projectLockPath, upsertLockEntries } from "./project-lock.ts";
import type { PullOptions, VerifiedPull } from "./pull.ts";
import { pullItem } from "./pull.ts";

/** At most this many items in one closure, the item itself included. */
export const MAX_CLOSURE_ITEMS = 100;
/** At most this many levels of use below the item (the item is level 0). */
export const MAX_CLOSURE_DEPTH = 12;
/** Pulls in flight at once. */
const PARALLEL_PULLS = 4;

export interface ClosureRequest {
  id: string;
  version?: string | undefined;
  type?: ItemType | undefined;
  to: InstallTarget;
  force?: boolean | undefined;
  allowDowngrade?: boolean | undefined;
}

export interface ClosureContext {
  projectPath: string;
  env: NodeJS.ProcessEnv;
  /** Every pull goes to this registry; default: each item's namespace routing. */
  registryUrl?: string | undefined;
  fetchKeys?: PullOptions["fetchKeys"];
}

export interface ClosureItem {
  status: "pulled" | "unchanged";
  item_type: ItemType;
  item_id: string;
  version: string;
  path: string;
  registry: string;
  /** The items (type id) that use it; empty for the item pulled. */
  used_by: string[];
  depth: number;
  yanked: boolean;
  deprecated: boolean;
  deprecation_message: string | null;
}

export interface ClosureResult {
  items: ClosureItem[];
  /** References the system space provides (not pulled). */
  provided_by_system: string[];
  lock: string;
  registry_fingerprint: string;
  /** Yanked or deprecated items of the closure, first-use notices of registry keys. */
  warnings: string[];
  notices: string[];
}

interface Node {
  type: ItemType;
  id: string;
  version: string | undefined;
  depth: number;
  usedBy: string[];
  pulled?: VerifiedPull;
  refs?: ItemReference[];
}

const keyOf = (type: ItemType, id: string) => `${type} ${id}`;

function looksLikeRegistryId(id: string): boolean {
  const segments = id.split("/");
  return segments.length >= 3 && validateNamespace(segments[0]!) === null;
}

function referencesOf(pulled: VerifiedPull): ItemReference[] {
  const parsed = parseItem(pulled.content, pulled.type, { path: `${pulled.id.split("/").at(-1)}${pulled.file_extension}` });
  return itemReferences(parsed);
}

async function pullNode(node: Node, ctx: ClosureContext, request: ClosureRequest | null): Promise<VerifiedPull> {
  const options = { projectPath: ctx.projectPath, env: ctx.env, registryUrl: ctx.registryUrl, ...(ctx.fetchKeys ? { fetchKeys: ctx.fetchKeys } : {}) };
  if (request && !request.type) return pullAnyType({ id: node.id, version: node.version }, options);
  try {
    return await pullItem({ type: node.type, id: node.id, version: node.version }, options);
  } catch (err) {
    if (request || !(err instanceof RyeError) || err.code !== "ITEM_NOT_FOUND") throw err;
    throw missing(node, err.message);
  }
}

function missing(node: Node, why: string): RyeError {
  return new RyeError("DEPENDENCY_NOT_FOUND", `${keyOf(node.type, node.id)}${node.version ? `@${node.version}` : ""}, used by ${node.usedBy.join(", ")}, cannot be pulled: ${why}; nothing was written`, {
    details: { item_type: node.type, item_id: node.id, version: node.version ?? null, used_by: node.usedBy },
  });
}

function tooLarge(message: string, details: Record<string, unknown>): RyeError {
  return new RyeError("CLOSURE_TOO_LARGE", `${message}; nothing was written`, { details });
}

/** Pulls and verifies every item of the closure (nothing is written). */
async function collect(request: ClosureRequest, ctx: ClosureContext, system: Space[]): Promise<{ nodes: Node[]; provided: string[] }> {
  const root: Node = { type: request.type ?? "directive", id: request.id, version: request.version, depth: 0, usedBy: [] };
  const nodes = new Map<string, Node>();
  const provided = new Set<string>();
  let level: Node[] = [root];
  while (level.length > 0) {
    for (let i = 0; i < level.length; i += PARALLEL_PULLS) {
      await Promise.all(
        level.slice(i, i + PARALLEL_PULLS).map(async (node) => {
          node.pulled = await pullNode(node, ctx, node === root ? request : null);
          node.type = node.pulled.type;
          node.refs = referencesOf(node.pulled);
        }),
      );
    }
    for (const node of level) nodes.set(keyOf(node.type, node.id), node);
    const next: Node[] = [];
    for (const node of level) {
      const user = keyOf(node.type, node.id);
      for (const ref of node.refs ?? []) {
        const key = keyOf(ref.type, ref.id);
        const seen = nodes.get(key) ?? next.find((n) => keyOf(n.type, n.id) === key);
        if (seen) {
          if (!seen.usedBy.includes(user) && seen !== root) seen.usedBy.push(user);
          if (!seen.pulled && seen.version === undefined) seen.version = ref.version;
          const has = seen.version ?? seen.pulled?.version;
          if (ref.version && has && ref.version !== has) {
            throw new RyeError("VERSION_MISMATCH", `${user} uses ${key}@${ref.version}, but the closure already has ${key}@${has} (used by ${seen.usedBy.filter((u) => u !== user).join(", ") || "the item pulled"}); nothing was written`, {
              hint: "A project pins one version of each item: align the versions the directives ask for.",
            });
          }
          continue;
        }
        if (provided.has(key)) continue;
        if (await resolveItem(system, ref.type, ref.id).catch(() => null)) {
          provided.add(key);
          continue;
        }
        const child: Node = { type: ref.type, id: ref.id, version: ref.version, depth: node.depth + 1, usedBy: [user] };
        if (!looksLikeRegistryId(ref.id)) throw missing(child, "it is neither a registry id (namespace/category/name) nor in the system space");
        if (child.depth > MAX_CLOSURE_DEPTH) throw tooLarge(`${key} is ${child.depth} levels below ${keyOf(root.type, root.id)}; --with-deps follows at most ${MAX_CLOSURE_DEPTH}`, { limit: MAX_CLOSURE_DEPTH, item: key });
        next.push(child);
      }
    }
    if (nodes.size + next.length > MAX_CLOSURE_ITEMS) {
      throw tooLarge(`${keyOf(root.type, root.id)} uses more than ${MAX_CLOSURE_ITEMS - 1} items (counting them all, transitively); --with-deps pulls at most ${MAX_CLOSURE_ITEMS}`, { limit: MAX_CLOSURE_ITEMS, found_at_least: nodes.size + next.length });
    }
    level = next;
  }
  assertNoExecutorCycle(nodes);
  return { nodes: [...nodes.values()], provided: [...provided].sort() };
}

/** A tool's executor chain that comes back to itself can never run. */
function assertNoExecutorCycle(nodes: Map<string, Node>): void {
  for (const start of nodes.values()) {
    if (start.type !== "tool") continue;
    const chain = [start.id];
    let current: Node | undefined = start;
    for (;;) {
      const executor: ItemReference | undefined = current.refs?.find((r) => r.kind === "executor");
      if (!executor) break;
      if (chain.includes(executor.id)) {
        throw new RyeError("CHAIN_CYCLE", `The executor chain ${[...chain, executor.id].join(" → ")} loops; nothing was written`);
      }
      chain.push(executor.id);
      current = nodes.get(keyOf("tool", executor.id));
      if (!current) break;
    }
  }
}

/** The project files an install plan may replace or remove, with their bytes now (null: absent). */
async function snapshot(plan: InstallPlan): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  if (plan.target !== "project" || !plan.changed) return out;
  const written = join(plan.space.root, TYPE_FOLDERS[plan.pulled.type], `${plan.pulled.id}${plan.pulled.file_extension}`);
  for (const path of new Set([written, ...(plan.existing ? [plan.existing.path] : [])])) {
    try {
      out.set(path, await readFile(path));
    } catch (err) {
      // Only an absent file is taken back by removing it; anything else there (a directory) is never touched.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") out.set(path, null);
    }
  }
  return out;
}

/** Puts every snapshotted path back, each on its own: one that cannot be restored does not stop the others. */
async function restore(saved: Map<string, Buffer | null>): Promise<void> {
  for (const [path, bytes] of saved) {
    await (bytes === null ? rm(path, { force: true }) : writeFileAtomic(path, bytes)).catch(() => undefined);
  }
}

export async function pullClosure(request: ClosureRequest, ctx: ClosureContext): Promise<ClosureResult> {
  const spaces = await resolveSpaces({ projectPath: ctx.projectPath, env: ctx.env });
  const { nodes, provided } = await collect(request, ctx, spaces.filter((s) => s.name === "system"));
  const install = { projectPath: ctx.projectPath, env: ctx.env, spaces };
  const plans: { node: Node; plan: InstallPlan }[] = [];
  for (const node of nodes) {
    const isRoot = node.depth === 0;
    plans.push({
      node,
      plan: await planInstall(install, { type: node.type, id: node.id, version: node.version, to: request.to, force: request.force, allowDowngrade: isRoot ? request.allowDowngrade : undefined, registryUrl: ctx.registryUrl }, node.pulled!),
    });
  }
  const saved = new Map<string, Buffer | null>();
  const results: InstallResult[] = [];
  try {
    for (const { plan } of plans) {
      for (const [path, bytes] of await snapshot(plan)) if (!saved.has(path)) saved.set(path, bytes);
      results.push(await writePlannedFile(install, plan));
    }
    await upsertLockEntries(ctx.projectPath, results.map((r) => r.entry));
  } catch (err) {
    await restore(saved);
    if (err instanceof RyeError) throw err;
    throw new RyeError("INTERNAL", `Writing the pulled items failed (${err instanceof Error ? err.message : String(err)}); the files written before it were taken back and the lock is unchanged`, {
      hint: "Check that .ai/ is writable and holds no folder where an item file goes, then pull again.",
    });
  }
  const items = results.map((r, i): ClosureItem => {
    const node = plans[i]!.node;
    return {
      status: r.status,
      item_type: r.pull.type,
      item_id: r.pull.id,
      version: r.pull.version,
      path: r.file.path,
      registry: r.pull.registry,
      used_by: node.usedBy,
      depth: node.depth,
      yanked: r.pull.yanked,
      deprecated: r.pull.deprecated,
      deprecation_message: r.pull.deprecation_message,
    };
  });
  const warnings = items.flatMap((item) => {
    const who = item.used_by.length ? ` (used by ${item.used_by.join(", ")})` : "";
    return [
      ...(item.yanked ? [`${item.item_type} ${item.item_id}@${item.version} is yanked${who}`] : []),
      ...(item.deprecated ? [`${item.item_type} ${item.item_id} is deprecated${item.deprecation_message ? `: ${item.deprecation_message}` : ""}${who}`] : []),
    ];
  });
  const notices = [...new Set(results.flatMap((r) => [...(r.notice ? [r.notice] : []), ...r.warnings]))];
  return { items, provided_by_system: provided, lock: projectLockPath(ctx.projectPath), registry_fingerprint: results[0]!.pull.key_fingerprint, warnings, notices };
}
