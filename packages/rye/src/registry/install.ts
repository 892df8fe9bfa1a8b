/**
 * Installing a registry item: pull and verify it (`pullItem`, the one verifier), check it against the
 * project lock, write it, then pin it in `<project>/.ai/rye.lock`. Every path that brings an item from
 * a registry onto disk goes through here: transparent lookups (load/search/execute, MCP), `rye pull`,
 * `rye update` and the registry system tool.
 *
 * Where the file goes:
 * - the user space (`$USER_SPACE/.ai/<type folder>/<id><ext>`, plus an immutable copy in the pull store)
 *   for transparent lookups, `rye pull --to user` and updates of such items;
 * - the project space (`<project>/.ai/<type folder>/<id><ext>`) for `rye pull` (the default) and updates
 *   of an item pulled there. An existing project file is replaced only when it is the pinned copy (an
 *   update) or with `force`.
 *
 * What the lock allows (nothing is written when it refuses):
 * - the same version must keep its bytes (INTEGRITY_MISMATCH), unless `rye update` re-pins it;
 * - never backwards (VERSION_MISMATCH): not below the pinned version, and for an unversioned pull not
 *   below the version already on disk; an explicit older version needs `allowDowngrade`.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { compareSemver, extractSignature, isSemver, ITEM_TYPES, parseItem, RyeError, sha256Hex, TYPE_FOLDERS } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { ItemFile, Space } from "../spaces/spaces.ts";
import { assertWritableInside, findItemFile } from "../spaces/spaces.ts";
import { userAiDir } from "../spaces/paths.ts";
import { writeCachedItem } from "./cache.ts";
import type { LockEntry } from "./project-lock.ts";
import { checkAgainstPin, getLockEntry, projectLockPath, upsertLockEntry } from "./project-lock.ts";
import type { VerifiedPull } from "./pull.ts";
import { pullItem } from "./pull.ts";
import { resolveRegistryFor } from "./registries.ts";

export type InstallTarget = "project" | "user";

export interface InstallRequest {
  type: ItemType;
  id: string;
  version?: string | undefined;
  /** `rye update`: the pin may move anywhere (the caller decided), including other bytes for its version. */
  update?: boolean;
  /** Where to write; default: where the item is installed now (a pinned project copy), else the user space. */
  to?: InstallTarget | undefined;
  /** Replace a project file with other content than the pinned copy. */
  force?: boolean | undefined;
  /** An explicit version older than the pin (or the copy on disk). */
  allowDowngrade?: boolean | undefined;
  /** Pull from this registry (default: the pin's registry, else routing). */
  registryUrl?: string | undefined;
}

export interface InstallResult {
  status: "pulled" | "unchanged";
  file: ItemFile;
  entry: LockEntry;
  pull: VerifiedPull;
  notice?: string;
  warnings: string[];
}

type InstallContext = Pick<EngineContext, "projectPath" | "env" | "spaces">;

function spaceFor(ctx: InstallContext, target: InstallTarget): Space {
  const root = target === "user" ? userAiDir(ctx.env) : join(ctx.projectPath, ".ai");
  return ctx.spaces.find((s) => s.root === root) ?? { name: target, root };
}

/** For a file carrying a rye-registry signature: its version (when it declares a valid one); else undefined. */
export async function registryProvenance(file: ItemFile): Promise<{ version: string | undefined } | undefined> {
  const content = await readFile(file.path, "utf8").catch(() => undefined);
  if (content === undefined) return undefined;
  const extracted = extractSignature(content, file.type);
  if (extracted.status !== "signed" || extracted.signature.provider !== "rye-registry") return undefined;
  const version = parseItem(content, file.type, { path: file.path }).summary.version;
  return { version: version && isSemver(version) ? version : undefined };
}

/** A pinned item lives in the project when the project holds a file with exactly the pinned bytes. */
async function pinnedProjectCopy(ctx: InstallContext, pin: LockEntry): Promise<ItemFile | undefined> {
  const found = await findItemFile(spaceFor(ctx, "project"), pin.type, pin.id).catch(() => null);
  if (!found) return undefined;
  const bytes = await readFile(found.path).catch(() => undefined);
  return bytes && sha256Hex(bytes) === pin.file_sha256 ? found : undefined;
}

