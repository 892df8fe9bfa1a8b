/**
 * The Merkle tree stored and served as C2SP tlog-tiles of height 8: the tile at level L, index N holds the hashes
 * of tree level 8·L with indexes [256·N, 256·N + W), W ≤ 256 (a partial tile while the tree grows); every other
 * hash is computed from a tile. Paths: `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`, N written in
 * 3-digit groups, every group but the last prefixed with `x` (1234067 → x001/x234/067).
 */
import { HASH_SIZE, type NodeReader, nodeHash, perfectSubtrees, type Range } from "./merkle.ts";

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;
/** Tree levels are below 64 (2^53 leaves need 53), so tile levels are below 8. */
export const MAX_TILE_LEVEL = 7;
/** An entry bundle frames each entry with a 16-bit length. */
export const MAX_ENTRY_BYTES = 0xffff;

export interface TileId {
  level: number;
  index: number;
}

/** The tile (and offset in it) that holds the hashes a perfect node is computed from. */
function tileSpan(level: number, index: number): { tile: TileId; offset: number; count: number } {
  const tileLevel = Math.floor(level / TILE_HEIGHT);
  const span = 2 ** (level - tileLevel * TILE_HEIGHT);
  const first = index * span;
  return { tile: { level: tileLevel, index: Math.floor(first / TILE_WIDTH) }, offset: first % TILE_WIDTH, count: span };
}

/** The root of 2^k consecutive hashes of one level (a perfect subtree). */
export function perfectRoot(hashes: Uint8Array, offset: number, count: number): Uint8Array {
  let level: Uint8Array[] = [];
  for (let i = 0; i < count; i++) level.push(hashes.subarray((offset + i) * HASH_SIZE, (offset + i + 1) * HASH_SIZE));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!;
}

const tileKey = (t: TileId) => `${t.level}/${t.index}`;

/** Every tile needed to hash `ranges` (deduplicated). */
export function tilesForRanges(ranges: readonly Range[]): TileId[] {
  const tiles = new Map<string, TileId>();
  for (const range of ranges) {
    for (const node of perfectSubtrees(range)) {
      const { tile } = tileSpan(node.level, node.index);
      tiles.set(tileKey(tile), tile);
    }
  }
  return [...tiles.values()];
}

/** An expanded tile's hash count: the 256 hashes of a full tile, then each level of the subtree above them. */
export const EXPANDED_TILE_HASHES = 2 * TILE_WIDTH - 1;

/**
 * A full tile with every node of its subtree hashed once (255 hashes): level k of the subtree (k = 0 … 8, 2^(8−k)
 * hashes) starts at hash 512 − 2^(9−k). tileNodeReader reads any node of an expanded tile without hashing, so a
 * server that keeps full tiles this way builds a proof from lookups (a node inside a plain tile costs up to 255).
 */
export function expandTile(hashes: Uint8Array): Uint8Array {
  if (hashes.length !== TILE_WIDTH * HASH_SIZE) throw new RangeError(`only a full tile (${TILE_WIDTH} hashes) expands, not ${hashes.length / HASH_SIZE}`);
  const out = new Uint8Array(EXPANDED_TILE_HASHES * HASH_SIZE);
  out.set(hashes);
  let from = 0;
  let to = TILE_WIDTH;
  for (let width = TILE_WIDTH / 2; width >= 1; width /= 2) {
    for (let i = 0; i < width; i++) {
      const left = out.subarray((from + 2 * i) * HASH_SIZE, (from + 2 * i + 1) * HASH_SIZE);
      const right = out.subarray((from + 2 * i + 1) * HASH_SIZE, (from + 2 * i + 2) * HASH_SIZE);
      out.set(nodeHash(left, right), (to + i) * HASH_SIZE);
    }
    from = to;
    to += width;
  }
  return out;
}

/**
 * A NodeReader over fetched tiles (each the concatenated hashes of one tile, or a full tile expanded by expandTile);
 * throws for a tile or hash it lacks.
 */
export function tileNodeReader(tiles: ReadonlyMap<string, Uint8Array> | ((tile: TileId) => Uint8Array | undefined)): NodeReader {
  const get = typeof tiles === "function" ? tiles : (t: TileId) => tiles.get(tileKey(t));
  return (level, index) => {
    const { tile, offset, count } = tileSpan(level, index);
    const hashes = get(tile);
    if (hashes?.length === EXPANDED_TILE_HASHES * HASH_SIZE) {
      const at = 2 * TILE_WIDTH - (2 * TILE_WIDTH) / count + offset / count;
      return hashes.slice(at * HASH_SIZE, (at + 1) * HASH_SIZE);
    }
    if (!hashes || hashes.length < (offset + count) * HASH_SIZE) throw new RangeError(`tile ${tileKey(tile)} lacks node (${level}, ${index})`);
    return count === 1 ? hashes.slice(offset * HASH_SIZE, (offset + 1) * HASH_SIZE) : perfectRoot(hashes, offset, count);
  };
}

export function tileMap(rows: Iterable<{ level: number; index: number; hashes: Uint8Array }>): Map<string, Uint8Array> {
  const map = new Map<string, Uint8Array>();
  for (const row of rows) map.set(tileKey(row), row.hashes);
  return map;
}

