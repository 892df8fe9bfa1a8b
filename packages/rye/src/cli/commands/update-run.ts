/**
 * `rye update [id[@version]…]`: moves the pins of the project lock (`<project>/.ai/rye.lock`) forward on
 * purpose. Every item is pulled through the same verify-cache-pin path as an on-demand load
 * (`installRegistryItem` with `update: true`); an item that cannot be updated (gone upstream, failed
 * verification, refused downgrade…) is reported, keeps its pin, and makes the exit code non-zero, while
 * the others are still updated.
 *
 * The target version comes from the registry's item metadata (`GET /v1/items/{type}/{id}`): the latest
 * installable version, or the one asked for. A version older than the pin needs `--allow-downgrade`;
 * the same version with other content at the registry is re-pinned only when the id is named.
 */
import { resolve } from "node:path";
import { z } from "zod";
import type { ItemType } from "@rye/core";
import { compareSemver, RyeError, toErrorEnvelope } from "@rye/core";
import { createEngineContext } from "../../engine/context.ts";
import { readJson, registryFetch } from "../../registry/http.ts";
import { installRegistryItem } from "../../registry/install.ts";
import { getRegistryPin, pinnedKeyFor } from "../../registry/key-pinning.ts";
import type { LockEntry } from "../../registry/project-lock.ts";
import { projectLockPath, readProjectLock, rollbackError } from "../../registry/project-lock.ts";
import { resolveRegistryFor } from "../../registry/registries.ts";
import { collectRegistryNotices, parseRemoteRef } from "../../registry/resolve-remote.ts";
import { accessTokenFor } from "../../registry/session.ts";

export interface UpdateTarget {
  pin: LockEntry;
  /** `id@version` on the command line. */
  version?: string;
  /** The id was named on the command line (not a bulk update). */
  named: boolean;
}

export type UpdateStatus = "updated" | "up-to-date" | "would-update" | "failed";

export interface UpdateItemResult {
  item_type: ItemType;
  item_id: string;
  registry: string;
  /** The pinned version before the update. */
  from: string;
  /** The version pinned now (or that would be, with --dry-run); the old one when nothing changed. */
  to: string;
  status: UpdateStatus;
  /** The same version, but the registry serves other content for it (re-pinned when named). */
  content_changed?: boolean;
  downgrade?: boolean;
  /** Why an up-to-date item did not move (e.g. the registry's latest is older than the pin). */
  note?: string;
  path?: string;
  error?: { code: string; message: string; hint?: string };
}

export interface UpdateResult {
  lock: string;
  dry_run: boolean;
  items: UpdateItemResult[];
  registry_notice?: string;
  warnings: string[];
}


function encodeId(id: string): string {
  return id.split("/").map(encodeURIComponent).join("/");
}

/** The pins to update, from the command line; every problem here is reported before any network call. */
export function selectTargets(items: LockEntry[], refs: string[], type: ItemType | undefined, lockPath: string): UpdateTarget[] {
  if (refs.length === 0) return items.filter((e) => !type || e.type === type).map((pin) => ({ pin, named: false }));
  const targets: UpdateTarget[] = [];
  for (const raw of refs) {
    let ref;
    try {
      ref = parseRemoteRef(raw);
    } catch (err) {
      if (err instanceof RyeError) throw new RyeError("BAD_REQUEST", err.message, { hint: err.hint });
      throw err;
    }
    const matches = items.filter((e) => e.id === ref.id && (!type || e.type === type));
    if (matches.length === 0) {
      const other = type ? items.filter((e) => e.id === ref.id).map((e) => e.type) : [];
      throw new RyeError("ITEM_NOT_FOUND", `${type ? `${type} ` : ""}${ref.id} is not pinned in ${lockPath}${other.length ? ` (it is pinned as ${other.join(" and ")})` : ""}`, {
        hint: "rye update moves existing pins; load or execute a registry item once to pin it.",
      });
    }
    if (matches.length > 1) {
      throw new RyeError("BAD_REQUEST", `${ref.id} is pinned as ${matches.map((e) => e.type).join(" and ")} in ${lockPath}`, { hint: `Pass --type ${matches[0]!.type} (or another type).` });
    }
    const pin = matches[0]!;
    const existing = targets.find((t) => t.pin === pin);
    if (existing) {
      if (existing.version !== ref.version) throw new RyeError("BAD_REQUEST", `${pin.type} ${pin.id} is named twice with different versions`);
      continue;
    }
    targets.push({ pin, named: true, ...(ref.version ? { version: ref.version } : {}) });
  }
  return targets;
}

const itemMetadataSchema = z.object({
  latest_version: z.string().nullable().optional(),
  versions: z.array(z.object({ version: z.string(), content_hash: z.string().optional(), yanked: z.boolean().optional() })).optional(),
});

type ItemMetadata = z.infer<typeof itemMetadataSchema>;

async function itemMetadata(registry: string, type: ItemType, id: string, env: NodeJS.ProcessEnv): Promise<ItemMetadata> {
  const token = await accessTokenFor(registry, env);
  const res = await registryFetch(registry, `/v1/items/${type}/${encodeId(id)}`, { token, env });
  if (res.status === 404) {
    throw new RyeError("ITEM_NOT_FOUND", `${type} ${id} no longer exists at ${registry}`, {
      hint: "It was deleted or made private. Its pin and cached file are kept; remove the entry from .ai/rye.lock to stop using it.",
    });
  }
  return readJson(res, itemMetadataSchema);
}

