import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { sha256Hex } from "../hash.ts";
import { fromHex, toHex, utf8Encode } from "../text.ts";
import {
  consistencyProof,
  emptyTreeHash,
  inclusionProof,
  leafHash,
  memoryNodeReader,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.ts";
import { decodeEntryBundle, encodeEntryBundle, encodeTileIndex, expandTile, parseTilePath, TILE_WIDTH, tileAppendsFor, tileMap, tileNodeReader, tilePath, tilesForRanges, tileWidthAt } from "./merkle-tiles.ts";
import { consistencyProofRanges, inclusionProofRanges } from "./merkle.ts";
import { logLeaf } from "./log.ts";

/**
 * Produced by Go's golang.org/x/mod/sumdb/tlog (tools/tlog-verify/vectors/main.go) over the leaves "leaf 0", "leaf 1", …:
 * tree hashes, audit paths, consistency proofs, and the SHA-256 of whole tiles of a 66 000-leaf tree.
 */
const GO = JSON.parse(readFileSync(new URL("./testdata/tlog-go-vectors.json", import.meta.url), "utf8")) as {
  roots: Record<string, string>;
  inclusion: { Index: number; Size: number; Proof: string[] | null }[];
  consistency: { From: number; To: number; Proof: string[] | null }[];
  big_size: number;
  big_root: string;
  big_tiles: Record<string, string>;
};

const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafHash(utf8Encode(`leaf ${i}`)));
const LEAVES = leaves(70);
const read = memoryNodeReader(LEAVES);

