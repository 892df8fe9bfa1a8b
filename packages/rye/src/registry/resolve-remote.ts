/**
 * Transparent pull-verify-pin: when the engine looks up an item that is not found locally and whose
 * id looks like a registry id (`namespace/category…/name`, or an explicit `registry:` prefix /
 * `@version` suffix), the item is pulled from the registry serving its namespace, verified, cached
 * in the user space and pinned in the project lock — then the lookup continues with the cached file.
 *
 * A cached file that the project lock pins is checked against the pin on every lookup (offline):
 * a changed file is INTEGRITY_MISMATCH, naming the file and the fix.
 */
import { readFile } from "node:fs/promises";
import type { ItemType } from "@rye/core";
import { isSemver, RyeError, sha256Hex, validateNamespace } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import type { ItemFile, SpaceName } from "../spaces/spaces.ts";
import { resolveItem, SPACE_NAMES } from "../spaces/spaces.ts";
import { userAiDir } from "../spaces/paths.ts";
import { noteSwallowedRegistryFailure } from "./budget.ts";
import type { InstallRequest } from "./install.ts";
import type { LockEntry } from "./project-lock.ts";
import { getLockEntry, projectLockPath } from "./project-lock.ts";
import { CallStorage } from "../engine/call-storage.ts";

// The pull path (install.ts, cache.ts: the registry client, key pinning, the API contracts' schemas) loads when an
// item is pulled or a cached one checked, not with every executor chain: a thread process resolves only local items
// before its first model request, and evaluating that path was ~50–130 ms of its start (profiled).
const installModule = () => import("./install.ts");
const cacheModule = () => import("./cache.ts");

export const REGISTRY_PREFIX = "registry:";

export interface RemoteRef {
  /** The plain item id (no prefix, no version). */
  id: string;
  version?: string;
  /** A `registry:` prefix or an `@version` suffix: the caller means the registry item. */
  explicit: boolean;
}

/** `registry:acme/tools/x@1.2.0` → `{ id: "acme/tools/x", version: "1.2.0", explicit: true }`. */
export function parseRemoteRef(raw: string): RemoteRef {
  let id = raw;
  let explicit = false;
  if (id.startsWith(REGISTRY_PREFIX)) {
    id = id.slice(REGISTRY_PREFIX.length);
    explicit = true;
  }
  const at = id.lastIndexOf("@");
  if (at > id.lastIndexOf("/") && at > 0) {
    const version = id.slice(at + 1);
    if (!isSemver(version)) throw new RyeError("INVALID_ITEM_ID", `Invalid version ${JSON.stringify(version)} in ${JSON.stringify(raw)}`, { hint: "Use id@MAJOR.MINOR.PATCH, e.g. acme/tools/greet@1.0.0." });
    return { id: id.slice(0, at), version, explicit: true };
  }
  return { id, explicit };
}

/** At least three segments and a valid namespace: something a registry could serve. */
export function looksLikeRegistryId(id: string): boolean {
  const segments = id.split("/");
  return segments.length >= 3 && segments.every((s) => s.length > 0) && validateNamespace(segments[0]!) === null;
}

// Notices (first-use key pins, rotations) raised while an engine call runs, for its result.
const noticeSink = new CallStorage<string[]>();

/** Runs `body` collecting the registry notices raised inside it. */
export async function collectRegistryNotices<T>(body: () => Promise<T>): Promise<{ result: T; notices: string[] }> {
  const notices: string[] = [];
  const result = await noticeSink.run(notices, body);
  return { result, notices };
}

function emitNotice(notice: string | undefined): void {
  if (!notice) return;
  const sink = noticeSink.getStore();
  if (sink && !sink.includes(notice)) sink.push(notice);
}

/**
 * The cached file when it is the pinned one. When another project replaced it with another verified
 * pull (its bytes are in the pull store), this project's pinned copy from the store; any other change
 * is tampering (INTEGRITY_MISMATCH).
 */
async function pinnedCopy(ctx: Pick<EngineContext, "projectPath" | "env">, local: ItemFile, pin: LockEntry): Promise<ItemFile> {
  const actual = sha256Hex(await readFile(local.path));
  if (actual === pin.file_sha256) return local;
  const extension = pin.file_extension ?? local.extension;
  const { readStoredPull } = await cacheModule();
  const stored = await readStoredPull(pin.file_sha256, pin.id, extension, ctx.env);
  if (stored && (await readStoredPull(actual, pin.id, local.extension, ctx.env))) return { ...local, path: stored, extension };
  throw new RyeError("INTEGRITY_MISMATCH", `${local.path} no longer matches the version pinned in ${projectLockPath(ctx.projectPath)} (${pin.type} ${pin.id}@${pin.version}: expected sha256 ${pin.file_sha256.slice(0, 16)}…, found ${actual.slice(0, 16)}…)`, {
    hint: `The cached registry file was modified. Restore it with \`rye pull ${pin.id}\` (delete the file first), or move to another version with \`rye update ${pin.id}\`.`,
    details: { path: local.path, item_id: pin.id, version: pin.version, expected_sha256: pin.file_sha256, actual_sha256: actual },
  });
}

