/** Proofs built from the stored tiles: right, refused beyond the log, and kept per process once built. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromBase64, leafHash, logLeaf, memoryNodeReader, treeHash, verifyConsistency, verifyInclusion } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { consistencyProofFor, inclusionProofFor } from "./log-proofs.ts";
import { configureTileCache } from "./log-tree.ts";
import { appendLogEntry } from "./publish-log.ts";

test("proofs verify, are refused beyond the log, and once built are answered without reading the tiles again", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    configureTileCache(db.prisma, 16);
    const size = 300;
    for (let i = 0; i < size; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    const rows = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const memory = memoryNodeReader(rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload }))));
    const root = treeHash(size, memory);
    const check = async () => {
      for (const index of [0, 100, 299]) {
        const { leaf, proof } = await inclusionProofFor(db.prisma, index, size);
        assert.ok(verifyInclusion(index, size, leafHash(fromBase64(leaf)), proof.map(fromBase64), root), `entry ${index}`);
      }
      assert.ok(verifyConsistency(100, size, (await consistencyProofFor(db.prisma, 100, size)).map(fromBase64), treeHash(100, memory), root));
    };
    await check();
    for (const [what, call] of [
      ["inclusion beyond", () => inclusionProofFor(db.prisma, 0, size + 1)],
      ["inclusion of the last entry beyond", () => inclusionProofFor(db.prisma, size, size + 1)],
      ["consistency beyond", () => consistencyProofFor(db.prisma, 10, size + 1)],
      ["an equal size beyond (no hash needed)", () => consistencyProofFor(db.prisma, size + 1, size + 1)],
      ["index not below the size", () => inclusionProofFor(db.prisma, 5, 5)],
      ["from above to", () => consistencyProofFor(db.prisma, 6, 5)],
      ["a negative index", () => inclusionProofFor(db.prisma, -1, 5)],
    ] as const) {
      await assert.rejects(call(), (err: { code?: string; hint?: string }) => err.code === "BAD_REQUEST" && Boolean(err.hint), what);
    }
    // The proofs built are kept: with the tiles gone they are still answered (and still right); other proofs are not.
    await db.raw.query("DELETE FROM tlog_tiles");
    await check();
    // (Entry 298's proof needs leaf 299's hash, which only the partial tile, read again, holds.)
    await assert.rejects(inclusionProofFor(db.prisma, 298, size), (err: { code?: string }) => err.code === "BAD_REQUEST");
    // A transaction reads the tiles every time (its view may hold writes that roll back).
    await assert.rejects(db.prisma.$transaction((tx) => inclusionProofFor(tx, 0, size)), (err: { code?: string }) => err.code === "BAD_REQUEST");
    // A caller changing what it got does not change what the next caller gets.
    const first = await inclusionProofFor(db.prisma, 0, size);
    first.proof.reverse();
    assert.ok(verifyInclusion(0, size, leafHash(fromBase64(first.leaf)), (await inclusionProofFor(db.prisma, 0, size)).proof.map(fromBase64), root));
  } finally {
    await db.close();
    await scratch.drop();
  }
});
