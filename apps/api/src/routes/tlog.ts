/**
 * The publish log as a C2SP tlog-tiles log under the prefix /v1/tlog (docs/transparency.md): the signed-note
 * checkpoint, the tiles and entry bundles (immutable when full), and inclusion and consistency proofs.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { HASH_SIZE, logOrigin, MAX_ENTRY_BYTES, noteVerifierKey, parseTilePath, RyeError, TILE_HEIGHT, TILE_WIDTH } from "@rye/core";
import { access, errors, json } from "../contract/route.ts";
import { contractRouter, refuseWith } from "../contract/router.ts";
import type { CheckpointPolicy } from "../services/checkpoints.ts";
import { checkpointContext, currentCheckpointRow } from "../services/checkpoints.ts";
import type { AppDeps } from "../services/deps.ts";
import { configureProofRate, consistencyProofFor, inclusionProofFor } from "../services/log-proofs.ts";
import { configureTileCache, readEntryBundle, readTile } from "../services/log-tree.ts";

export const TLOG_PREFIX = "/v1/tlog";
/** Full tiles never change; a partial tile is replaced by wider ones as the log grows. */
export const FULL_TILE_CACHE = "public, max-age=31536000, immutable";
export const PARTIAL_TILE_CACHE = "public, max-age=60";

const TILE_HINT = `A tile path is tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>] (C2SP tlog-tiles): L in 0–7, N in 3-digit groups with all but the last prefixed by x (1234067 → x001/x234/067), W in 1–${TILE_WIDTH - 1} for a partial tile.`;

const size = (description: string) => z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ description });
export const inclusionQuerySchema = z.object({ index: size("The entry's index (its log index)."), tree_size: size("The tree size of the checkpoint to prove inclusion in; greater than index.") });
export const consistencyQuerySchema = z.object({ from: size("The older tree size."), to: size("The newer tree size, at least `from`.") });

const base64Hash = z.string().meta({ description: "A SHA-256 hash, standard base64." });
const InclusionProof = z
  .object({ index: z.number().int(), tree_size: z.number().int(), leaf: z.string().meta({ description: "The entry's leaf bytes, standard base64 (what the entry bundle holds)." }), proof: z.array(base64Hash) })
  .meta({ id: "TlogInclusionProof", description: "RFC 6962 audit path, from the leaf up." });
const ConsistencyProof = z.object({ from: z.number().int(), to: z.number().int(), proof: z.array(base64Hash) }).meta({ id: "TlogConsistencyProof", description: "RFC 6962 consistency proof." });
const TlogInfo = z
  .object({
    origin: z.string().meta({ description: "The checkpoints' origin line and key name." }),
    prefix: z.string().meta({ description: "The tlog-tiles prefix: checkpoint, tile/… and tile/entries/… are under it." }),
    verifier_keys: z.array(z.string()).meta({ description: "Signed-note verifier keys (`<name>+<hex key id>+<base64(0x01‖ed25519 key)>`) of the keys signing checkpoints now: the active key first, then retired keys still cosigning." }),
    tile_height: z.literal(TILE_HEIGHT),
    max_entry_bytes: z.literal(MAX_ENTRY_BYTES),
  })
  .meta({ id: "TlogInfo" });

export const tlogInfoRoute = createRoute({
  method: "get",
  path: `${TLOG_PREFIX}/info`,
  operationId: "getTlogInfo",
  summary: "The transparency log's origin and the verifier keys of its checkpoints",
  tags: ["log"],
  ...access("none"),
  responses: { 200: json(TlogInfo, "The log's description") },
});

export const tlogCheckpointRoute = createRoute({
  method: "get",
  path: `${TLOG_PREFIX}/checkpoint`,
  operationId: "getTlogCheckpoint",
  summary: "The latest checkpoint of the Merkle tree, as a C2SP signed note",
  tags: ["log"],
  ...access("none"),
  responses: { 200: { description: "`<origin>\\n<tree size>\\n<base64 root hash>\\n`, a blank line, then `— <origin> <base64(key id ‖ Ed25519 signature)>` per key", content: { "text/plain": { schema: z.string() } } } },
});

export const tlogTileRoute = createRoute({
  method: "get",
  path: `${TLOG_PREFIX}/tile/{tile{.+}}`,
  operationId: "getTlogTile",
  summary: "A tile of the Merkle tree (tile/<L>/<N>[.p/<W>]) or an entry bundle (tile/entries/<N>[.p/<W>]), as C2SP tlog-tiles defines them",
  tags: ["log"],
  ...access("none"),
  request: { params: z.object({ tile: z.string().meta({ description: "What follows tile/ in the path." }) }) },
  responses: {
    200: {
      description: `Hashes (32 bytes each) or entries (each a big-endian uint16 length and its bytes). Full tiles: Cache-Control ${FULL_TILE_CACHE}; partial ones: ${PARTIAL_TILE_CACHE}.`,
      content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
    },
    ...errors([400, "A malformed tile path"], [404, "The log has no such tile yet"]),
  },
});

