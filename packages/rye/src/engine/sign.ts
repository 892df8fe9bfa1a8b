/** `sign`: validate and sign one item, or every item matching a glob, in the project or user space. */
import type { ItemType, SignatureInfo } from "@rye/core";
import { assertItemId, extensionOf, parseItem, RyeError, signItem } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { KeyStore } from "../keys/keystore.ts";
import type { ItemFile } from "../spaces/spaces.ts";
import { findItemFile, listItemFiles } from "../spaces/spaces.ts";
import type { EngineContext } from "./context.ts";
import type { SignedBatch, SignedOne } from "./results.ts";
import { globToRegExp, isGlob } from "./glob.ts";
import { readItemText } from "./read.ts";

export interface SignParams {
  item_type: ItemType;
  /** An item id, or a glob (`*`, `**`, `?`) relative to the type folder. */
  item_id: string;
  source?: "project" | "user";
}

export type { SignedBatch, SignedOne };

export const MAX_BATCH_SIGN = 5000;

/** Validates and signs one file in place (atomic write); refuses an invalid item with its issues. */
export async function signPath(
  path: string,
  type: ItemType,
  keyStore: KeyStore,
): Promise<{ signature: SignatureInfo; warnings: string[]; created: boolean; fingerprint: string }> {
  const content = await readItemText(path);
  const parsed = parseItem(content, type, { path });
  if (parsed.issues.length > 0) {
    throw new RyeError("VALIDATION_FAILED", `${path} is not a valid ${type}; nothing was signed`, { details: parsed.issues });
  }
  const { key, created } = await keyStore.loadOrCreate();
  const signed = await signItem(content, type, key, { path: extensionOf(path) || path });
  await writeFileAtomic(path, signed.content);
  return { signature: signed.signature, warnings: parsed.warnings, created, fingerprint: key.publicKey.fingerprint };
}

const signFile = (file: ItemFile, keyStore: KeyStore) => signPath(file.path, file.type, keyStore);

export async function signItems(ctx: EngineContext, params: SignParams): Promise<SignedOne | SignedBatch> {
  const location = params.source ?? "project";
  if ((location as string) === "system") {
    throw new RyeError("FORBIDDEN", "The system space is signed by the rye release key only", { hint: "Copy the item to your project with load --destination project, then sign it." });
  }
  const space = ctx.space(location);
  const keyStore = new KeyStore({ env: ctx.env });
  if (!isGlob(params.item_id)) {
    assertItemId(params.item_id);
    const file = await findItemFile(space, params.item_type, params.item_id);
    if (!file) throw new RyeError("ITEM_NOT_FOUND", `${params.item_type} ${params.item_id} not found in the ${space.name} space`);
    const { signature, warnings, created } = await signFile(file, keyStore);
    return {
      status: "signed",
      item_id: file.itemId,
      path: file.path,
      location: space.name as "project" | "user",
      signature: { timestamp: signature.timestamp, hash: signature.hash, ed25519_sig: signature.signature, pubkey_fp: signature.fingerprint },
      warnings,
      message: `Signed ${file.itemId} with key ${signature.fingerprint}`,
      ...(created ? { key_created: true } : {}),
    };
  }
  if (params.item_id.length > 256 || params.item_id.includes("..") || params.item_id.startsWith("/")) {
    throw new RyeError("INVALID_ITEM_ID", `Invalid glob ${JSON.stringify(params.item_id)}`);
  }
  const matcher = globToRegExp(params.item_id);
  const files = (await listItemFiles(space, params.item_type)).filter((f) => matcher.test(f.itemId));
  if (files.length > MAX_BATCH_SIGN) {
    throw new RyeError("PAYLOAD_TOO_LARGE", `${files.length} items match; sign at most ${MAX_BATCH_SIGN} at once`);
  }
  const result: SignedBatch = { status: "completed", signed: [], failed: [], total: files.length, summary: "" };
  for (const file of files) {
    try {
      await signFile(file, keyStore);
      result.signed.push(file.itemId);
    } catch (err) {
      const e = err instanceof RyeError ? err : new RyeError("INTERNAL", String(err));
      result.failed.push({
        item: file.itemId,
        error: { code: e.code, message: e.message },
        ...(Array.isArray(e.details) ? { details: e.details.slice(0, 2) } : {}),
      });
    }
  }
  result.summary = `Signed ${result.signed.length}/${result.total} items${result.failed.length ? `, ${result.failed.length} failed` : ""}`;
  return result;
}
