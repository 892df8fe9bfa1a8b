/**
 * Inclusion and consistency proofs of the publish log's Merkle tree, built from its tiles (log-tree.ts: full tiles
 * from the process's cache, partial ones from the database): what GET /v1/tlog/proof/* answers and what the pull
 * path attaches to an answer. Hashes are standard base64, as the routes serve them.
 *
 * A proof depends only on the tree's first `tree_size` leaves, which never change, so a process keeps the proofs it
 * built (PROOF_CACHE_ENTRIES, least recently used out) next to its tile cache: the pull path asks for the same
 * entry at the same checkpoint over and over. A transaction's client, or a process without a tile cache, keeps none.
 *
 * Building a proof the process does not keep reads PostgreSQL and hashes; at most PROOF_BUILDS_AT_ONCE run at once
 * per process (build-limit.ts), a pull's own first, those asked on their own at most PROOF_BUILDS_PER_SECOND a second,
 * and concurrent requests for the same proof share one build, so a flood of proofs of random entries waits its turn
 * instead of holding the database pool and the event loop (and the machine's CPU) from every other request.
 */
import { consistencyProofRanges, inclusionProofRanges, type Range, RyeError, subtreeHash, tilesForRanges, toBase64 } from "@rye/core";
import type { Prisma } from "@rye/db";
import { BuildLimit } from "./build-limit.ts";
import { entryLeaf, storedNodeReader, storedTreeSize, tileCacheOf } from "./log-tree.ts";
import { Lru } from "./pull-cache.ts";

type Tx = Prisma.TransactionClient;

/** Proofs a process keeps (about 1 KiB each at a million entries): at most this many and PROOF_CACHE_BYTES. */
export const PROOF_CACHE_ENTRIES = 4096;
export const PROOF_CACHE_BYTES = 8 * 1024 * 1024;
/**
 * Proof builds a process runs at once, and how many more may wait (beyond: 503 UNAVAILABLE). One: a build is mostly
 * this process's CPU (up to 255 SHA-256 per uncached tile, the rows decoded), which every other request shares; a
 * second one at once built proofs of random entries ~1.5× faster and left a cached pull beside them ~1.4× slower.
 * A pull's own proof is urgent: it waits ahead of proofs asked on their own (monitors, auditors).
 */
export const PROOF_BUILDS_AT_ONCE = 1;
export const PROOF_BUILDS_WAITING = 256;
/**
 * Proofs asked on their own that a process starts building per second, by default (RYE_TLOG_PROOF_RATE; 0: no cap).
 * One build at a time still ran them back to back, 100–200 a second at 1 000 000 entries, each 3–9 ms of this
 * process's CPU: on two cores a cached pull beside 25 connections of them had a p99 of 41–203 ms. At 50 a second
 * it was 17–25 ms (docs/benchmarks.md, "Where the pull waits beside proofs"). Callers past the cap wait (up to
 * PROOF_BUILDS_WAITING, then 503 with Retry-After); monitors read tiles, and a proof is cacheable for a year.
 */
export const PROOF_BUILDS_PER_SECOND = 50;

interface Proof {
  leaf: string;
  proof: string[];
}

interface ProofState {
  /** None when the tile cache is off. */
  cache: Lru<Proof> | undefined;
  building: Map<string, Promise<Proof>>;
  limit: BuildLimit;
}

const proofStates = new WeakMap<object, ProofState>();
const proofRates = new WeakMap<object, number>();

/**
 * How many proofs asked on their own `prisma`'s process starts building per second (0: no cap); before its first
 * proof (routes/tlog.ts, from RYE_TLOG_PROOF_RATE), or later for the builds that start after it. Unset:
 * PROOF_BUILDS_PER_SECOND.
 */
export function configureProofRate(prisma: Tx, perSecond: number): void {
  if (!Number.isFinite(perSecond) || perSecond < 0) throw new RangeError(`a proof rate is 0 (no cap) or more per second, not ${perSecond}`);
  proofRates.set(prisma, perSecond);
  const tiles = tileCacheOf(prisma);
  const state = tiles && proofStates.get(tiles);
  if (state) state.limit.perSecond = perSecond;
}