/** Installs (see install.ts) and reports the key notice to the running engine call. */
async function install(ctx: EngineContext, request: InstallRequest): Promise<ItemFile> {
  const result = await (await installModule()).installRegistryItem(ctx, request);
  emitNotice(result.notice);
  return result.file;
}

/** Registry failures that mean "not there" for an implicit lookup (the caller reports ITEM_NOT_FOUND). */
const SOFT_FAILURES = new Set(["ITEM_NOT_FOUND", "NOT_FOUND", "UNAVAILABLE", "TIMEOUT", "UNAUTHORIZED", "FORBIDDEN", "INVALID_ITEM_ID", "BAD_REQUEST", "RATE_LIMITED"]);

export interface LocateOptions {
  /** Only this space (load's `source`). */
  only?: SpaceName | undefined;
  /** Only these spaces (executor chains). */
  spaces?: SpaceName[];
}

/**
 * Local lookup with registry fallback. Returns the item file (local, or freshly pulled into the
 * user space), or null when it is neither local nor available from a registry.
 */
export async function locateItem(ctx: EngineContext, type: ItemType, rawId: string, options: LocateOptions = {}): Promise<ItemFile | null> {
  const ref = parseRemoteRef(rawId);
  const allowed: readonly SpaceName[] = options.spaces ?? (options.only ? [options.only] : SPACE_NAMES);
  const candidates = ctx.spaces.filter((s) => allowed.includes(s.name));
  const local = await resolveItem(candidates, type, ref.id);
  const registryShaped = allowed.includes("user") && looksLikeRegistryId(ref.id);
  if (!registryShaped) return local;
  const pin = await getLockEntry(ctx.projectPath, type, ref.id);
  const isCached = local?.space.root === userAiDir(ctx.env);
  // Pins hold offline too (they need no network): the pinned bytes, or INTEGRITY_MISMATCH.
  if (local && pin && isCached && (!ref.version || ref.version === pin.version)) return pinnedCopy(ctx, local, pin);
  if (ctx.env.RYE_OFFLINE === "1") return local;
  // A pinned cached file with another version asked for explicitly: pull it (a rollback is refused by the pin check).
  if (local && !(pin && isCached)) {
    const provenance = !pin && isCached ? await (await installModule()).registryProvenance(local) : undefined;
    if (provenance) {
      // Pulled for another project: pin it here too (that version, or the one asked for, verified
      // again); offline, the file stays unattributed and its registry signature is not trusted here.
      try {
        return await install(ctx, { type, id: ref.id, version: ref.version ?? provenance.version });
      } catch (err) {
        if (!ref.version && err instanceof RyeError && SOFT_FAILURES.has(err.code)) {
          noteSwallowedRegistryFailure(err);
          return local;
        }
        throw err;
      }
    }
    if (!ref.version || !isCached) return local; // a local item (the project's, or the user's own) wins
    throw new RyeError("CONFLICT", `${type} ${ref.id} exists in your user space (${local.path}) but is not a pinned registry item; not replacing it with ${ref.id}@${ref.version}`, {
      hint: "Move or delete the local file to use the registry version.",
    });
  }
  try {
    return await install(ctx, { type, id: ref.id, version: ref.version });
  } catch (err) {
    // A missing, unreachable or private item is "not found" for an implicit lookup of an unpinned id;
    // verification failures always surface.
    if (!ref.explicit && !pin && err instanceof RyeError && SOFT_FAILURES.has(err.code)) {
      noteSwallowedRegistryFailure(err);
      return null;
    }
    throw err;
  }
}

/**
 * Registry items declare the category without their namespace (`alice/tools/greet` has category
 * `tools`), while the folder path of a pulled file (project or user space) includes it (`alice/tools`).
 * For a registry-shaped id outside the system space, that one difference is not an issue.
 */
export function relaxRegistryCategory<T extends { field: string; message: string }>(file: Pick<ItemFile, "itemId" | "space">, category: unknown, issues: T[]): T[] {
  if (file.space.name === "system" || !looksLikeRegistryId(file.itemId) || typeof category !== "string") return issues;
  const segments = file.itemId.split("/");
  if (category !== segments.slice(1, -1).join("/")) return issues;
  return issues.filter((i) => i.field !== "category");
}