/** The tiles whose last hash appending leaf `n` writes (they become full, so their root goes one tile level up). */
export function tilesCompletedBy(n: number): TileId[] {
  const done: TileId[] = [];
  let position = n; // index of the hash appended at this tile level
  for (let level = 0; level <= MAX_TILE_LEVEL; level++) {
    if (position % TILE_WIDTH !== TILE_WIDTH - 1) break;
    done.push({ level, index: Math.floor(position / TILE_WIDTH) });
    position = Math.floor(position / TILE_WIDTH);
  }
  return done;
}

export interface TileAppend {
  tile: TileId;
  /** The hash's position in the tile: the tile must hold exactly `offset` hashes before it. */
  offset: number;
  hash: Uint8Array;
}

/**
 * The hashes appending leaf `n` (leaf hash `leaf`) adds: the leaf hash to its level-0 tile, and the root of each tile
 * it completes to the tile one level up. `completed` reads a completed tile's hashes before this append.
 */
export function tileAppendsFor(n: number, leaf: Uint8Array, completed: (tile: TileId) => Uint8Array | undefined): TileAppend[] {
  const appends: TileAppend[] = [{ tile: { level: 0, index: Math.floor(n / TILE_WIDTH) }, offset: n % TILE_WIDTH, hash: leaf }];
  let hash = leaf;
  for (const tile of tilesCompletedBy(n)) {
    const before = completed(tile);
    if (!before || before.length !== (TILE_WIDTH - 1) * HASH_SIZE) throw new RangeError(`tile ${tileKey(tile)} does not hold ${TILE_WIDTH - 1} hashes before it completes`);
    const full = new Uint8Array(TILE_WIDTH * HASH_SIZE);
    full.set(before);
    full.set(hash, (TILE_WIDTH - 1) * HASH_SIZE);
    hash = perfectRoot(full, 0, TILE_WIDTH);
    appends.push({ tile: { level: tile.level + 1, index: Math.floor(tile.index / TILE_WIDTH) }, offset: tile.index % TILE_WIDTH, hash });
  }
  return appends;
}

/** How many hashes the tile holds in a tree of `size` leaves (0: none yet; TILE_WIDTH: full). */
export function tileWidthAt(tile: TileId, size: number): number {
  const hashesAtLevel = Math.floor(size / TILE_WIDTH ** tile.level);
  return Math.max(0, Math.min(TILE_WIDTH, hashesAtLevel - tile.index * TILE_WIDTH));
}

/** `1234067` → `x001/x234/067`. */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index} is not a non-negative integer`);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, "0"));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

/** `tile/<L>/<N>[.p/<W>]`, or `tile/entries/<N>[.p/<W>]` for level "entries". */
export function tilePath(level: number | "entries", index: number, width: number = TILE_WIDTH): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError(`tile width ${width} is not in [1, ${TILE_WIDTH}]`);
  return `tile/${level}/${encodeTileIndex(index)}${width < TILE_WIDTH ? `.p/${width}` : ""}`;
}

export type TilePathError = "level" | "index" | "width";

/**
 * Parses what follows `tile/`: `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`. Strict: exactly the encoding tilePath
 * writes (so each tile has one URL, which caches rely on), indexes up to MAX_SAFE_INTEGER, widths 1..255 when partial.
 */
export function parseTilePath(path: string): { ok: true; level: number | "entries"; index: number; width: number } | { ok: false; error: TilePathError } {
  const parts = path.split("/");
  const levelText = parts.shift() ?? "";
  let level: number | "entries";
  if (levelText === "entries") level = "entries";
  else if (/^[0-9]$/.test(levelText) && Number(levelText) <= MAX_TILE_LEVEL) level = Number(levelText);
  else return { ok: false, error: "level" };
  let width = TILE_WIDTH;
  const p = parts.indexOf("");
  if (p !== -1) return { ok: false, error: "index" };
  if (parts.length >= 2 && parts.at(-2)!.endsWith(".p")) {
    const w = parts.pop()!;
    if (!/^[1-9][0-9]{0,2}$/.test(w) || Number(w) >= TILE_WIDTH) return { ok: false, error: "width" };
    width = Number(w);
    parts[parts.length - 1] = parts.at(-1)!.slice(0, -2);
  }
  if (parts.length === 0 || parts.length > 6) return { ok: false, error: "index" };
  let index = 0;
  for (const [i, group] of parts.entries()) {
    const last = i === parts.length - 1;
    if (!(last ? /^[0-9]{3}$/ : /^x[0-9]{3}$/).test(group)) return { ok: false, error: "index" };
    index = index * 1000 + Number(last ? group : group.slice(1));
  }
  if (!Number.isSafeInteger(index) || encodeTileIndex(index) !== parts.join("/")) return { ok: false, error: "index" };
  return { ok: true, level, index, width };
}

/** An entry bundle: each entry as a big-endian uint16 length and its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new RangeError(`a log entry of ${e.length} bytes exceeds ${MAX_ENTRY_BYTES}`);
    total += 2 + e.length;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const e of entries) {
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/** The entries of a bundle, or null when it is not a sequence of length-prefixed entries. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] | null {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.length) {
    if (at + 2 > bundle.length) return null;
    const length = (bundle[at]! << 8) | bundle[at + 1]!;
    if (at + 2 + length > bundle.length) return null;
    entries.push(bundle.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