test("RFC 6962 test vectors (certificate-transparency's reference tree of 8 leaves)", () => {
  const data = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map((h) => leafHash(fromHex(h)));
  const roots = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  ];
  const r = memoryNodeReader(data);
  roots.forEach((root, i) => assert.equal(toHex(treeHash(i + 1, r)), root, `size ${i + 1}`));
  assert.equal(toHex(emptyTreeHash()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(toHex(treeHash(0, r)), toHex(emptyTreeHash()));
});

test("tree hashes match Go's tlog for every size up to 70", () => {
  for (const [size, root] of Object.entries(GO.roots)) assert.equal(toHex(treeHash(Number(size), read)), root, `size ${size}`);
});

test("audit paths match Go's tlog and verify; any change to leaf, index, path or root fails (the size is bound by the signed checkpoint)", () => {
  for (const v of GO.inclusion) {
    const proof = inclusionProof(v.Index, v.Size, read);
    assert.deepEqual(proof.map(toHex), v.Proof ?? [], `leaf ${v.Index} of ${v.Size}`);
    const root = fromHex(GO.roots[String(v.Size)]!);
    assert.ok(verifyInclusion(v.Index, v.Size, LEAVES[v.Index]!, proof, root));
    assert.ok(!verifyInclusion(v.Index, v.Size, leafHash(utf8Encode("another entry")), proof, root), "another leaf");
    if (v.Size > 1) {
      assert.ok(!verifyInclusion((v.Index + 1) % v.Size, v.Size, LEAVES[v.Index]!, proof, root), "another index");
      assert.ok(!verifyInclusion(v.Index, v.Size, LEAVES[v.Index]!, proof.slice(1), root), "a shortened path");
      const tampered = proof.map((h, i) => (i === 0 ? fromHex(sha256Hex(h)) : h));
      assert.ok(!verifyInclusion(v.Index, v.Size, LEAVES[v.Index]!, tampered, root), "a changed hash");
    }
    assert.ok(!verifyInclusion(v.Index, v.Size, LEAVES[v.Index]!, proof, fromHex(GO.roots[String(v.Size === 70 ? 69 : v.Size + 1)]!)), "another root");
  }
});

test("consistency proofs match Go's tlog and verify; a rewritten history fails", () => {
  for (const v of GO.consistency) {
    const proof = consistencyProof(v.From, v.To, read);
    assert.deepEqual(proof.map(toHex), v.Proof ?? [], `${v.From} → ${v.To}`);
    const from = fromHex(GO.roots[String(v.From)]!);
    const to = fromHex(GO.roots[String(v.To)]!);
    assert.ok(verifyConsistency(v.From, v.To, proof, from, to));
    assert.ok(!verifyConsistency(v.From, v.To, proof, to, to), "another old root");
    assert.ok(!verifyConsistency(v.From, v.To, proof, from, from), "another new root");
    assert.ok(!verifyConsistency(v.From, v.To, proof.slice(0, -1), from, to), "a shortened proof");
    // The same sizes over a different history (leaf 0 replaced): no proof from the honest tree links them.
    const forged = memoryNodeReader([leafHash(utf8Encode("forged")), ...LEAVES.slice(1)]);
    assert.ok(!verifyConsistency(v.From, v.To, proof, from, treeHash(v.To, forged)), "a rewritten history");
  }
  assert.ok(verifyConsistency(5, 5, [], fromHex(GO.roots["5"]!), fromHex(GO.roots["5"]!)));
  assert.ok(!verifyConsistency(5, 5, [], fromHex(GO.roots["5"]!), fromHex(GO.roots["6"]!)));
  assert.ok(!verifyConsistency(6, 5, [], fromHex(GO.roots["6"]!), fromHex(GO.roots["5"]!)));
});

test("proofs refuse impossible coordinates", () => {
  assert.throws(() => inclusionProofRanges(5, 5), RangeError);
  assert.throws(() => inclusionProofRanges(-1, 5), RangeError);
  assert.throws(() => consistencyProofRanges(6, 5), RangeError);
  assert.throws(() => treeHash(2 ** 53, read), RangeError);
  assert.ok(!verifyInclusion(0, 0, LEAVES[0]!, [], LEAVES[0]!));
  assert.ok(!verifyInclusion(2 ** 53, 2 ** 53 + 1, LEAVES[0]!, [], LEAVES[0]!));
});

/** Builds tiles by appending leaves one at a time, as the server does. */
function buildTiles(hashes: Uint8Array[]): Map<string, Uint8Array> {
  const tiles = new Map<string, Uint8Array>();
  hashes.forEach((leaf, n) => {
    for (const a of tileAppendsFor(n, leaf, (t) => tiles.get(`${t.level}/${t.index}`))) {
      const key = `${a.tile.level}/${a.tile.index}`;
      const before = tiles.get(key) ?? new Uint8Array(0);
      assert.equal(before.length, a.offset * 32, `tile ${key} before hash ${a.offset}`);
      const next = new Uint8Array(before.length + 32);
      next.set(before);
      next.set(a.hash, before.length);
      tiles.set(key, next);
    }
  });
  return tiles;
}

test("tiles appended leaf by leaf are Go's tiles, byte for byte, and answer every proof", () => {
  const big = leaves(GO.big_size);
  const tiles = buildTiles(big);
  for (const [id, sum] of Object.entries(GO.big_tiles)) {
    const [level, index, width] = id.split("/").map(Number) as [number, number, number];
    assert.equal(tileWidthAt({ level, index }, GO.big_size) >= width, true, id);
    assert.equal(sha256Hex(tiles.get(`${level}/${index}`)!.subarray(0, width * 32)), sum, `tile ${id}`);
  }
  const reader = tileNodeReader(tiles);
  assert.equal(toHex(treeHash(GO.big_size, reader)), GO.big_root);
  // Only the tiles listed are needed for a proof.
  const ranges = inclusionProofRanges(65_999, GO.big_size);
  const needed = tileMap(tilesForRanges(ranges).map((t) => ({ ...t, hashes: tiles.get(`${t.level}/${t.index}`)! })));
  assert.ok(needed.size <= 6, `${needed.size} tiles`);
  const proof = inclusionProof(65_999, GO.big_size, tileNodeReader(needed));
  assert.ok(verifyInclusion(65_999, GO.big_size, big[65_999]!, proof, fromHex(GO.big_root)));
  const small = treeHash(300, reader);
  assert.ok(verifyConsistency(300, GO.big_size, consistencyProof(300, GO.big_size, reader), small, fromHex(GO.big_root)));
});

test("full tiles expanded with their inner nodes answer every node and proof like the plain tiles (Go's root)", () => {
  const big = leaves(GO.big_size);
  const tiles = buildTiles(big);
  const expanded = new Map([...tiles].map(([k, h]) => [k, h.length === TILE_WIDTH * 32 ? expandTile(h) : h]));
  assert.ok([...expanded.values()].filter((h) => h.length === (2 * TILE_WIDTH - 1) * 32).length >= 257, "every full tile, level 0 and level 1");
  const plain = tileNodeReader(tiles);
  const fast = tileNodeReader(expanded);
  for (let level = 0; level <= 16; level++) {
    for (let index = 0; (index + 1) * 2 ** level <= GO.big_size; index += Math.max(1, Math.floor(GO.big_size / 2 ** level / 40))) {
      assert.equal(toHex(fast(level, index)), toHex(plain(level, index)), `node (${level}, ${index})`);
    }
  }
  assert.equal(toHex(treeHash(GO.big_size, fast)), GO.big_root);
  for (const index of [0, 255, 256, 65_535, 65_536, 65_999]) {
    assert.deepEqual(inclusionProof(index, GO.big_size, fast).map(toHex), inclusionProof(index, GO.big_size, plain).map(toHex), `entry ${index}`);
  }
  assert.deepEqual(consistencyProof(300, GO.big_size, fast).map(toHex), consistencyProof(300, GO.big_size, plain).map(toHex));
  assert.throws(() => expandTile(tiles.get("0/257")!), /only a full tile/);
});

test("tile widths, paths and their strict parsing", () => {
  assert.equal(tileWidthAt({ level: 0, index: 0 }, 300), 256);
  assert.equal(tileWidthAt({ level: 0, index: 1 }, 300), 44);
  assert.equal(tileWidthAt({ level: 1, index: 0 }, 300), 1);
  assert.equal(tileWidthAt({ level: 0, index: 2 }, 300), 0);
  assert.equal(encodeTileIndex(1234067), "x001/x234/067");
  assert.equal(encodeTileIndex(0), "000");
  assert.equal(tilePath(0, 1234067, 8), "tile/0/x001/x234/067.p/8");
  assert.equal(tilePath("entries", 5), "tile/entries/005");
  assert.deepEqual(parseTilePath("0/x001/x234/067.p/8"), { ok: true, level: 0, index: 1234067, width: 8 });
  assert.deepEqual(parseTilePath("entries/005"), { ok: true, level: "entries", index: 5, width: TILE_WIDTH });
  assert.deepEqual(parseTilePath("2/000"), { ok: true, level: 2, index: 0, width: TILE_WIDTH });
  for (const [bad, error] of [
    ["8/000", "level"],
    ["01/000", "level"],
    ["data/000", "level"],
    ["0/5", "index"],
    ["0/x000/005", "index"],
    ["0/001/002", "index"],
    ["0/x001", "index"],
    ["0/000.p/256", "width"],
    ["0/000.p/0", "width"],
    ["0/000.p/08", "width"],
    ["0/x009/x007/x199/x254/x740/x992/000", "index"],
    ["0/000/", "index"],
  ] as const) {
    assert.deepEqual(parseTilePath(bad), { ok: false, error }, bad);
  }
});

test("entry bundles frame entries with a 16-bit length; an entry that cannot be framed is refused", () => {
  const entries = [utf8Encode("a"), new Uint8Array(0), new Uint8Array(300).fill(7)];
  const bundle = encodeEntryBundle(entries);
  assert.deepEqual(Array.from(bundle.subarray(0, 3)), [0, 1, 97]);
  assert.deepEqual(decodeEntryBundle(bundle), entries);
  assert.equal(decodeEntryBundle(bundle.subarray(0, bundle.length - 1)), null);
  assert.throws(() => encodeEntryBundle([new Uint8Array(0x10000)]), RangeError);
});

test("a log leaf is the canonical JSON of index, kind and payload", () => {
  const leaf = logLeaf({ index: 3, kind: "publish", payload: { version: "1.0.0", id: "a/b/c", content_hash: "ab", publisher: "alice", item_type: "tool" } });
  assert.equal(new TextDecoder().decode(leaf), '{"index":3,"kind":"publish","payload":{"content_hash":"ab","id":"a/b/c","item_type":"tool","publisher":"alice","version":"1.0.0"}}');
});
