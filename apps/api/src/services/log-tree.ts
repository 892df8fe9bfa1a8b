/**
 * The publish log's RFC 6962 Merkle tree, stored as C2SP tlog-tiles (height 8) in `tlog_tiles` and appended inside
 * the log append's transaction, under its advisory lock (publish-log.ts): one writer at a time across processes, and a
 * tile row is written only if it still holds the hashes this writer read, so two replicas can never disagree on a tile.
 *
 * Logs older than the tree are caught up in place (`catchUpTree`: on start, and by the first append that finds the
 * tree behind), leaf by leaf from the stored entries: idempotent, as it starts where the tiles end.
 *
 * Reads of full tiles (256 hashes: they never change once written) go through an in-process LRU cache per database
 * client; partial tiles, which grow, are always read from the database, so replicas sharing it stay in step.
 */
import { emptyTreeHash, encodeEntryBundle, EXPANDED_TILE_HASHES, expandTile, HASH_SIZE, leafHash, logLeaf, MAX_ENTRY_BYTES, type NodeReader, RyeError, type TileAppend, tileAppendsFor, type TileId, tileNodeReader, tilesCompletedBy, tilesForRanges, TILE_HEIGHT, TILE_WIDTH, treeHash } from "@rye/core";
import type { Database, Prisma } from "@rye/db";
import { Lru } from "./pull-cache.ts";

type Tx = Prisma.TransactionClient;

export interface LeafEntry {
  index: number;
  kind: string;
  payload: unknown;
}

/** The last level-0 tile (null when the tree is empty) and the tree size it implies. */
async function lastLeafTile(prisma: Tx): Promise<{ size: number; tile: { index: number; hashes: Uint8Array } | null }> {
  const last = await prisma.tlogTile.findFirst({ where: { level: 0 }, orderBy: { index: "desc" }, select: { index: true, hashes: true } });
  if (!last) return { size: 0, tile: null };
  return { size: Number(last.index) * TILE_WIDTH + last.hashes.length / HASH_SIZE, tile: { index: Number(last.index), hashes: new Uint8Array(last.hashes) } };
}

/** How many leaves the stored tree holds: the hashes of the last level-0 tile. */
export async function storedTreeSize(prisma: Tx): Promise<number> {
  return (await lastLeafTile(prisma)).size;
}

/** The leaf of an entry, refused when it cannot be framed in an entry bundle. */
export function entryLeaf(entry: LeafEntry): Uint8Array {
  const leaf = logLeaf(entry);
  if (leaf.length > MAX_ENTRY_BYTES) {
    throw new RyeError("PAYLOAD_TOO_LARGE", `Log entry ${entry.index} is ${leaf.length} bytes; a transparency-log entry holds at most ${MAX_ENTRY_BYTES}`);
  }
  return leaf;
}

const key = (t: TileId | { level: "entries"; index: number }) => `${t.level}/${t.index}`;

/**
 * Appends `entries` (consecutive, starting at the stored tree's size) to the tiles. The caller holds the log lock.
 * Each written tile is guarded by its previous length, so a writer that did not hold the lock fails instead of forking.
 */
export async function appendLeaves(tx: Tx, start: number, entries: readonly LeafEntry[], lastLeaf?: { index: number; hashes: Uint8Array } | null): Promise<void> {
  if (entries.length === 0) return;
  const touched = new Map<string, { tile: TileId; before: number; hashes: Uint8Array }>();
  // The level-0 tile the caller just read (syncTreeTo) need not be read again.
  if (lastLeaf) touched.set(key({ level: 0, index: lastLeaf.index }), { tile: { level: 0, index: lastLeaf.index }, before: lastLeaf.hashes.length, hashes: lastLeaf.hashes });
  const load = async (tile: TileId) => {
    const k = key(tile);
    let slot = touched.get(k);
    if (!slot) {
      const row = await tx.tlogTile.findUnique({ where: { level_index: { level: tile.level, index: BigInt(tile.index) } }, select: { hashes: true } });
      const hashes = row ? new Uint8Array(row.hashes) : new Uint8Array(0);
      slot = { tile, before: hashes.length, hashes };
      touched.set(k, slot);
    }
    return slot;
  };
  for (const [i, entry] of entries.entries()) {
    const n = start + i;
    if (entry.index !== n) throw new RyeError("INTERNAL", `Log entry ${entry.index} appended to the tree at leaf ${n}`);
    for (const tile of tilesCompletedBy(n)) await load(tile);
    await load({ level: 0, index: Math.floor(n / TILE_WIDTH) });
    const appends: TileAppend[] = tileAppendsFor(n, leafHash(entryLeaf(entry)), (t) => touched.get(key(t))?.hashes);
    for (const a of appends) {
      const slot = await load(a.tile);
      if (slot.hashes.length !== a.offset * HASH_SIZE) {
        throw new RyeError("INTERNAL", `Tile ${key(a.tile)} holds ${slot.hashes.length / HASH_SIZE} hashes, expected ${a.offset} before leaf ${n}`);
      }
      const next = new Uint8Array(slot.hashes.length + HASH_SIZE);
      next.set(slot.hashes);
      next.set(a.hash, slot.hashes.length);
      slot.hashes = next;
    }
  }
  for (const { tile, before, hashes } of touched.values()) {
    if (hashes.length === before) continue;
    const written = await tx.$executeRaw`
      INSERT INTO tlog_tiles (level, "index", hashes) VALUES (${tile.level}, ${BigInt(tile.index)}, ${Buffer.from(hashes)})
      ON CONFLICT (level, "index") DO UPDATE SET hashes = EXCLUDED.hashes WHERE octet_length(tlog_tiles.hashes) = ${before}`;
    if (written !== 1) throw new RyeError("INTERNAL", `Tile ${key(tile)} changed under the log lock`);
  }
}

