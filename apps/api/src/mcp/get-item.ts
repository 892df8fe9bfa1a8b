/**
 * `get_item`: GET /v1/pull's answer for one version, plus the registry key and the publisher's key that verify it
 * and how to verify it offline.
 *
 * The answer is kept per pull answer object (a WeakMap): readPull hands out the pull cache's answer only for its
 * read generation and only after the caller passed the same access check as GET /v1/pull, and a new generation (a
 * yank, delete, visibility change, new version, key rotation: services/read-generation.ts) means a new pull answer
 * object, so a kept answer is never served to a caller who may not read it nor after what it says changed. What it
 * keeps is the same for every caller who may read the version. The publisher's key is read on every call: its
 * revocation does not move the read generation.
 */
import type { PullAnswer } from "../services/pull-cache.ts";
import { type McpCaller, type ToolAnswer } from "./answer.ts";
import { publisherKey, readPull, registryKeyPem } from "./reads.ts";
import { getItemOutput, type GetItemOutput } from "./schemas.ts";

type Args = { item_type: string; item_id: string; version?: string | undefined };
type PublisherKey = GetItemOutput["publisher_key"];

interface Kept {
  /** The parsed answer but its publisher key. */
  answer: Omit<GetItemOutput, "publisher_key">;
  /** The answer's JSON before and after the publisher key's. */
  head: string;
  tail: string;
}

const KEPT = new WeakMap<PullAnswer, Kept>();
const publisherKeySchema = getItemOutput.shape.publisher_key;

/** How to check a `get_item` answer without trusting the connection it came over. */
export function verifyOfflineText(item: GetItemOutput["item"], registryUrl: string): string {
  const file = `${item.name}${item.file_extension}`;
  const type = item.item_type === "skill" ? "" : ` --type ${item.item_type}`;
  return [
    `1. Save item.content exactly as ${file}.`,
    `2. Trust the registry key ${item.signature.fingerprint} once: save registry_key.public_key as registry.pem, compare its fingerprint with ${registryUrl}/v1/keys (or a pin you already hold, e.g. .ai/rye.lock), then run: rye trust add registry.pem`,
    `3. Run: rye verify ${file}${type} — OK means the content hash matches the registry's signature line (content_hash ${item.content_hash}).`,
    `4. item.attestation.payload is signed by the same key (Ed25519 over its canonical JSON, item.attestation.signature)${item.log_index === null ? "" : `; it is entry ${item.log_index} of the registry's public log (${registryUrl}/v1/log/entries?from=${item.log_index}&limit=1)`}.`,
  ].join("\n");
}

async function publisherKeyOf(caller: McpCaller, item: GetItemOutput["item"]): Promise<PublisherKey> {
  return item.author_key ? publisherKeySchema.parse(await publisherKey(caller.deps, item.author, item.author_key.fingerprint)) : null;
}

/** Parses the whole answer once per pull answer and keeps it with its JSON split around the publisher key. */
async function keep(caller: McpCaller, pulled: PullAnswer): Promise<{ kept: Kept; publisher: PublisherKey }> {
  const { deps } = caller;
  const item = JSON.parse(Buffer.from(pulled.body).toString("utf8")) as GetItemOutput["item"];
  const fingerprint = item.attestation.key_fingerprint || item.signature.fingerprint;
  const { publisher_key: publisher, ...answer } = getItemOutput.parse({
    item,
    registry_key: { fingerprint, public_key: await registryKeyPem(deps, fingerprint) },
    publisher_key: await publisherKeyOf(caller, item),
    verify_offline: verifyOfflineText(item, deps.config.publicUrl.replace(/\/+$/, "")),
  });
  const kept: Kept = {
    answer,
    head: `{"item":${JSON.stringify(answer.item)},"registry_key":${JSON.stringify(answer.registry_key)},"publisher_key":`,
    tail: `,"verify_offline":${JSON.stringify(answer.verify_offline)}}`,
  };
  KEPT.set(pulled, kept);
  return { kept, publisher };
}

export async function getItemAnswer(caller: McpCaller, args: Args): Promise<ToolAnswer> {
  const pulled = await readPull(caller.deps, caller.principal, args.item_type, args.item_id, args.version);
  const hit = KEPT.get(pulled);
  const { kept, publisher } = hit ? { kept: hit, publisher: await publisherKeyOf(caller, hit.answer.item) } : await keep(caller, pulled);
  // Key order as getItemOutput parses it: item, registry_key, publisher_key, verify_offline.
  const structured: GetItemOutput = { item: kept.answer.item, registry_key: kept.answer.registry_key, publisher_key: publisher, verify_offline: kept.answer.verify_offline };
  return { structured, json: `${kept.head}${JSON.stringify(publisher)}${kept.tail}` };
}
