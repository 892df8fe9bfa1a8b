/** Proofs built from the stored tiles: right, refused beyond the log, kept per process once built, built a bounded number at once. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromBase64, leafHash, logLeaf, memoryNodeReader, treeHash, verifyConsistency, verifyInclusion } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import type { RyeError } from "@rye/core";
import { loadConfig } from "../config.ts";
import { configureProofRate, consistencyProofFor, inclusionProofFor, PROOF_BUILDS_AT_ONCE, PROOF_BUILDS_PER_SECOND, PROOF_BUILDS_WAITING } from "./log-proofs.ts";
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
    configureProofRate(db.prisma, 0); // the rate is the next test's: here only the slots and the waiting list
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
    // The error middleware turns retry_after into Retry-After on the 503.
    for (const r of refused) assert.equal((r as PromiseRejectedResult).reason.details?.retry_after, 1);
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

test("proofs asked on their own start at most RYE_TLOG_PROOF_RATE a second; a pull's own proof does not wait for the rate", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const db = await openDatabase({ databaseUrl: scratch.url });
  try {
    const size = 20;
    for (let i = 0; i < size; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    configureTileCache(db.prisma, 16);
    configureProofRate(db.prisma, 1);
    const done: string[] = [];
    const started = performance.now();
    const asks = [0, 1, 2].map((i) => inclusionProofFor(db.prisma, i, size).then(() => done.push(`own ${i}`)));
    const pulls = inclusionProofFor(db.prisma, 9, size, { urgent: true }).then(() => done.push("pull's"));
    await Promise.all([...asks, pulls]);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 1990, `three proofs at 1 a second take at least 2 s, not ${elapsed.toFixed(0)} ms`);
    assert.deepEqual(done.slice(0, 2).sort(), ["own 0", "pull's"], "the pull's proof is built before the second proof asked on its own may start");

    // 0: no cap (and a kept proof is never rate-limited: it is not built again).
    configureTileCache(db.prisma, 16);
    configureProofRate(db.prisma, 0);
    const quick = performance.now();
    await Promise.all([3, 4, 5, 6].map((i) => inclusionProofFor(db.prisma, i, size)));
    assert.ok(performance.now() - quick < 1000, "without a cap four proofs do not wait a second each");
    assert.throws(() => configureProofRate(db.prisma, -1), RangeError);
  } finally {
    await db.close();
    await scratch.drop();
  }
});

test("RYE_TLOG_PROOF_RATE sets the proofs a process starts per second: default PROOF_BUILDS_PER_SECOND, 0 no cap, at most 100000, else a clear error", () => {
  assert.equal(loadConfig({}).tlog.proofBuildsPerSecond, PROOF_BUILDS_PER_SECOND);
  assert.equal(loadConfig({ RYE_TLOG_PROOF_RATE: "0" }).tlog.proofBuildsPerSecond, 0);
  assert.equal(loadConfig({ RYE_TLOG_PROOF_RATE: "100000" }).tlog.proofBuildsPerSecond, 100_000);
  for (const bad of ["100001", "-1", "1.5", "lots"]) {
    assert.throws(() => loadConfig({ RYE_TLOG_PROOF_RATE: bad }), (err: RyeError) => err.code === "BAD_REQUEST" && /RYE_TLOG_PROOF_RATE/.test(err.message), bad);
  }
});
