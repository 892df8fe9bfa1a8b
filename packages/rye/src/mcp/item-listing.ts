/**
 * The items of the project's spaces that verify, for resources/list: read from the search's cached per-(space, type)
 * indexes (files re-read only when their mtime or size changed, signatures re-checked only then), so a warm listing
 * of thousands of items costs a stat per file, not a read and a signature check. A project item shadows a user or
 * system item of the same type and id; when the winning file does not verify, the item is not listed at all (a read
 * would be refused, since reads resolve the same file).
 */
import type { ItemType } from "@rye/core";
import { extensionOf } from "@rye/core";
import type { EngineContext } from "../engine/context.ts";
import type { IndexedDocument } from "../search/document.ts";
import type { VerifyFunction } from "../search/index.ts";
import { segmentIndex } from "../search/index.ts";

export interface VerifiedItem {
  type: ItemType;
  id: string;
  space: IndexedDocument["space"];
  doc: IndexedDocument;
  extension: string;
}

/** The verification the `search` tool applies (same outcome shape, so the per-file cache is shared). */
export function searchVerifier(ctx: EngineContext): VerifyFunction {
  return async (doc) => {
    const v = await ctx.verifier.verify(doc.content, doc.type, doc.space);
    return { signed: v.code !== "UNSIGNED" && v.code !== "MALFORMED_SIGNATURE", verified: v.ok, code: v.code };
  };
}

/** Brings the indexes of `types` in every space up to date (the same refresh a search does). */
export async function refreshIndexes(ctx: EngineContext, types: readonly ItemType[]): Promise<void> {
  await Promise.all(types.flatMap((type) => ctx.spaces.map((space) => segmentIndex(space, type).refresh())));
}

/** The visible (unshadowed) items of `types` whose file verifies, sorted by type (in the order given), then id. */
export async function listVerifiedItems(ctx: EngineContext, types: readonly ItemType[]): Promise<VerifiedItem[]> {
  await refreshIndexes(ctx, types);
  const verify = searchVerifier(ctx);
  const out: VerifiedItem[] = [];
  for (const type of types) {
    const seen = new Set<string>();
    const winners: { doc: IndexedDocument; segment: ReturnType<typeof segmentIndex> }[] = [];
    for (const space of ctx.spaces) {
      const segment = segmentIndex(space, type);
      for (const doc of segment.docs.values()) {
        if (seen.has(doc.id)) continue;
        seen.add(doc.id);
        winners.push({ doc, segment });
      }
    }
    const outcomes = await Promise.all(winners.map(({ doc, segment }) => segment.verify(doc, verify)));
    const verified = winners.filter((_, i) => outcomes[i]!.verified).map(({ doc }) => ({ type, id: doc.id, space: doc.space, doc, extension: extensionOf(doc.path) }));
    out.push(...verified.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  }
  return out;
}
