/** Proofs built from the stored tiles: right, refused beyond the log, kept per process once built, built a bounded number at once. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromBase64, leafHash, logLeaf, memoryNodeReader, treeHash, verifyConsistency, verifyInclusion } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { consistencyProofFor, inclusionProofFor, PROOF_BUILDS_AT_ONCE, PROOF_BUILDS_WAITING } from "./log-proofs.ts";
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
    // Entry 298's proof is new, and needs leaf 299's hash, which only the partial tile at the edge holds: the process
    // kept that tile as it read it (a tile only grows), so it is answered without it, right.
    const edge = await inclusionProofFor(db.prisma, 298, size);
    assert.ok(verifyInclusion(298, size, leafHash(fromBase64(edge.leaf)), edge.proof.map(fromBase64), root));
    // A transaction reads the tiles every time (its view may hold writes that roll back).
    await assert.rejects(db.prisma.$transaction((tx) => inclusionProofFor(tx, 0, size)), (err: { code?: string }) => err.code === "BAD_REQUEST");
    // A caller changing what it got does not change what the next caller gets.
    const first = await inclusionProofFor(db.prisma, 0, size);
    first.proof.reverse();
    assert.ok(verifyInclusion(0, size, leafHash(fromBase64(first.leaf)), (await inclusionProofFor(db.prisma, 0, size)).proof.map(fromBase64), root));

    // The log grows (the next append rebuilds the deleted tiles): a proof of the larger tree needs hashes the kept
    // partial tiles lack, so they are read again, and the proof is right.
    for (let i = size; i < size + 10; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    const grown = await db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const grownRoot = treeHash(size + 10, memoryNodeReader(grown.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })))));
    for (const index of [298, 305, 309]) {
      const { leaf, proof } = await inclusionProofFor(db.prisma, index, size + 10);
      assert.ok(verifyInclusion(index, size + 10, leafHash(fromBase64(leaf)), proof.map(fromBase64), grownRoot), `entry ${index} of the grown log`);
    }
    assert.ok(verifyConsistency(size, size + 10, (await consistencyProofFor(db.prisma, size, size + 10)).map(fromBase64), root, grownRoot));
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("proof builds run a bounded number at once: one request too many is refused (503), and the same proof asked at once is built once", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    configureTileCache(db.prisma, 16);
    const size = 48;
    for (let i = 0; i < size; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    // Every proof distinct, none built yet: PROOF_BUILDS_AT_ONCE run, PROOF_BUILDS_WAITING wait, the rest are refused.
    const asks: (() => Promise<unknown>)[] = [];
    for (let to = 1; to <= size; to++) for (let i = 0; i < to; i++) asks.push(() => inclusionProofFor(db.prisma, i, to), () => consistencyProofFor(db.prisma, i + 1, to));
    const capacity = PROOF_BUILDS_AT_ONCE + PROOF_BUILDS_WAITING;
    assert.ok(asks.length > capacity + 10);
    const flood = asks.slice(0, capacity + 10).map((ask) => ask());
    // A pull's own proof (urgent) is not refused, even with the waiting list full.
    const urgent = inclusionProofFor(db.prisma, 7, size, { urgent: true });
    const results = await Promise.allSettled(flood);
    const refused = results.filter((r) => r.status === "rejected");
    assert.equal(refused.length, 10);
    for (const r of refused) assert.equal((r as PromiseRejectedResult).reason.code, "UNAVAILABLE");
    assert.ok(results.slice(0, capacity).every((r) => r.status === "fulfilled"));
    assert.equal((await urgent).proof.length > 0, true);

    // One proof asked by many at once (the pull path at a new checkpoint) takes one slot, so all are answered.
    const same = await Promise.all(Array.from({ length: capacity + 10 }, () => inclusionProofFor(db.prisma, size - 1, size)));
    assert.equal(new Set(same.map((p) => JSON.stringify(p))).size, 1);
  } finally {
    await db.close();
    await scratch.drop();
  }
});
