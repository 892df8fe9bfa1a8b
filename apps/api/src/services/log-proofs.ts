/**
 * Inclusion and consistency proofs of the publish log's Merkle tree, built from its tiles (log-tree.ts: full tiles
 * from the process's cache, partial ones from the database): what GET /v1/tlog/proof/* answers and what the pull
 * path attaches to an answer. Hashes are standard base64, as the routes serve them.
 */
import { consistencyProofRanges, inclusionProofRanges, type Range, RyeError, subtreeHash, tileNodeReader, tilesForRanges, toBase64 } from "@rye/core";
import type { Prisma } from "@rye/db";
import { entryLeaf, readTiles, storedTreeSize } from "./log-tree.ts";

type Tx = Prisma.TransactionClient;

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
  const read = tileNodeReader(await readTiles(prisma, tilesForRanges(ranges)));
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
  const [row, proof] = await Promise.all([
    prisma.publishLogEntry.findUnique({ where: { index: BigInt(index) }, select: { kind: true, payload: true } }),
    proofHashes(prisma, inclusionProofRanges(index, treeSize), treeSize, "tree_size"),
  ]);
  if (!row) throw await beyondLog(prisma, "tree_size", treeSize);
  return { leaf: toBase64(entryLeaf({ index, kind: row.kind, payload: row.payload })), proof };
}

/** The proof that the tree of `from` leaves is a prefix of the tree of `to` leaves (base64). */
export async function consistencyProofFor(prisma: Tx, from: number, to: number): Promise<string[]> {
  checkSize(from, "from");
  checkSize(to, "to");
  if (from > to) throw new RyeError("BAD_REQUEST", `from ${from} is larger than to ${to}`, { hint: "from is the older (smaller) tree size." });
  return proofHashes(prisma, consistencyProofRanges(from, to), to, "to");
}
