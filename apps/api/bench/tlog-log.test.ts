/** The bench's log generator writes a log the registry accepts: the chain, the tiles and the proofs it serves. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromBase64, leafHash, logLeaf, memoryNodeReader, openNote, parseCheckpoint, parseNoteVerifierKey, toHex, treeHash, verifyConsistency, verifyInclusion, verifyLogChain } from "@rye/core";
import { skipWithoutPostgres } from "@rye/db/testing";
import { createTestRegistry } from "../test/harness.ts";
import { storedTreeSize, treeRootAt } from "../src/services/log-tree.ts";
import { appendLogEntry } from "../src/services/publish-log.ts";
import { generatedPayload, generateLog } from "./tlog-log.ts";

type Json = Record<string, any>;

test("a generated log of 3 000 entries is the log 3 000 appends would have made, and the registry serves and extends it", { skip: skipWithoutPostgres() }, async () => {
  const reg = await createTestRegistry({ kind: "postgres", config: { checkpoints: { intervalMs: 60_000, everyEntries: 1 } } });
  try {
    const size = 3_000; // a full level-0 tile row, a partial one and a partial level-1 tile, across batches
    const generated = await generateLog(reg.db, size);
    assert.equal(await storedTreeSize(reg.db.prisma), size);
    const rows = await reg.db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const leaves = rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })));
    const fromEntries = toHex(treeHash(size, memoryNodeReader(leaves)));
    assert.equal(toHex(await treeRootAt(reg.db.prisma, size)), fromEntries, "the tiles' root is the entries' root");
    assert.equal(toHex(generated.root), fromEntries);
    const chain = rows.map((r) => ({ index: Number(r.index), kind: r.kind, payload: r.payload, prev_hash: r.prevHash, entry_hash: r.entryHash }));
    assert.equal(verifyLogChain(chain, "0".repeat(64)), null, "the hash chain holds");
    assert.equal(rows.at(-1)!.entryHash, generated.headHash);
    assert.deepEqual(rows[7]!.payload, generatedPayload(7));

    const keys = ((await (await reg.request("GET", "/v1/tlog/info")).json()) as Json).verifier_keys.map((k: string) => parseNoteVerifierKey(k)!);
    const opened = await openNote(await (await reg.request("GET", "/v1/tlog/checkpoint")).text(), keys);
    assert.ok(opened.ok);
    const cp = parseCheckpoint(opened.text)!;
    assert.equal(cp.size, size);
    assert.equal(toHex(cp.rootHash), fromEntries, "the registry signs the generated tree");
    for (const index of [0, 255, 256, 2_047, 2_999]) {
      const proof = (await (await reg.request("GET", `/v1/tlog/proof/inclusion?index=${index}&tree_size=${size}`)).json()) as Json;
      assert.ok(verifyInclusion(index, size, leafHash(fromBase64(proof.leaf)), proof.proof.map(fromBase64), cp.rootHash), `entry ${index}`);
    }
    const consistency = (await (await reg.request("GET", `/v1/tlog/proof/consistency?from=1000&to=${size}`)).json()) as Json;
    assert.ok(verifyConsistency(1000, size, consistency.proof.map(fromBase64), treeHash(1000, memoryNodeReader(leaves)), cp.rootHash));

    // The next append continues the chain and the tree where the generator stopped.
    const next = await reg.db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", generatedPayload(size)));
    assert.deepEqual(next, { index: size, prevHash: generated.headHash, entryHash: next.entryHash });
    const all = [...leaves, leafHash(logLeaf({ index: size, kind: "publish", payload: generatedPayload(size) }))];
    assert.equal(toHex(await treeRootAt(reg.db.prisma, size + 1)), toHex(treeHash(size + 1, memoryNodeReader(all))));
    await assert.rejects(generateLog(reg.db, 10), /empty log only/);
  } finally {
    await reg.close();
  }
});
