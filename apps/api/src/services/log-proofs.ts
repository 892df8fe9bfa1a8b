/**
 * Inclusion and consistency proofs of the publish log's Merkle tree, built from its tiles (log-tree.ts: full tiles
 * from the process's cache, partial ones from the database): what GET /v1/tlog/proof/* answers and what the pull
 * path attaches to an answer. Hashes are standard base64, as the routes serve them.
 *
 * A proof depends only on the tree's first `tree_size` leaves, which never change, so a process keeps the proofs it
 * built (PROOF_CACHE_ENTRIES, least recently used out) next to its tile cache: the pull path asks for the same
 * entry at the same checkpoint over and over. A transaction's client, or a process without a tile cache, keeps none.
 */
import { consistencyProofRanges, inclusionProofRanges, type Range, RyeError, subtreeHash, tilesForRanges, toBase64 } from "@rye/core";
import type { Prisma } from "@rye/db";
import { entryLeaf, storedNodeReader, storedTreeSize, tileCacheOf } from "./log-tree.ts";
import { Lru } from "./pull-cache.ts";

type Tx = Prisma.TransactionClient;

/** Proofs a process keeps (about 1 KiB each at a million entries): at most this many and PROOF_CACHE_BYTES. */
export const PROOF_CACHE_ENTRIES = 4096;
export const PROOF_CACHE_BYTES = 8 * 1024 * 1024;

const proofCaches = new WeakMap<object, Lru<{ leaf: string; proof: string[] }>>();

/** The proof cache of `prisma`'s process-wide client; none for a transaction or when its tile cache is off. */
function proofCacheOf(prisma: Tx): Lru<{ leaf: string; proof: string[] }> | undefined {
  const tiles = tileCacheOf(prisma);
  if (!tiles || tiles.maxTiles === 0) return undefined;
  let cache = proofCaches.get(tiles);
  if (!cache) proofCaches.set(tiles, (cache = new Lru({ maxEntries: PROOF_CACHE_ENTRIES, maxBytes: PROOF_CACHE_BYTES })));
  return cache;
}

const proofBytes = (p: { leaf: string; proof: string[] }) => p.leaf.length + p.proof.reduce((n, h) => n + h.length, 0);

export const PROOF_HINT = "Ask for sizes up to the tree size of the latest checkpoint (GET /v1/tlog/checkpoint).";

async function beyondLog(prisma: Tx, what: string, treeSize: number): Promise<RyeError> {
  return new RyeError("BAD_REQUEST", `${what} ${treeSize} is beyond the log's ${await storedTreeSize(prisma)} entries`, { hint: PROOF_HINT });
}

function checkSize(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RyeError("BAD_REQUEST", `${what} ${value} is not a whole number in [0, 2^53)`, { hint: PROOF_HINT });
}

/**
 * The hashes of `ranges` in the tree of `treeSize` leaves. A tree larger than the stored one lacks a hash every
 * non-empty proof needs (the last leaf is in one of its ranges), so that is found without asking for the tree size.
 */
async function proofHashes(prisma: Tx, ranges: Range[], treeSize: number, what: string): Promise<string[]> {
  if (ranges.length === 0) {
    if (treeSize > (await storedTreeSize(prisma))) throw await beyondLog(prisma, what, treeSize);
    return [];
  }
  const read = await storedNodeReader(prisma, tilesForRanges(ranges));
  try {
    return ranges.map((r) => toBase64(subtreeHash(r, read)));
  } catch (err) {
    if (err instanceof RangeError) throw await beyondLog(prisma, what, treeSize);
    throw err;
  }
}

/** Entry `index`'s leaf bytes and its audit path in the tree of `treeSize` leaves (base64). */
export async function inclusionProofFor(prisma: Tx, index: number, treeSize: number): Promise<{ leaf: string; proof: string[] }> {
  checkSize(index, "index");
  checkSize(treeSize, "tree_size");
  if (index >= treeSize) throw new RyeError("BAD_REQUEST", `index ${index} is not in a tree of size ${treeSize}`, { hint: "index must be smaller than tree_size." });
  const cache = proofCacheOf(prisma);
  const cacheKey = `i/${index}/${treeSize}`;
  const hit = cache?.get(cacheKey);
  if (hit) return { leaf: hit.leaf, proof: [...hit.proof] };
  const [row, proof] = await Promise.all([
    prisma.publishLogEntry.findUnique({ where: { index: BigInt(index) }, select: { kind: true, payload: true } }),
    proofHashes(prisma, inclusionProofRanges(index, treeSize), treeSize, "tree_size"),
  ]);
  if (!row) throw await beyondLog(prisma, "tree_size", treeSize);
  const answer = { leaf: toBase64(entryLeaf({ index, kind: row.kind, payload: row.payload })), proof };
  cache?.set(cacheKey, answer, proofBytes(answer));
  return { leaf: answer.leaf, proof: [...proof] };
}

/** The proof that the tree of `from` leaves is a prefix of the tree of `to` leaves (base64). */
export async function consistencyProofFor(prisma: Tx, from: number, to: number): Promise<string[]> {
  checkSize(from, "from");
  checkSize(to, "to");
  if (from > to) throw new RyeError("BAD_REQUEST", `from ${from} is larger than to ${to}`, { hint: "from is the older (smaller) tree size." });
  const cache = proofCacheOf(prisma);
  const cacheKey = `c/${from}/${to}`;
  const hit = cache?.get(cacheKey);
  if (hit) return [...hit.proof];
  const proof = await proofHashes(prisma, consistencyProofRanges(from, to), to, "to");
  const answer = { leaf: "", proof };
  cache?.set(cacheKey, answer, proofBytes(answer));
  return [...proof];
}
