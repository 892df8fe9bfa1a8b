/** Reading an item file: size limit, UTF-8, parse and verify. */
import { readFile } from "node:fs/promises";
import type { ParsedItem, VerifyResult } from "@rye/core";
import { parseItem, RyeError, useShippedJsExports, useShippedYaml, utf8Decode } from "@rye/core";
import { shippedJsExportsValue } from "../sdk/shipped-js-exports-table.ts";
import { shippedYamlValue } from "../sdk/shipped-yaml-table.ts";
import type { ItemFile } from "../spaces/spaces.ts";
import type { Verifier } from "./verification.ts";

// The built package's system YAML files are shipped parsed: from here on (every path that reads items comes through
// this module), @rye/core's tool and configuration readers take their values instead of parsing those very bytes.
// Likewise the `export const` metadata of its JavaScript tools (the thread runtime's entry among them).
useShippedYaml(shippedYamlValue);
useShippedJsExports(shippedJsExportsValue);

/** Items are documents and scripts, not data: 1 MiB is far above any real one. */
export const MAX_ITEM_BYTES = 1024 * 1024;

export async function readItemText(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new RyeError("ITEM_NOT_FOUND", `No such file: ${path}`, { hint: "Check the path." });
    if (code === "EISDIR") throw new RyeError("BAD_REQUEST", `${path} is a directory`, { hint: "Pass a file." });
    throw err;
  }
  if (bytes.length > MAX_ITEM_BYTES) {
    throw new RyeError("PAYLOAD_TOO_LARGE", `${path} is ${bytes.length} bytes; items may be at most ${MAX_ITEM_BYTES} bytes`);
  }
  try {
    return utf8Decode(bytes);
  } catch {
    throw new RyeError("PARSE_FAILED", `${path} is not valid UTF-8 text`);
  }
}

export interface LoadedItem {
  file: ItemFile;
  content: string;
  parsed: ParsedItem;
  verification: VerifyResult;
}

export async function loadItemFile(file: ItemFile, verifier: Verifier): Promise<LoadedItem> {
  const content = await readItemText(file.path);
  const [parsed, verification] = await Promise.all([
    Promise.resolve().then(() => parseItem(content, file.type, { path: file.path })),
    verifier.verify(content, file.type, file.space.name),
  ]);
  return { file, content, parsed, verification };
}

/** Throws the verification failure as a RyeError (code = the verification code). */
export function assertVerified(item: Pick<LoadedItem, "file" | "verification">): void {
  const v = item.verification;
  if (v.ok) return;
  const code = v.code === "OK" ? "INTERNAL" : v.code;
  throw new RyeError(code, `${item.file.type} ${item.file.itemId} (${item.file.space.name}) failed verification: ${v.message}`, {
    details: { item_id: item.file.itemId, space: item.file.space.name, path: item.file.path, code: v.code, contentHash: v.contentHash, embeddedHash: v.embeddedHash, fingerprint: v.fingerprint },
  });
}
