/**
 * `rye pull <id>[@version]` (and the registry system tool's `pull`): the same verify-write-pin path as
 * a transparent lookup (install.ts), written to the project (default) or the user space, and pinned in
 * the project lock so that load, verify and execute accept the file at once.
 */
import type { ItemType } from "@rye/core";
import { isSemver, RyeError } from "@rye/core";
import { resolveSpaces } from "../spaces/spaces.ts";
import type { InstallTarget } from "./install.ts";
import { installVerifiedPull, pullAnyType } from "./install.ts";
import { projectLockPath } from "./project-lock.ts";
import type { PublishContext } from "./publish.ts";
import { splitRegistryId } from "./publish.ts";
import { pullItem } from "./pull.ts";
import { normalizeRegistryUrl } from "./registry-url.ts";
import { resolveRegistryFor } from "./registries.ts";

export interface PullCommandOptions {
  id: string;
  version?: string | undefined;
  /** Omitted: each type is tried; more than one match is an error. */
  type?: ItemType | undefined;
  to?: InstallTarget | undefined;
  registryUrl?: string | undefined;
  /** Replace a local file with other content than the pinned copy. */
  force?: boolean | undefined;
  /** An explicit version older than the pinned one. */
  allowDowngrade?: boolean | undefined;
}

export interface PullCommandResult {
  status: "pulled" | "unchanged";
  registry: string;
  item_type: ItemType;
  item_id: string;
  version: string;
  path: string;
  /** The project lock that pins the item. */
  lock: string;
  registry_fingerprint: string;
  yanked: boolean;
  deprecated: boolean;
  deprecation_message: string | null;
}

export async function pullCommand(options: PullCommandOptions, ctx: PublishContext): Promise<PullCommandResult> {
  splitRegistryId(options.id);
  if (options.version !== undefined && !isSemver(options.version)) {
    throw new RyeError("INVALID_VERSION", `Invalid version ${JSON.stringify(options.version)}`, { hint: "Use <id>@MAJOR.MINOR.PATCH, e.g. alice/notes/guide@1.1.0." });
  }
  const registryUrl = options.registryUrl ? normalizeRegistryUrl(options.registryUrl) : (await resolveRegistryFor(options.id, { env: ctx.env, projectPath: ctx.projectPath })).url;
  const pullOptions = { projectPath: ctx.projectPath, env: ctx.env, registryUrl, ...(ctx.fetchKeys ? { fetchKeys: ctx.fetchKeys } : {}) };
  const pulled = options.type
    ? await pullItem({ type: options.type, id: options.id, version: options.version }, pullOptions)
    : await pullAnyType({ id: options.id, version: options.version }, pullOptions);
  if (pulled.notice) ctx.info?.(pulled.notice);
  for (const w of pulled.warnings) ctx.info?.(`warning: ${w}`);
  const spaces = await resolveSpaces({ projectPath: ctx.projectPath, env: ctx.env });
  const installed = await installVerifiedPull(
    { projectPath: ctx.projectPath, env: ctx.env, spaces },
    { type: pulled.type, id: pulled.id, version: options.version, to: options.to ?? "project", force: options.force, allowDowngrade: options.allowDowngrade, registryUrl },
    pulled,
  );
  return {
    status: installed.status,
    registry: pulled.registry,
    item_type: pulled.type,
    item_id: pulled.id,
    version: pulled.version,
    path: installed.file.path,
    lock: projectLockPath(ctx.projectPath),
    registry_fingerprint: pulled.key_fingerprint,
    yanked: pulled.yanked,
    deprecated: pulled.deprecated,
    deprecation_message: pulled.deprecation_message,
  };
}
