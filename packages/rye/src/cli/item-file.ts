/** Reading an item file from the command line: type inference and decoding. */
import { readFile } from "node:fs/promises";
import type { ItemType } from "@rye/core";
import { inferItemType, isItemType, RyeError, utf8Decode } from "@rye/core";

export const MAX_ITEM_FILE_BYTES = 1024 * 1024;

export async function readItemFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new RyeError("ITEM_NOT_FOUND", `No such file: ${path}`, { hint: "Check the path." });
    if (code === "EISDIR") throw new RyeError("BAD_REQUEST", `${path} is a directory`, { hint: "Pass a file." });
    throw err;
  }
  if (bytes.length > MAX_ITEM_FILE_BYTES) {
    throw new RyeError("PAYLOAD_TOO_LARGE", `${path} is ${bytes.length} bytes; items may be at most ${MAX_ITEM_FILE_BYTES} bytes`);
  }
  try {
    return utf8Decode(bytes);
  } catch {
    throw new RyeError("PARSE_FAILED", `${path} is not valid UTF-8 text`);
  }
}

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