/** Refuses what the lock and the copy on disk do not allow (see the module comment). */
async function checkHistory(ctx: InstallContext, request: InstallRequest, pulled: VerifiedPull, pin: LockEntry | undefined, existing: ItemFile | null): Promise<void> {
  if (request.update) return;
  const lockPath = projectLockPath(ctx.projectPath);
  if (pin) {
    if (request.allowDowngrade && request.version && compareSemver(pulled.version, pin.version) < 0) return;
    checkAgainstPin(pin, pulled, { lockPath });
    return;
  }
  if (request.version || !existing) return;
  const onDisk = (await registryProvenance(existing))?.version;
  if (onDisk && compareSemver(pulled.version, onDisk) < 0) {
    throw new RyeError("VERSION_MISMATCH", `The registry's latest ${pulled.type} ${pulled.id} is ${pulled.version}, older than the ${onDisk} already at ${existing.path}; nothing was written`, {
      hint: `A registry never moves an item backwards on its own (a stale or replayed answer?). To use ${pulled.version} on purpose: rye pull ${pulled.id}@${pulled.version} --force`,
      details: { id: pulled.id, on_disk: onDisk, served: pulled.version, path: existing.path },
    });
  }
}

/**
 * Refuses to replace a file the user may have written: one with other bytes than the pull that is
 * neither the pinned copy nor (in the user space, the cache shared by projects) a registry-signed file.
 */
async function assertReplaceable(target: InstallTarget, pulled: VerifiedPull, pin: LockEntry | undefined, existing: ItemFile | null, force: boolean): Promise<boolean> {
  if (!existing) return true;
  const current = await readFile(existing.path).catch(() => undefined);
  if (current === undefined) return true;
  const sha = sha256Hex(current);
  if (sha === pulled.file_sha256) return existing.extension !== pulled.file_extension;
  if (force || (pin && sha === pin.file_sha256)) return true;
  if (target === "user" && (await registryProvenance(existing))) return true;
  throw new RyeError("ITEM_EXISTS", `${existing.path} exists with other content than ${pulled.type} ${pulled.id}@${pulled.version}; nothing was written`, {
    hint: "Review your local changes, then pass --force to replace the file.",
    details: { path: existing.path },
  });
}

/** Writes a verified pull into the project space, removing an earlier copy with another extension. */
async function writeProjectCopy(space: Space, pulled: VerifiedPull, existing: ItemFile | null): Promise<string> {
  const path = join(space.root, TYPE_FOLDERS[pulled.type], `${pulled.id}${pulled.file_extension}`);
  await assertWritableInside(space.root, path);
  await writeFileAtomic(path, pulled.content);
  if (existing && existing.path !== path) await rm(existing.path, { force: true });
  return path;
}

/** What installing one verified pull will do, decided (every check of the module comment passed) before anything is written. */
export interface InstallPlan {
  pulled: VerifiedPull;
  target: InstallTarget;
  space: Space;
  existing: ItemFile | null;
  /** The file on disk changes (new bytes, or the same bytes under another extension). */
  changed: boolean;
  pin: LockEntry | undefined;
}

/** Checks a verified pull against the lock and the copy on disk; nothing is written. */
export async function planInstall(ctx: InstallContext, request: InstallRequest, pulled: VerifiedPull): Promise<InstallPlan> {
  const pin = await getLockEntry(ctx.projectPath, pulled.type, pulled.id);
  const target: InstallTarget = request.to ?? (pin && (await pinnedProjectCopy(ctx, pin)) ? "project" : "user");
  const space = spaceFor(ctx, target);
  const existing = await findItemFile(space, pulled.type, pulled.id).catch(() => null);
  await checkHistory(ctx, request, pulled, pin, existing);
  const changed = await assertReplaceable(target, pulled, pin, existing, Boolean(request.force));
  return { pulled, target, space, existing, changed, pin };
}

