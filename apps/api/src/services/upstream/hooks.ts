/** The small decisions the pull, item and search routes make about the mirror (services/upstream/mirror.ts). */
import type { Context } from "hono";
import { isItemType, type ItemType, parseRegistryRef, RyeError } from "@rye/core";
import type { AppEnv } from "../../env.ts";
import type { PullAnswer, PullCache } from "../pull-cache.ts";
import { MIRROR_HOPS_HEADER, mirrorHops } from "./client.ts";
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

/**
 * GET /v1/pull for an upstream item: the mirror's answer, and where it came from (`X-Rye-Mirror`). A pinned version is
 * immutable, so it joins the process's pull cache like a local answer (no download count) until the read generation
 * moves — a namespace created here shadows the upstream's.
 */
export async function mirroredAnswer(
  c: Context<AppEnv>,
  mirror: Mirror,
  cache: PullCache,
  pull: { key: string; generation: bigint; type: ItemType; id: string; requested: string | undefined },
): Promise<{ answer: PullAnswer; source: string }> {
  const mirrored = await mirror.pull(pull.type, pull.id, pull.requested, mirrorHops(c.req.header(MIRROR_HOPS_HEADER)));
  const answer: PullAnswer = {
    itemId: "",
    version: pull.requested ?? "",
    status: "published",
    access: { visibility: "public", namespaceId: "" },
    namespaceName: "",
    etag: mirrored.etag,
    cacheControl: mirrored.cacheControl,
    body: mirrored.body,
    mirrored: true,
    logIndex: attestedLogIndex(mirrored.body),
  };
  if (pull.requested && mirrored.source !== "stale") cache.set(pull.key, pull.generation, answer);
  return { answer, source: mirrored.source };
}

/** The log index the mirror's countersigned attestation names (its `mirror` entry), read once per mirrored answer. */
function attestedLogIndex(body: Uint8Array): number | null {
  const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")) as { attestation?: { payload?: { log_index?: unknown } } };
  const index = parsed.attestation?.payload?.log_index;
  return typeof index === "number" && Number.isSafeInteger(index) && index >= 0 ? index : null;
}