/** The proof cache and build limit of `prisma`'s process-wide client; none for a transaction's client. */
function proofStateOf(prisma: Tx): ProofState | undefined {
  const tiles = tileCacheOf(prisma);
  if (!tiles) return undefined;
  let state = proofStates.get(tiles);
  if (!state) {
    state = {
      cache: tiles.maxTiles === 0 ? undefined : new Lru({ maxEntries: PROOF_CACHE_ENTRIES, maxBytes: PROOF_CACHE_BYTES }),
      building: new Map(),
      limit: new BuildLimit(PROOF_BUILDS_AT_ONCE, PROOF_BUILDS_WAITING, "proof builds", proofRates.get(prisma) ?? PROOF_BUILDS_PER_SECOND),
    };
    proofStates.set(tiles, state);
  }
  return state;
}

/** The proof kept under `key`, or the one being built, or a new build (limited, then kept). Shared: copy its array. */
function keptOrBuilt(prisma: Tx, key: string, build: () => Promise<Proof>, urgent: boolean): Promise<Proof> {
  const state = proofStateOf(prisma);
  if (!state) return build();
  const hit = state.cache?.get(key);
  if (hit) return Promise.resolve(hit);
  let pending = state.building.get(key);
  if (!pending) {
    pending = state.limit
      .run(build, { urgent })
      .then((answer) => {
        state.cache?.set(key, answer, proofBytes(answer));
        return answer;
      })
      .finally(() => state.building.delete(key));
    state.building.set(key, pending);
  }
  return pending;
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
 * The partial tiles at the log's edge are first taken as this process last read them (most proofs are of a tree
 * size they already cover), and read again only when one is too short.
 */
async function proofHashes(prisma: Tx, ranges: Range[], treeSize: number, what: string): Promise<string[]> {
  if (ranges.length === 0) {
    if (treeSize > (await storedTreeSize(prisma))) throw await beyondLog(prisma, what, treeSize);
    return [];
  }
  const tiles = tilesForRanges(ranges);
  for (const partials of [true, false]) {
    const read = await storedNodeReader(prisma, tiles, { partials });
    try {
      return ranges.map((r) => toBase64(subtreeHash(r, read)));
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  throw await beyondLog(prisma, what, treeSize);
}

/** What a proof is for: `urgent` for a pull's own (built ahead of proofs asked on their own). */
export interface ProofOptions {
  urgent?: boolean;
}

/** Entry `index`'s leaf bytes and its audit path in the tree of `treeSize` leaves (base64). */
export async function inclusionProofFor(prisma: Tx, index: number, treeSize: number, options: ProofOptions = {}): Promise<{ leaf: string; proof: string[] }> {
  checkSize(index, "index");
  checkSize(treeSize, "tree_size");
  if (index >= treeSize) throw new RyeError("BAD_REQUEST", `index ${index} is not in a tree of size ${treeSize}`, { hint: "index must be smaller than tree_size." });
  const answer = await keptOrBuilt(prisma, `i/${index}/${treeSize}`, async () => {
    const [row, proof] = await Promise.all([
      prisma.publishLogEntry.findUnique({ where: { index: BigInt(index) }, select: { kind: true, payload: true } }),
      proofHashes(prisma, inclusionProofRanges(index, treeSize), treeSize, "tree_size"),
    ]);
    if (!row) throw await beyondLog(prisma, "tree_size", treeSize);
    return { leaf: toBase64(entryLeaf({ index, kind: row.kind, payload: row.payload })), proof };
  }, options.urgent ?? false);
  return { leaf: answer.leaf, proof: [...answer.proof] };
}

/** The proof that the tree of `from` leaves is a prefix of the tree of `to` leaves (base64). */
export async function consistencyProofFor(prisma: Tx, from: number, to: number, options: ProofOptions = {}): Promise<string[]> {
  checkSize(from, "from");
  checkSize(to, "to");
  if (from > to) throw new RyeError("BAD_REQUEST", `from ${from} is larger than to ${to}`, { hint: "from is the older (smaller) tree size." });
  const answer = await keptOrBuilt(prisma, `c/${from}/${to}`, async () => ({ leaf: "", proof: await proofHashes(prisma, consistencyProofRanges(from, to), to, "to") }), options.urgent ?? false);
  return [...answer.proof];
}
