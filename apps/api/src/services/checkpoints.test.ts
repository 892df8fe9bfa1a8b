/** Checkpoints across processes: one writer at a time (advisory lock), every process serves the one stored. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair, verifyDocument } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { currentCheckpoint } from "./checkpoints.ts";
import { appendLogEntry } from "./publish-log.ts";

test("concurrent requests on two connections (two processes) get one checkpoint per tree size, re-keyed once after a rotation", { skip: skipWithoutPostgres() }, async () => {
  const scratch = await createScratchPostgresDatabase();
  const a = await openDatabase({ databaseUrl: scratch.url });
  const b = await openDatabase({ databaseUrl: scratch.url, migrate: false });
  try {
    for (let i = 0; i < 5; i++) await a.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i }));
    const first = await generateKeyPair();
    const ask = (key: typeof first) =>
      Promise.all(Array.from({ length: 20 }, (_, i) => currentCheckpoint({ db: i % 2 ? a : b, signer: async () => key, registryUrl: "http://registry.test", policy: { everyEntries: 1 } })));
    const answers = await ask(first);
    assert.equal(new Set(answers.map((d) => JSON.stringify(d))).size, 1, "every request, on either connection, serves the same signed checkpoint");
    assert.equal(answers[0]!.payload.tree_size, 5);
    assert.ok(await verifyDocument(answers[0]!, first.publicKey));
    assert.equal(await a.prisma.logCheckpoint.count(), 1);

    const second = await generateKeyPair(); // a rotation: the latest checkpoint is re-signed by the new key, once
    const rekeyed = await ask(second);
    assert.equal(new Set(rekeyed.map((d) => JSON.stringify(d))).size, 1);
    assert.equal(rekeyed[0]!.key_fingerprint, second.publicKey.fingerprint);
    assert.ok(await verifyDocument(rekeyed[0]!, second.publicKey));
    assert.equal(await a.prisma.logCheckpoint.count(), 1, "the same tree size, re-signed in place");
  } finally {
    await a.close();
    await b.close();
    await scratch.drop();
  }
});