export const tlogInclusionRoute = createRoute({
  method: "get",
  path: `${TLOG_PREFIX}/proof/inclusion`,
  operationId: "getTlogInclusionProof",
  summary: "The audit path of an entry in the tree of a given size",
  tags: ["log"],
  ...access("none"),
  request: { query: inclusionQuerySchema },
  responses: { 200: json(InclusionProof, "The proof"), ...errors([400, "index ≥ tree_size, or tree_size beyond the log"]) },
});

export const tlogConsistencyRoute = createRoute({
  method: "get",
  path: `${TLOG_PREFIX}/proof/consistency`,
  operationId: "getTlogConsistencyProof",
  summary: "A proof that the tree of size `from` is a prefix of the tree of size `to`",
  tags: ["log"],
  ...access("none"),
  request: { query: consistencyQuerySchema },
  responses: { 200: json(ConsistencyProof, "The proof"), ...errors([400, "from > to, or to beyond the log"]) },
});

async function tileBytes(deps: AppDeps, level: number, index: number, width: number): Promise<Uint8Array | null> {
  const hashes = await readTile(deps.db.prisma, { level, index });
  if (!hashes || hashes.length < width * HASH_SIZE) return null;
  return hashes.length === width * HASH_SIZE ? hashes : hashes.subarray(0, width * HASH_SIZE);
}

export function tlogRoutes(deps: AppDeps, options: { checkpoints?: Partial<CheckpointPolicy> } = {}) {
  configureTileCache(deps.db.prisma, deps.config.tlog.tileCacheTiles);
  configureProofRate(deps.db.prisma, deps.config.tlog.proofBuildsPerSecond);
  return contractRouter()
    .openapi(tlogInfoRoute, async (c) => {
      const origin = logOrigin(deps.config.publicUrl);
      const keys = [await deps.keyring.signer(), ...(await deps.keyring.overlapSigners())];
      c.header("Cache-Control", "no-cache");
      return c.json({ origin, prefix: TLOG_PREFIX, verifier_keys: keys.map((k) => noteVerifierKey(origin, k.publicKey.raw)), tile_height: TILE_HEIGHT, max_entry_bytes: MAX_ENTRY_BYTES } as const, 200);
    })
    .openapi(tlogCheckpointRoute, async (c) => {
      const row = await currentCheckpointRow(checkpointContext(deps, options.checkpoints));
      return c.text(row.note, 200, { "Cache-Control": "no-cache" });
    })
    .openapi(tlogTileRoute, async (c) => {
      const parsed = parseTilePath(c.req.valid("param").tile);
      if (!parsed.ok) throw new RyeError("BAD_REQUEST", `Not a tile path: its ${parsed.error} is malformed`, { hint: TILE_HINT });
      const { level, index, width } = parsed;
      const bytes = level === "entries" ? await readEntryBundle(deps.db.prisma, index, width) : await tileBytes(deps, level, index, width);
      if (!bytes) throw new RyeError("NOT_FOUND", `The log has no ${level === "entries" ? "entry bundle" : "tile"} ${c.req.valid("param").tile} yet`, { hint: "Fetch the tiles a checkpoint's tree size calls for (GET /v1/tlog/checkpoint)." });
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { "Content-Type": "application/octet-stream", "Cache-Control": width === TILE_WIDTH ? FULL_TILE_CACHE : PARTIAL_TILE_CACHE });
    }, refuseWith(TILE_HINT))
    .openapi(tlogInclusionRoute, async (c) => {
      const { index, tree_size } = c.req.valid("query");
      const { leaf, proof } = await inclusionProofFor(deps.db.prisma, index, tree_size);
      c.header("Cache-Control", "public, max-age=31536000, immutable");
      return c.json({ index, tree_size, leaf, proof }, 200);
    }, refuseWith("index and tree_size are integers, 0 ≤ index < tree_size ≤ the log's size."))
    .openapi(tlogConsistencyRoute, async (c) => {
      const { from, to } = c.req.valid("query");
      const proof = await consistencyProofFor(deps.db.prisma, from, to);
      c.header("Cache-Control", "public, max-age=31536000, immutable");
      return c.json({ from, to, proof }, 200);
    }, refuseWith("from and to are integers, 0 ≤ from ≤ to ≤ the log's size."));
}