/** Writes a planned install's file and returns the lock entry that pins it (the caller writes the lock). */
export async function writePlannedFile(ctx: InstallContext, plan: InstallPlan): Promise<InstallResult> {
  const { pulled, target, space, existing, changed, pin } = plan;
  const path = target === "project" ? (changed ? await writeProjectCopy(space, pulled, existing) : existing!.path) : await writeCachedItem(pulled, { env: ctx.env });
  const entry: LockEntry = {
    id: pulled.id,
    type: pulled.type,
    version: pulled.version,
    content_hash: pulled.content_hash,
    file_sha256: pulled.file_sha256,
    registry: pulled.registry,
    key_fingerprint: pulled.key_fingerprint,
    attestation_digest: pulled.attestation_digest,
    file_extension: pulled.file_extension,
    pinned_at: pin && pin.file_sha256 === pulled.file_sha256 && pin.pinned_at ? pin.pinned_at : new Date().toISOString(),
    // The proof kept for these bytes stays (a later, larger checkpoint proves nothing more; the lock stays still),
    // unless it lacks the mirror's countersignature a mirror's copy needs rechecked (a lock written before it was kept).
    log: pin && pin.file_sha256 === pulled.file_sha256 && pin.log && (pin.log.mirror_of !== undefined || pulled.log_inclusion.mirror_of === undefined) ? pin.log : pulled.log_inclusion,
  };
  return {
    status: changed || pin?.file_sha256 !== pulled.file_sha256 ? "pulled" : "unchanged",
    file: { space, type: pulled.type, itemId: pulled.id, path, extension: pulled.file_extension },
    entry,
    pull: pulled,
    ...(pulled.notice ? { notice: pulled.notice } : {}),
    warnings: pulled.warnings,
  };
}

/** Writes a verified pull and pins it (the checks of the module comment first). */
export async function installVerifiedPull(ctx: InstallContext, request: InstallRequest, pulled: VerifiedPull): Promise<InstallResult> {
  const result = await writePlannedFile(ctx, await planInstall(ctx, request, pulled));
  await upsertLockEntry(ctx.projectPath, result.entry);
  return result;
}

const inflight = new Map<string, Promise<InstallResult>>();

/**
 * Pulls, verifies, writes and pins one registry item. Concurrent calls for the same project, registry,
 * item, version and options share one pull.
 */
export async function installRegistryItem(ctx: InstallContext, request: InstallRequest): Promise<InstallResult> {
  const pin = await getLockEntry(ctx.projectPath, request.type, request.id);
  const keepPin = pin && !request.update && !request.registryUrl;
  const registry = request.registryUrl ?? (keepPin ? pin.registry : (await resolveRegistryFor(request.id, { env: ctx.env, projectPath: ctx.projectPath })).url);
  // A transparent lookup of a pinned item fetches exactly the pinned version.
  const version = request.version ?? (keepPin && request.to === undefined ? pin.version : undefined);
  const key = JSON.stringify([ctx.projectPath, registry, request.type, request.id, version ?? null, request.update ?? false, request.to ?? null, request.force ?? false, request.allowDowngrade ?? false]);
  let flight = inflight.get(key);
  if (!flight) {
    flight = pullItem({ type: request.type, id: request.id, version }, { env: ctx.env, projectPath: ctx.projectPath, registryUrl: registry }).then((pulled) =>
      installVerifiedPull(ctx, request, pulled),
    );
    inflight.set(key, flight);
    void flight.then(
      () => inflight.delete(key),
      () => inflight.delete(key),
    );
  }
  return flight;
}

/** `rye pull` without --type: the one type the registry has the id as (each type is asked in turn). */
export async function pullAnyType(request: { id: string; version?: string | undefined }, options: { projectPath: string; env: NodeJS.ProcessEnv; registryUrl?: string | undefined }): Promise<VerifiedPull> {
  const found: VerifiedPull[] = [];
  for (const type of ITEM_TYPES) {
    try {
      found.push(await pullItem({ type, id: request.id, version: request.version }, options));
    } catch (err) {
      if (err instanceof RyeError && err.code === "ITEM_NOT_FOUND") continue;
      throw err;
    }
  }
  const label = `${request.id}${request.version ? `@${request.version}` : ""}`;
  if (found.length === 0) throw new RyeError("ITEM_NOT_FOUND", `${label} not found${options.registryUrl ? ` at ${options.registryUrl}` : ""}`, { hint: "Check the id, or search with `rye search`." });
  if (found.length > 1) throw new RyeError("BAD_REQUEST", `${request.id} exists as ${found.map((f) => f.type).join(" and ")}`, { hint: "Pass --type." });
  return found[0]!;
}
