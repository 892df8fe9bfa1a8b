/** Reading an item file from the command line: type inference and decoding. */
import type { ItemType } from "@rye/core";
import { inferItemType, isItemType, RyeError } from "@rye/core";

/** Reads an item file given on the command line (1 MiB limit, strict UTF-8). */
export { readItemText as readItemFile } from "../engine/read.ts";

export function resolveItemType(path: string, content: string, explicit?: string): ItemType {
  if (explicit !== undefined) {
    if (!isItemType(explicit)) throw new RyeError("BAD_REQUEST", `--type must be directive, tool or knowledge, not ${JSON.stringify(explicit)}`);
    return explicit;
  }
  const inferred = inferItemType(path, content);
  if (!inferred) {
    throw new RyeError("BAD_REQUEST", `Cannot tell the item type of ${path}`, {
      hint: "Put it under .ai/directives|tools|knowledge/ or pass --type directive|tool|knowledge.",
    });
  }
  return inferred;
}