/** Why the registry key a pin names is no longer trusted (revoked, unknown to the key pin), or undefined. */
async function keyDistrust(pin: LockEntry, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const registryPin = await getRegistryPin(pin.registry, env);
  if (!registryPin) return `no key of ${pin.registry} is pinned`;
  const known = pinnedKeyFor(registryPin, pin.key_fingerprint);
  if (!known) return `its signing key ${pin.key_fingerprint} is no longer a pinned key of ${pin.registry}`;
  if ("revoked" in known) return `its signing key ${pin.key_fingerprint} was revoked at ${known.revoked.revoked_at}`;
  return undefined;
}

/** Updates one pin (or tells what would change). Throws when the item cannot be updated. */
async function updateOne(
  engine: Awaited<ReturnType<typeof createEngineContext>>,
  target: UpdateTarget,
  options: { dryRun: boolean; allowDowngrade: boolean; lockPath: string },
  warnings: string[],
): Promise<Omit<UpdateItemResult, "item_type" | "item_id" | "from">> {
  const { pin } = target;
  const registry = (await resolveRegistryFor(pin.id, { env: engine.env, projectPath: engine.projectPath })).url;
  const meta = await itemMetadata(registry, pin.type, pin.id, engine.env);
  const versions = Array.isArray(meta.versions) ? meta.versions : [];
  let to: string;
  if (target.version) {
    if (!versions.some((v) => v.version === target.version)) {
      throw new RyeError("ITEM_NOT_FOUND", `${pin.type} ${pin.id}@${target.version} not found at ${registry}`, {
        hint: versions.length ? `Published versions: ${versions.map((v) => v.version).join(", ")}` : "The item has no published version.",
        details: { versions: versions.map((v) => v.version) },
      });
    }
    to = target.version;
  } else {
    if (!meta.latest_version) throw new RyeError("ITEM_NOT_FOUND", `${pin.type} ${pin.id} has no installable version at ${registry} (all are yanked)`, { hint: `Pin a version explicitly: rye update ${pin.id}@<version>` });
    to = meta.latest_version;
  }

  const order = compareSemver(to, pin.version);
  const same = { registry, to: pin.version, status: "up-to-date" as const };
  if (order < 0) {
    if (!target.version) return { ...same, note: `the registry's latest installable version is ${to}, older than the pinned ${pin.version}; keeping the pin` };
    if (!options.allowDowngrade) throw rollbackError(pin, to, options.lockPath);
  }
  let contentChanged = false;
  let note: string | undefined;
  if (order === 0) {
    const served = versions.find((v) => v.version === to)?.content_hash;
    if (!served || served === pin.content_hash) {
      // Same version and content: nothing to do, unless the key that signed it is no longer trusted.
      const distrust = await keyDistrust(pin, engine.env);
      if (!distrust) return same;
      note = `pulled again: ${distrust}`;
    } else if (!target.named) {
      throw new RyeError("INTEGRITY_MISMATCH", `The registry now serves different content for the pinned ${pin.type} ${pin.id}@${pin.version} (content hash ${served.slice(0, 16)}…, pinned ${pin.content_hash.slice(0, 16)}…)`, {
        hint: `A published version must never change; the pin is kept. If you trust the change, run \`rye update ${pin.id}\`.`,
      });
    } else contentChanged = true;
  }
  const flags = { ...(contentChanged ? { content_changed: true } : {}), ...(order < 0 ? { downgrade: true } : {}), ...(note ? { note } : {}) };
  if (options.dryRun) return { registry, to, status: "would-update", ...flags };

  const installed = await installRegistryItem(engine, { type: pin.type, id: pin.id, version: to, update: true });
  for (const w of installed.warnings) if (!warnings.includes(w)) warnings.push(w);
  return { registry: installed.entry.registry, to: installed.entry.version, status: "updated", ...flags, path: installed.file.path };
}

export async function runUpdate(
  options: { projectPath: string; env: NodeJS.ProcessEnv; refs: string[]; type?: ItemType | undefined; dryRun?: boolean; allowDowngrade?: boolean },
): Promise<UpdateResult> {
  const lockPath = projectLockPath(options.projectPath);
  const lock = await readProjectLock(options.projectPath);
  const targets = selectTargets(lock.items, options.refs, options.type, lockPath);
  const dryRun = Boolean(options.dryRun);
  if (targets.length > 0 && options.env.RYE_OFFLINE === "1") {
    throw new RyeError("UNAVAILABLE", "rye update needs the registry, and RYE_OFFLINE=1 forbids registry lookups", { hint: "Unset RYE_OFFLINE and run it again." });
  }
  const engine = await createEngineContext({ projectPath: options.projectPath, env: options.env });
  const warnings: string[] = [];
  const { result: items, notices } = await collectRegistryNotices(async () => {
    const out: UpdateItemResult[] = [];
    for (const target of targets) {
      const head = { item_type: target.pin.type, item_id: target.pin.id, from: target.pin.version };
      try {
        out.push({ ...head, ...(await updateOne(engine, target, { dryRun, allowDowngrade: Boolean(options.allowDowngrade), lockPath }, warnings)) });
      } catch (err) {
        const { error } = toErrorEnvelope(err);
        out.push({ ...head, registry: target.pin.registry, to: target.pin.version, status: "failed", error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } });
      }
    }
    return out;
  });
  return { lock: lockPath, dry_run: dryRun, items, ...(notices.length ? { registry_notice: notices.join("\n") } : {}), warnings };
}
