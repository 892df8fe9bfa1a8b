import type { RegistryItemType } from "@rye/core";
import { isRegistryItemType, RyeError } from "@rye/core";

/** A registry item type (directive, tool, knowledge or skill), or INVALID_ITEM_TYPE. */
export function assertType(value: string): RegistryItemType {
  if (!isRegistryItemType(value)) throw new RyeError("INVALID_ITEM_TYPE", `Unknown item type ${JSON.stringify(value)}`);
  return value;
}
