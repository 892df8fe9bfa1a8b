/** The Merkle tree's tiles, appended with the log by two processes at once, and built in place for an older log. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeEntryBundle, inclusionProof, inclusionProofRanges, leafHash, logLeaf, memoryNodeReader, type RyeError, TILE_WIDTH, tileNodeReader, tilesForRanges, toHex, treeHash } from "@rye/core";
import { type Database, openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { loadConfig } from "../config.ts";
import { appendLeaves, catchUpTree, configureTileCache, DEFAULT_TILE_CACHE_TILES, EXPANDED_TILE_BYTES, FULL_TILE_BYTES, readEntryBundle, storedNodeReader, readTile, readTiles, storedTreeSize, tileCacheOf, treeBehind } from "./log-tree.ts";
import { appendLogEntry, LOG_LOCK_ID } from "./publish-log.ts";

/** The root recomputed from the entries as stored, and the root read from the stored tiles. */
async function roots(db: Database): Promise<{ size: number; fromEntries: string; fromTiles: string }> {
  const rows = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
  const leaves = rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })));
  const size = await storedTreeSize(db.prisma);
  const tiles = await readTiles(db.prisma, tilesForRanges([{ lo: 0, hi: size }]));
  return { size, fromEntries: toHex(treeHash(rows.length, memoryNodeReader(leaves))), fromTiles: toHex(treeHash(size, tileNodeReader(tiles))) };
}

test("two processes appending at once build one tree: the tiles hold exactly the entries' leaves", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const a = await openDatabase({ databaseUrl: scratch.url });
  const b = await openDatabase({ databaseUrl: scratch.url, migrate: false });
  try {
    const total = TILE_WIDTH + 44; // crosses a tile boundary: a full level-0 tile, its root in a level-1 tile
    let next = 0;
    // Six writers, three on each connection, appending as fast as the lock lets them.
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        for (let i = next++; i < total; i = next++) {
          await (w % 2 ? a : b).prisma.$transaction((tx) => appendLogEntry(tx, "publish", { kind: "item", item_type: "tool", id: `alice/x/t${i}`, version: "1.0.0", publisher: "alice" }));
        }
      }),
    );
    const r = await roots(a);
    assert.equal(r.size, total);
    assert.equal(r.fromTiles, r.fromEntries);
    const tiles = await a.prisma.tlogTile.findMany({ orderBy: [{ level: "asc" }, { index: "asc" }] });
    assert.deepEqual(
      tiles.map((t) => [t.level, Number(t.index), t.hashes.length / 32]),
      [
        [0, 0, 256],
        [0, 1, 44],
        [1, 0, 1],
      ],
    );
  } finally {
    await a.close();
    await b.close();
    await scratch.drop();
  }
});

test("a log older than the tree is built in place on start (idempotent), or by its next append", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    for (let i = 0; i < 30; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    const expected = await roots(db);
    await db.prisma.tlogTile.deleteMany({}); // as a database migrated from before the tree
    assert.equal(await treeBehind(db), true);
    assert.equal(await catchUpTree(db, LOG_LOCK_ID, 7), 30, "built in batches of 7");
    assert.equal(await treeBehind(db), false);
    assert.deepEqual(await roots(db), expected);
    assert.equal(await catchUpTree(db, LOG_LOCK_ID), 0, "nothing to do the second time");

    await db.prisma.tlogTile.deleteMany({});
    await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: 30 }));
    const after = await roots(db);
    assert.equal(after.size, 31);
    assert.equal(after.fromTiles, after.fromEntries);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("an entry too large for an entry bundle is refused before anything is written", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    await assert.rejects(
      db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { big: "x".repeat(70_000) })),
      (err: { code?: string }) => err.code === "PAYLOAD_TOO_LARGE",
    );
    assert.equal(await db.prisma.publishLogEntry.count(), 0);
    assert.equal(await storedTreeSize(db.prisma), 0);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("a writer that skipped the log lock cannot fork a tile: its write, based on a stale read, is refused", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const a = await openDatabase({ databaseUrl: scratch.url });
  const b = await openDatabase({ databaseUrl: scratch.url, migrate: false });
  try {
    await a.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: 0 }));
    // Both read the tile holding leaf 0, then both append "leaf 1": the second write must not replace the first.
    let bothRead!: () => void;
    const read = new Promise<void>((r) => (bothRead = r));
    let readers = 0;
    const writer = (db: Database, tag: string) =>
      db.prisma.$transaction(async (tx) => {
        const [tile] = await tx.tlogTile.findMany({ where: { level: 0 } });
        if (++readers === 2) bothRead();
        await read;
        // The tile as read before the other writer committed (else the later one, reading again, may see the
        // first one's hash and stop at its own length check instead of the guarded write).
        await appendLeaves(tx, 1, [{ index: 1, kind: "publish", payload: { tag } }], { index: 0, hashes: new Uint8Array(tile!.hashes) });
      });
    const results = await Promise.allSettled([writer(a, "a"), writer(b, "b")]);
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.match(String(refused.reason?.message), /changed under the log lock/);
    assert.equal(await storedTreeSize(a.prisma), 2);
  } finally {
    await a.close();
    await b.close();
    await scratch.drop();
  }
});

