/** Bundle ids and where a bundle's files live under a root (the directory holding `.ai`). */
import { join } from "node:path";
import { RyeError, TYPE_FOLDERS, validateItemId } from "@rye/core";
import type { ItemType } from "@rye/core";

/** Bundle ids follow the item id rules: `/`-separated safe segments, so no `..`, absolute path, `\` or NUL. */
export function assertBundleId(bundleId: unknown): string {
  const problem = validateItemId(bundleId);
  if (problem) {
    throw new RyeError("INVALID_ITEM_ID", `Invalid bundle id ${JSON.stringify(bundleId)}: ${problem}`, {
      hint: "Bundle ids are slash-separated names such as `acme/tools`: letters, digits, '_', '-', '.', no '..'.",
    });
  }
  return bundleId as string;
}

/** `.ai/bundles/<id>/manifest.yaml`, relative to the root with `/` separators. */
export function manifestRelPath(bundleId: string): string {
  return `.ai/bundles/${bundleId}/manifest.yaml`;
}

export function manifestPathOf(root: string, bundleId: string): string {
  return join(root, ...manifestRelPath(bundleId).split("/"));
}

/** The folders a bundle collects, relative to the root: `.ai/<type folder>/<id>` for each item type. */
export function bundleSourceDirs(bundleId: string): { type: ItemType; relDir: string }[] {
  return (Object.entries(TYPE_FOLDERS) as [ItemType, string][]).map(([type, folder]) => ({ type, relDir: `.ai/${folder}/${bundleId}` }));
}
