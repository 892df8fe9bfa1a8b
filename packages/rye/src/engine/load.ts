/** `load`: an item's content, parsed metadata and verification; optionally a copy into another space. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { ItemType } from "@rye/core";
import { assertItemId, RyeError, TYPE_FOLDERS } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { SpaceName } from "../spaces/spaces.ts";
import { assertInside } from "../spaces/spaces.ts";
import { collectRegistryNotices, locateItem, parseRemoteRef, relaxRegistryCategory } from "../registry/resolve-remote.ts";
import type { EngineContext } from "./context.ts";
import type { LoadResult } from "./results.ts";
import { assertVerified, loadItemFile, readItemText } from "./read.ts";

export interface LoadParams {
  item_type: ItemType;
  item_id: string;
  /** Only look in this space (default: project > user > system). */
  source?: SpaceName;
  /** Copy the item into this space, keeping its folder path. */
  destination?: "project" | "user";
  /** Replace an existing file at the destination. */
  overwrite?: boolean;
}

export type { LoadResult };

export async function loadItem(ctx: EngineContext, params: LoadParams): Promise<LoadResult> {
  const { result, notices } = await collectRegistryNotices(() => loadItemInner(ctx, params));
  return notices.length ? { ...result, registry_notice: notices.join("\n") } : result;
}

async function loadItemInner(ctx: EngineContext, params: LoadParams): Promise<LoadResult> {
  assertItemId(parseRemoteRef(params.item_id).id);
  // Local lookup; a registry id not found locally is pulled, verified, cached and pinned.
  const file = await locateItem(ctx, params.item_type, params.item_id, { only: params.source });
  if (!file) {
    throw new RyeError("ITEM_NOT_FOUND", `${params.item_type} ${params.item_id} not found${params.source ? ` in the ${params.source} space` : ""}`, {
      hint: `Search for it: rye search "${params.item_id.split("/").pop()}" --type ${params.item_type}`,
    });
  }
  const item = await loadItemFile(file, ctx.verifier);
  assertVerified(item);
  const result: LoadResult = {
    status: "success",
    item_type: file.type,
    item_id: file.itemId,
    source: file.space.name,
    path: file.path,
    content: item.content,
    metadata: { ...item.parsed.summary, extension: file.extension, path: file.path },
    verification: {
      ok: item.verification.ok,
      code: item.verification.code,
      contentHash: item.verification.contentHash ?? null,
      fingerprint: item.verification.fingerprint ?? null,
    },
    issues: relaxRegistryCategory(file, item.parsed.summary.category, item.parsed.issues),
  };
  if (params.destination && params.destination !== file.space.name) {
    const dest = ctx.space(params.destination);
    const destPath = join(dest.root, TYPE_FOLDERS[file.type], `${file.itemId}${file.extension}`);
    await assertInside(dest.root, destPath);
    const exists = await stat(destPath).then(() => true, () => false);
    if (exists && !params.overwrite) {
      throw new RyeError("ITEM_EXISTS", `${destPath} already exists`, { hint: "Pass overwrite: true (CLI: --force) to replace it." });
    }
    await writeFileAtomic(destPath, await readItemText(file.path));
    result.copied_to = dest.name;
    result.destination_path = destPath;
    if (file.space.name === "system") {
      result.note = "System items are signed by the rye release key, trusted only in the system space: re-sign the copy with `rye sign` to use it.";
    }
  }
  return result;
}
