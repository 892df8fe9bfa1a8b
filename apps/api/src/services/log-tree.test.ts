/** The Merkle tree's tiles, appended with the log by two processes at once, and built in place for an older log. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { leafHash, logLeaf, memoryNodeReader, TILE_WIDTH, tileNodeReader, tilesForRanges, toHex, treeHash } from "@rye/core";
import { type Database, openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { appendLeaves, catchUpTree, readTiles, storedTreeSize, treeBehind } from "./log-tree.ts";
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
        await tx.tlogTile.findMany({ where: { level: 0 } });
        if (++readers === 2) bothRead();
        await read;
        await appendLeaves(tx, 1, [{ index: 1, kind: "publish", payload: { tag } }]);
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