/** Tile rows written directly (readTiles does not check hashes): `full` full level-0 tiles, then one of 7 hashes. */
async function fakeTiles(db: Database, full: number, fill: number): Promise<void> {
  await db.raw.query(`DELETE FROM tlog_tiles`);
  for (let i = 0; i <= full; i++) {
    const bytes = Buffer.alloc(i < full ? FULL_TILE_BYTES : 7 * 32, fill + i);
    await db.raw.query(`INSERT INTO tlog_tiles (level, "index", hashes) VALUES (0, $1, $2)`, [i, bytes]);
  }
}

const firstByte = async (db: Database, index: number) => (await readTile(db.prisma, { level: 0, index }))?.[0];

test("full tiles are served from memory once read (they never change); a partial tile is always read from the database", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const cache = configureTileCache(db.prisma, 8);
    await fakeTiles(db, 2, 10);
    assert.deepEqual([await firstByte(db, 0), await firstByte(db, 1), await firstByte(db, 2)], [10, 11, 12]);
    assert.equal(cache.size, 2, "the two full tiles are kept, the partial one is not");
    // The rows change under the cache (as no writer ever changes a full tile): the full tiles are still the ones
    // read first, the partial one is read again, as it grows while the log does.
    await fakeTiles(db, 2, 50);
    const before = cache.hits;
    assert.deepEqual([await firstByte(db, 0), await firstByte(db, 1), await firstByte(db, 2)], [10, 11, 52]);
    assert.equal(cache.hits - before, 2);
    const both = await readTiles(db.prisma, [{ level: 0, index: 1 }, { level: 0, index: 2 }]);
    assert.deepEqual([both.get("0/1")![0], both.get("0/2")![0], both.get("0/2")!.length], [11, 52, 7 * 32], "a mixed read: one from memory, one from the database");
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("the tile cache holds at most its limit (least recently used out), 0 turns it off, a transaction never fills it", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const cache = configureTileCache(db.prisma, 2);
    await fakeTiles(db, 3, 10);
    for (const i of [0, 1, 2]) await firstByte(db, i);
    assert.equal(cache.size, 2);
    await fakeTiles(db, 3, 50);
    assert.equal(await firstByte(db, 2), 12, "kept");
    assert.equal(await firstByte(db, 0), 50, "the least recently used tile was dropped, so it is read again");
    assert.equal(cache.size, 2);

    const off = configureTileCache(db.prisma, 0);
    await firstByte(db, 1);
    assert.equal(off.size, 0);
    await fakeTiles(db, 3, 90);
    assert.equal(await firstByte(db, 1), 91, "no cache: every read sees the database");

    // A transaction can see a tile it completed and may still roll back: what it reads is never cached.
    const fresh = configureTileCache(db.prisma, 8);
    await db.prisma.$transaction(async (tx) => {
      assert.equal(tileCacheOf(tx), undefined);
      assert.equal((await readTile(tx, { level: 0, index: 0 }))?.[0], 90);
    });
    assert.equal(fresh.size, 0);
    assert.equal(tileCacheOf(db.prisma), fresh);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("a proof reads a cached full tile with its inner nodes, hashed once; the tile served is still its 256 hashes", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const cache = configureTileCache(db.prisma, 8);
    for (let i = 0; i < TILE_WIDTH + 3; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    const size = TILE_WIDTH + 3;
    const rows = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const memory = memoryNodeReader(rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload }))));
    const expected = inclusionProof(5, size, memory).map(toHex);
    const proof = async () => inclusionProof(5, size, await storedNodeReader(db.prisma, tilesForRanges(inclusionProofRanges(5, size)))).map(toHex);
    assert.deepEqual(await proof(), expected);
    assert.equal(cache.get({ level: 0, index: 0 })?.length, EXPANDED_TILE_BYTES, "kept expanded");
    assert.deepEqual(await proof(), expected, "and read back expanded");
    assert.equal((await readTile(db.prisma, { level: 0, index: 0 }))?.length, FULL_TILE_BYTES);
    assert.equal((await readTile(db.prisma, { level: 0, index: 1 }))?.length, 3 * 32);
    // Nodes hashed from the partial tile at the edge are kept; as the tile grows, proofs at every size stay right.
    assert.ok(cache.nodeCount > 0, "the edge's nodes are kept");
    for (let grown = size; grown < size + 12; grown++) {
      await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: grown }));
      const all = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
      const reader = memoryNodeReader(all.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload }))));
      for (const [index, at] of [[5, grown + 1], [257, grown + 1], [grown, grown + 1], [3, size], [256, size]] as const) {
        const stored = inclusionProof(index, at, await storedNodeReader(db.prisma, tilesForRanges(inclusionProofRanges(index, at)))).map(toHex);
        assert.deepEqual(stored, inclusionProof(index, at, reader).map(toHex), `entry ${index} in ${at}`);
      }
    }
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("proofs of old entries keep no nodes of full tiles (looked up in the expanded tile): only the log's edge is kept", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    // Four full level-0 tiles and 9 entries at the edge, the tree built from the entry rows (no chain needed).
    const size = 4 * TILE_WIDTH + 9;
    await db.raw.query(`INSERT INTO publish_log_entries ("index", kind, payload, prev_hash, entry_hash)
      SELECT i, 'publish', jsonb_build_object('n', i), repeat('0', 64), lpad(to_hex(i), 64, '0') FROM generate_series(0, $1::int - 1) AS i`, [size]);
    await db.prisma.tlogTile.deleteMany({});
    assert.equal(await catchUpTree(db, LOG_LOCK_ID), size);
    const rows = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const memory = memoryNodeReader(rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload }))));
    const cache = configureTileCache(db.prisma, 16);
    const prove = async (index: number) => {
      const stored = inclusionProof(index, size, await storedNodeReader(db.prisma, tilesForRanges(inclusionProofRanges(index, size)))).map(toHex);
      assert.deepEqual(stored, inclusionProof(index, size, memory).map(toHex), `entry ${index}`);
    };
    await prove(size - 1);
    const edge = cache.nodeCount;
    assert.ok(edge > 0, "the edge's nodes are kept");
    await prove(0);
    // Entry 0's audit path inside its tile: nodes (1, 1) … (7, 1), lookups in the expanded tile, not kept again.
    for (let level = 1; level < 8; level++) assert.equal(cache.node(level, 1), undefined, `node (${level}, 1)`);
    for (let index = 7; index < 4 * TILE_WIDTH; index += 7) await prove(index);
    // At most the nodes of the partial level-1 tile (its 4 hashes: 3 nodes above them) join the edge's.
    assert.ok(cache.nodeCount <= edge + 3, `${cache.nodeCount} nodes kept after 147 proofs of old entries (the edge alone: ${edge})`);
    for (let index = 0; index < size; index += 31) await prove(index);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("a full entry bundle is served from memory once read; a partial one always from the database", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const cache = configureTileCache(db.prisma, 64);
    // Entry rows written directly (readEntryBundle frames leaves, it does not check the chain).
    await db.raw.query(`INSERT INTO publish_log_entries ("index", kind, payload, prev_hash, entry_hash)
      SELECT i, 'publish', jsonb_build_object('n', i), repeat('0', 64), lpad(to_hex(i), 64, '0') FROM generate_series(0, 299) AS i`);
    const n = async (index: number, width: number, at: number) => JSON.parse(new TextDecoder().decode(decodeEntryBundle((await readEntryBundle(db.prisma, index, width))!)![at]!)).payload.n;
    assert.equal(await n(0, TILE_WIDTH, 5), 5);
    assert.equal(await n(1, 44, 0), 256);
    assert.equal(await readEntryBundle(db.prisma, 1, 45), null, "the log has 44 entries there");
    assert.equal(await readEntryBundle(db.prisma, 1, TILE_WIDTH), null);
    assert.equal(cache.size, 1, "only the full bundle is kept");
    await db.raw.query(`UPDATE publish_log_entries SET payload = jsonb_build_object('n', -1)`);
    assert.equal(await n(0, TILE_WIDTH, 5), 5, "entries never change: the full bundle read first is served");
    assert.equal(await n(0, 10, 5), -1, "a partial bundle is read again");
    assert.equal(await n(1, 44, 0), -1);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("RYE_TLOG_TILE_CACHE sets the tile cache's size: default 1024 tiles, 0 off, at most 65536, else a clear error", () => {
  assert.equal(loadConfig({}).tlog.tileCacheTiles, DEFAULT_TILE_CACHE_TILES);
  assert.equal(loadConfig({ RYE_TLOG_TILE_CACHE: "0" }).tlog.tileCacheTiles, 0);
  assert.equal(loadConfig({ RYE_TLOG_TILE_CACHE: "65536" }).tlog.tileCacheTiles, 65_536);
  for (const bad of ["65537", "-1", "1.5", "lots"]) {
    assert.throws(() => loadConfig({ RYE_TLOG_TILE_CACHE: bad }), (err: RyeError) => err.code === "BAD_REQUEST" && /RYE_TLOG_TILE_CACHE/.test(err.message), bad);
  }
});
