/** The small decisions the pull, item and search routes make about the mirror (services/upstream/mirror.ts). */
import { isItemType, type ItemType, parseRegistryRef, RyeError } from "@rye/core";
import type { Mirror } from "./mirror.ts";

/**
 * The item type to ask the upstream for when a local lookup failed with `err`, or null: only for ITEM_NOT_FOUND, only
 * for item types the mirror carries (not skills), and never for a name in a namespace this registry owns.
 */
export async function mirrorTarget(mirror: Mirror | undefined, err: unknown, typeParam: string, id: string): Promise<ItemType | null> {
  if (!mirror || !(err instanceof RyeError) || err.code !== "ITEM_NOT_FOUND" || !isItemType(typeParam)) return null;
  const ref = parseRegistryRef(typeParam, id);
  return (await mirror.ownsNamespace(ref.namespace)) ? null : typeParam;
}
