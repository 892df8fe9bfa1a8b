/**
 * Server-side data of an item page: metadata and versions (GET /v1/items), one version's signed file
 * (GET /v1/pull), the parsed item, and a tool's executor chain. Every call forwards the visitor's
 * session, so members see private items; a missing item, a private one the visitor may not read and an
 * invalid id all come back as null (the page then answers 404, the same for all three).
 * `cache` dedupes the calls of generateMetadata and the page within one request.
 */
import { cache } from "react";
import type { ItemDetails, ItemType, ParsedItem, PullResponse, RegistryItemType } from "@rye/core";
import { isItemType, itemDetailsSchema, parseItem, parseRegistryItemId, pullResponseSchema } from "@rye/core";
import { ApiError } from "@/lib/api";
import { apiParsedOrNull } from "@/lib/contracts";

export type { ItemDetails, PullResponse };

/** Longest executor chain rye runs (packages/rye: tool → runtime(s) → primitive). */
export const MAX_CHAIN_LINKS = 10;
/** Items of rye's system bundle are published under this namespace (apps/api/src/seed.ts). */
export const SYSTEM_NAMESPACE = "rye";

const encodeId = (id: string) => id.split("/").map(encodeURIComponent).join("/");

/** The site path of an item (optionally with a query). */
export function itemHref(type: RegistryItemType, id: string, query?: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, value);
  const search = params.toString();
  return `/${type}/${encodeId(id)}${search ? `?${search}` : ""}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The item id of a `[...id]` route, normalized, or null when no item can have it. */
export function itemIdFromSegments(segments: string[] | undefined): string | null {
  if (!segments || segments.length < 3) return null;
  try {
    return parseRegistryItemId(segments.map(safeDecode).join("/")).id;
  } catch {
    return null;
  }
}

async function orNull<T>(load: () => Promise<T | null>): Promise<T | null> {
  try {
    return await load();
  } catch (err) {
    // 400: an id or version the registry cannot even look up, which is "not found" for a page.
    if (err instanceof ApiError && err.status === 400) return null;
    throw err;
  }
}

export const getItemDetails = cache(async (type: ItemType, id: string): Promise<ItemDetails | null> =>
  orNull(() => apiParsedOrNull(itemDetailsSchema, `/v1/items/${type}/${encodeId(id)}`, { session: true })),
);

/** One version's signed file; `version` null: the latest installable one. */
export const getPulled = cache(async (type: ItemType, id: string, version: string | null): Promise<PullResponse | null> =>
  orNull(() =>
    apiParsedOrNull(pullResponseSchema, `/v1/pull/${type}/${encodeId(id)}${version ? `?version=${encodeURIComponent(version)}` : ""}`, { session: true }),
  ),
);

/** parseItem over a served file; null when the file cannot be read as its type at all. */
export function parsePulled(pull: Pick<PullResponse, "item_type" | "content" | "name" | "file_extension">): ParsedItem | null {
  // A skill's served content is its signed manifest, not an item file; the skill page verifies skills itself (lib/skill-verify.ts).
  if (pull.item_type === "skill") return null;
  try {
    return parseItem(pull.content, pull.item_type, { path: `${pull.name}${pull.file_extension}` });
  } catch {
    return null;
  }
}

/** The version a page shows: the requested one, else the latest installable, else the newest. */
export function pickVersion(details: ItemDetails, requested: string | undefined): string | null {
  if (requested) return details.versions.some((v) => v.version === requested) ? requested : null;
  return details.latest_version ?? details.versions[0]?.version ?? null;
}

export interface ChainLink {
  /** The executor id as the tool names it (a local id like rye/core/runtimes/node, or a registry id). */
  executorId: string;
  /** The registry item it resolves to, or null when none is published here. */
  registryId: string | null;
  version?: string;
  toolType?: string;
  description?: string;
}

export interface ExecutorChain {
  links: ChainLink[];
  /** Why the chain stops before a primitive (an executor that is not published, a cycle, too long). */
  stop: "primitive" | "unresolved" | "cycle" | "too-long";
}

/** Registry ids an executor id can name: itself (a registry id) or the system bundle's copy. */
function candidates(executorId: string): string[] {
  const out: string[] = [];
  if (executorId.split("/").length >= 3) out.push(executorId);
  out.push(`${SYSTEM_NAMESPACE}/${executorId}`);
  return [...new Set(out)].filter((id) => itemIdFromSegments(id.split("/")) === id);
}

/** Follows a tool's executor_id through the registry, as rye's engine would, at most MAX_CHAIN_LINKS links. */
export const getExecutorChain = cache(async (firstExecutor: string | null): Promise<ExecutorChain> => {
  const links: ChainLink[] = [];
  const seen = new Set<string>();
  let next = firstExecutor;
  while (next) {
    if (links.length >= MAX_CHAIN_LINKS) return { links, stop: "too-long" };
    let found: { id: string; pull: PullResponse } | null = null;
    for (const id of candidates(next)) {
      const pull = await getPulled("tool", id, null);
      if (pull) {
        found = { id, pull };
        break;
      }
    }
    if (!found) {
      links.push({ executorId: next, registryId: null });
      return { links, stop: "unresolved" };
    }
    if (seen.has(found.id)) return { links, stop: "cycle" };
    seen.add(found.id);
    const parsed = parsePulled(found.pull);
    const summary = parsed?.summary;
    links.push({
      executorId: next,
      registryId: found.id,
      version: found.pull.version,
      ...(summary?.toolType ? { toolType: summary.toolType } : {}),
      ...(summary?.description ? { description: summary.description } : {}),
    });
    next = summary?.executorId ?? null;
  }
  return { links, stop: "primitive" };
});

export function parseItemType(value: string): ItemType | null {
  return isItemType(value) ? value : null;
}