/**
 * Brings the tree up to the entries [0, upTo) already in the log; the caller holds the log lock. Returns the size and,
 * when nothing had to be added, the last level-0 tile as read (for the caller's next appendLeaves).
 */
export async function syncTreeTo(tx: Tx, upTo: number, batch = 1000): Promise<{ size: number; lastLeaf: { index: number; hashes: Uint8Array } | null }> {
  const last = await lastLeafTile(tx);
  let size = last.size;
  if (size === upTo) return { size, lastLeaf: last.tile };
  if (size > upTo) throw new RyeError("INTERNAL", `The Merkle tree holds ${size} leaves and the log ${upTo} entries`);
  while (size < upTo) {
    const rows = await tx.publishLogEntry.findMany({
      where: { index: { gte: BigInt(size), lt: BigInt(Math.min(upTo, size + batch)) } },
      orderBy: { index: "asc" },
      select: { index: true, kind: true, payload: true },
    });
    if (rows.length === 0) throw new RyeError("INTERNAL", `Log entry ${size} is missing`);
    await appendLeaves(tx, size, rows.map((r) => ({ index: Number(r.index), kind: r.kind, payload: r.payload })));
    size += rows.length;
  }
  return { size, lastLeaf: null };
}

/** Catches the tree up with the whole log, a batch per transaction (so a large log does not hold the lock long). */
export async function catchUpTree(db: Database, lockId: number, batch = 1000): Promise<number> {
  let added = 0;
  for (;;) {
    const step = await db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${lockId})`);
        const head = await tx.publishLogEntry.findFirst({ orderBy: { index: "desc" }, select: { index: true } });
        const logSize = head ? Number(head.index) + 1 : 0;
        const before = await storedTreeSize(tx);
        const after = (await syncTreeTo(tx, Math.min(logSize, before + batch), batch)).size;
        return { added: after - before, done: after >= logSize };
      },
      { timeout: 60_000 },
    );
    added += step.added;
    if (step.done) return added;
  }
}

/** True when the stored tree lacks entries of the log (the preparation's check). */
export async function treeBehind(db: Database): Promise<boolean> {
  const head = await db.prisma.publishLogEntry.findFirst({ orderBy: { index: "desc" }, select: { index: true } });
  return (head ? Number(head.index) + 1 : 0) > (await storedTreeSize(db.prisma));
}

/** The bytes of a full tile, and of one kept with its inner nodes (expandTile). */
export const FULL_TILE_BYTES = TILE_WIDTH * HASH_SIZE;
export const EXPANDED_TILE_BYTES = EXPANDED_TILE_HASHES * HASH_SIZE;
/** Full tiles a process keeps when nothing configured it (RYE_TLOG_TILE_CACHE): at most 16 MiB. */
export const DEFAULT_TILE_CACHE_TILES = 1024;

/**
 * Full tiles by `level/index` (once a proof used one, with its inner nodes: 16 KiB) and full entry bundles by
 * `entries/index`, least recently used first out: at most `maxTiles` of them and `maxTiles` expanded tiles' worth of
 * bytes (a bundle counts its own size). Hit and miss counts for tests and benches.
 */
export class FullTileCache {
  hits = 0;
  misses = 0;
  private readonly lru: Lru<Uint8Array> | null;

  constructor(readonly maxTiles: number) {
    if (!Number.isSafeInteger(maxTiles) || maxTiles < 0) throw new RangeError(`a tile cache holds a whole number of tiles, not ${maxTiles}`);
    this.lru = maxTiles === 0 ? null : new Lru({ maxEntries: maxTiles, maxBytes: maxTiles * EXPANDED_TILE_BYTES });
    this.nodes = maxTiles === 0 ? null : new Lru({ maxEntries: maxTiles * NODES_PER_TILE, maxBytes: maxTiles * NODES_PER_TILE * HASH_SIZE });
  }

  /** A full tile's hashes (expanded when a proof used it) or a full entry bundle. */
  get(tile: TileId | { level: "entries"; index: number }): Uint8Array | undefined {
    const hit = this.lru?.get(key(tile));
    if (hit) this.hits++;
    else this.misses++;
    return hit;
  }

  /** Keeps `hashes` if they make a full tile; a partial one is never kept. */
  offer(tile: TileId, hashes: Uint8Array): void {
    if (hashes.length === FULL_TILE_BYTES) this.lru?.set(key(tile), hashes, FULL_TILE_BYTES);
  }

  /** The full tile `hashes` with its inner nodes, hashed once and kept in place of the plain tile. */
  expand(tile: TileId, hashes: Uint8Array): Uint8Array {
    if (hashes.length === EXPANDED_TILE_BYTES) return hashes;
    const expanded = expandTile(hashes);
    this.lru?.set(key(tile), expanded, EXPANDED_TILE_BYTES);
    return expanded;
  }

  /** Keeps the bundle of entries [256·index, 256·index + 256), which the caller read whole. */
  offerBundle(index: number, bundle: Uint8Array): void {
    this.lru?.set(key({ level: "entries", index }), bundle, bundle.length);
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  /**
   * The widest partial tile read so far per level (a tile only grows: its first hashes never change, so what a read
   * returned is a valid prefix for good). Only the log's right edge has partial tiles: one per level at most.
   */
  private readonly partials = new Map<number | "entries", { index: number; hashes: Uint8Array }>();

  /** The widest partial tile read so far, when it is still `tile`'s (null while the cache is off). */
  partial(tile: TileId): Uint8Array | undefined {
    if (!this.lru) return undefined;
    const kept = this.partials.get(tile.level);
    return kept?.index === tile.index ? kept.hashes : undefined;
  }

  /** Keeps a partial tile just read, unless a wider one of it (or a later tile of its level) is kept. */
  keepPartial(tile: TileId, hashes: Uint8Array): void {
    if (!this.lru || hashes.length === 0 || hashes.length >= FULL_TILE_BYTES) return;
    const kept = this.partials.get(tile.level);
    if (kept && (kept.index > tile.index || (kept.index === tile.index && kept.hashes.length >= hashes.length))) return;
    this.partials.set(tile.level, { index: tile.index, hashes });
  }

  /** Hashes of perfect subtrees computed from stored hashes (they never change: a tile only grows). */
  private readonly nodes: Lru<Uint8Array> | null;

  node(level: number, index: number): Uint8Array | undefined {
    return this.nodes?.get(`${level}/${index}`);
  }

  keepNode(level: number, index: number, hash: Uint8Array): void {
    this.nodes?.set(`${level}/${index}`, hash, HASH_SIZE);
  }

  get nodeCount(): number {
    return this.nodes?.size ?? 0;
  }
}

/** Computed nodes kept per cached tile's worth (32 bytes each): a proof needs about 20, most of them at the log's edge. */
const NODES_PER_TILE = 16;

const caches = new WeakMap<object, FullTileCache>();

/** Gives the database client `prisma` a tile cache of `maxTiles` full tiles (0: none), replacing the one it had. */
export function configureTileCache(prisma: object, maxTiles: number): FullTileCache {
  const cache = new FullTileCache(maxTiles);
  caches.set(prisma, cache);
  return cache;
}

/**
 * The tile cache of a database client; none for a transaction's client, whose reads include its own uncommitted
 * writes (a tile it completes may still roll back), so only what a plain client reads (committed) is ever cached.
 */
export function tileCacheOf(prisma: Tx): FullTileCache | undefined {
  // Prisma's transaction clients lack $connect (the root client's alone has it).
  if (typeof (prisma as { $connect?: unknown }).$connect !== "function") return undefined;
  return caches.get(prisma) ?? configureTileCache(prisma, DEFAULT_TILE_CACHE_TILES);
}

/**
 * The stored tiles among `tiles`, keyed for tileNodeReader: full ones from the cache when it has them (possibly
 * expanded: EXPANDED_TILE_BYTES long, the tile's hashes first). With `partials`, a partial tile read before is used
 * as it was then (a prefix of the tile now: enough for a proof of a tree size it covered; a caller that finds it too
 * short reads again without). Shared with the cache: do not change them.
 */
export async function readTiles(prisma: Tx, tiles: readonly TileId[], options: { partials?: boolean } = {}): Promise<Map<string, Uint8Array>> {
  const cache = tileCacheOf(prisma);
  const found = new Map<string, Uint8Array>();
  const missing: TileId[] = [];
  for (const t of tiles) {
    const hit = cache?.get(t) ?? (options.partials ? cache?.partial(t) : undefined);
    if (hit) found.set(key(t), hit);
    else missing.push(t);
  }
  if (missing.length === 0) return found;
  const rows = await prisma.tlogTile.findMany({ where: { OR: missing.map((t) => ({ level: t.level, index: BigInt(t.index) })) } });
  for (const row of rows) {
    const tile = { level: row.level, index: Number(row.index) };
    const hashes = new Uint8Array(row.hashes);
    cache?.offer(tile, hashes);
    cache?.keepPartial(tile, hashes);
    found.set(key(tile), hashes);
  }
  return found;
}

/** One stored tile's hashes (shared with the cache: do not change them), or null when the tree has none there yet. */
export async function readTile(prisma: Tx, tile: TileId): Promise<Uint8Array | null> {
  const hashes = (await readTiles(prisma, [tile])).get(key(tile));
  if (!hashes) return null;
  return hashes.length === EXPANDED_TILE_BYTES ? hashes.subarray(0, FULL_TILE_BYTES) : hashes;
}

/**
 * A NodeReader over the stored tiles `tiles` (tilesForRanges of what is to be hashed). With a cache, each full tile
 * is read with its inner nodes, hashed once per process instead of once per proof; a partial tile is hashed as read
 * (`partials`: as readTiles; the reader then throws a RangeError for a hash the kept partial lacks).
 */
export async function storedNodeReader(prisma: Tx, tiles: readonly TileId[], options: { partials?: boolean } = {}): Promise<NodeReader> {
  const cache = tileCacheOf(prisma);
  const found = await readTiles(prisma, tiles, options);
  const read = tileNodeReader((t) => {
    const hashes = found.get(key(t));
    if (!cache || hashes?.length !== FULL_TILE_BYTES) return hashes;
    const expanded = cache.expand(t, hashes);
    found.set(key(t), expanded);
    return expanded;
  });
  if (!cache) return read;
  // A node above a tile's stored level, hashed from a partial tile (at the log's edge, where every proof passes), is
  // as final as its leaves: kept, so the edge is not hashed again for each proof. The tile itself is still read.
  // A node inside a full tile is a lookup in the expanded tile, so it is not kept: keeping the ~15 such nodes of
  // every proof of a random entry churned the node cache (young objects promoted, then dropped: garbage
  // collection on the event loop every pull shares).
  return (level, index) => {
    const within = level % TILE_HEIGHT;
    if (within === 0) return read(level, index);
    const tile = { level: (level - within) / TILE_HEIGHT, index: Math.floor(index / 2 ** (TILE_HEIGHT - within)) };
    const bytes = found.get(key(tile))?.length;
    if (bytes === FULL_TILE_BYTES || bytes === EXPANDED_TILE_BYTES) return read(level, index);
    const kept = cache.node(level, index);
    if (kept) return kept;
    const hash = read(level, index);
    cache.keepNode(level, index, hash);
    return hash;
  };
}

/**
 * The entry bundle of entries [256·index, 256·index + width), or null when the log has fewer; a full one from the
 * cache when it has it (entries never change). Shared with the cache: do not change it.
 */
export async function readEntryBundle(prisma: Tx, index: number, width: number): Promise<Uint8Array | null> {
  const first = index * TILE_WIDTH;
  if (!Number.isSafeInteger(first + width)) return null;
  const cache = width === TILE_WIDTH ? tileCacheOf(prisma) : undefined;
  const hit = cache?.get({ level: "entries", index });
  if (hit) return hit;
  const rows = await prisma.publishLogEntry.findMany({
    where: { index: { gte: BigInt(first), lt: BigInt(first + width) } },
    orderBy: { index: "asc" },
    select: { index: true, kind: true, payload: true },
  });
  if (rows.length !== width) return null;
  const bundle = encodeEntryBundle(rows.map((r) => entryLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })));
  cache?.offerBundle(index, bundle);
  return bundle;
}

/** The root hash of the first `size` leaves, from the stored tiles. */
export async function treeRootAt(prisma: Tx, size: number): Promise<Uint8Array> {
  if (size === 0) return emptyTreeHash();
  return treeHash(size, await storedNodeReader(prisma, tilesForRanges([{ lo: 0, hi: size }])));
}
