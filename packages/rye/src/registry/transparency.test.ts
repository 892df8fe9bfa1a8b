/** The client's checks of a registry's Merkle log, against a tree and checkpoints built the way the registry builds them. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  canonicalJson,
  consistencyProof,
  formatCheckpoint,
  generateKeyPair,
  inclusionProof,
  type KeyPair,
  leafHash,
  logLeaf,
  logOrigin,
  memoryNodeReader,
  RyeError,
  sha256Hex,
  signNote,
  toBase64,
  treeHash,
} from "@rye/core";
import { type ExpectedEntry, openTreeCheckpoint, verifyPulledEntry, verifyTreeExtends } from "./transparency.ts";

const URL_ = "https://registry.example";
const item = (n: number): ExpectedEntry => ({ kind: "item", item_type: "knowledge", id: `alice/notes/n${n}`, version: "1.0.0", file_sha256: sha256Hex(`file ${n}`), content_hash: sha256Hex(`content ${n}`), publisher: "alice" });
const publish = (n: number) => item(n);

/** A log of `size` publishes (entry 3 private: logged as a digest), as leaves. */
function log(size: number, rewrite?: (index: number) => unknown) {
  return Array.from({ length: size }, (_, i) => logLeaf({ index: i, kind: "publish", payload: rewrite?.(i) ?? (i === 3 ? { kind: "item", private: true, subject_digest: sha256Hex(canonicalJson(publish(3))) } : publish(i)) }));
}

async function checkpointOf(leaves: Uint8Array[], size: number, keys: KeyPair[]) {
  const root = treeHash(size, memoryNodeReader(leaves.map(leafHash)));
  return signNote(formatCheckpoint({ origin: logOrigin(URL_), size, rootHash: root }), logOrigin(URL_), keys);
}

function inclusion(leaves: Uint8Array[], index: number, size: number) {
  return { index, leaf: toBase64(leaves[index]!), proof: inclusionProof(index, size, memoryNodeReader(leaves.map(leafHash))).map(toBase64) };
}

const CODES: Record<string, string> = { entry: "LOG_ENTRY_MISMATCH", inclusion: "LOG_INCLUSION_INVALID", consistency: "LOG_INCONSISTENT" };
const code = (check: string) => (err: unknown) => err instanceof RyeError && err.code === CODES[check];

test("a pulled item's entry verifies in the signed tree; another entry, a changed entry or a forged proof is refused", async () => {
  const key = await generateKeyPair();
  const leaves = log(10);
  const cp = await openTreeCheckpoint(URL_, await checkpointOf(leaves, 10, [key]), [key.publicKey]);
  assert.equal(cp.size, 10);
  verifyPulledEntry(URL_, cp, inclusion(leaves, 5, 10), item(5));
  verifyPulledEntry(URL_, cp, inclusion(leaves, 3, 10), item(3)); // a private publish: its digest
  assert.throws(() => verifyPulledEntry(URL_, cp, inclusion(leaves, 4, 10), item(5)), code("entry"), "the proof of another entry");
  assert.throws(() => verifyPulledEntry(URL_, cp, inclusion(leaves, 5, 10), { ...item(5), publisher: "mallory" }), code("entry"), "another publisher");
  assert.throws(() => verifyPulledEntry(URL_, cp, inclusion(leaves, 3, 10), { ...item(3), content_hash: sha256Hex("x") }), code("entry"), "another content hash (private)");
  // The registry serves an entry that is not in the tree it signed (changed after the checkpoint).
  const changed = log(10, (i) => (i === 5 ? { ...publish(5), content_hash: sha256Hex("evil") } : undefined));
  assert.throws(() => verifyPulledEntry(URL_, cp, inclusion(changed, 5, 10), { ...item(5), content_hash: sha256Hex("evil") }), code("inclusion"));
  const forged = { ...inclusion(leaves, 5, 10), index: 6, leaf: toBase64(logLeaf({ index: 6, kind: "publish", payload: publish(5) })) };
  assert.throws(() => verifyPulledEntry(URL_, cp, forged, item(5)), code("inclusion"), "an entry moved to another index");
});

test("checkpoints open only with a pinned key; during a rotation either key opens it", async () => {
  const [old, next, other] = [await generateKeyPair(), await generateKeyPair(), await generateKeyPair()];
  const leaves = log(4);
  const both = await checkpointOf(leaves, 4, [next, old]);
  assert.equal((await openTreeCheckpoint(URL_, both, [old.publicKey])).size, 4);
  assert.equal((await openTreeCheckpoint(URL_, both, [next.publicKey])).size, 4);
  await assert.rejects(openTreeCheckpoint(URL_, both, [other.publicKey]), (e: RyeError) => e.code === "BAD_SIGNATURE");
  // First sight: the note names the log; afterwards the client holds it to the origin it kept.
  assert.equal((await openTreeCheckpoint(URL_, both, [old.publicKey])).origin, logOrigin(URL_));
  await assert.rejects(openTreeCheckpoint(URL_, both, [old.publicKey], "other.example/v1/tlog"), (e: RyeError) => e.code === "BAD_SIGNATURE", "another log than the one kept");
  await assert.rejects(openTreeCheckpoint(URL_, both.replace("\n4\n", "\n5\n"), [old.publicKey]), (e: RyeError) => e.code === "BAD_SIGNATURE");
  await assert.rejects(openTreeCheckpoint(URL_, "not a note", [old.publicKey]), (e: RyeError) => e.code === "MALFORMED_RESPONSE");
});

test("a newer checkpoint must extend the one kept: a history rewritten at a larger size is refused", async () => {
  const key = await generateKeyPair();
  const leaves = log(20);
  const older = await openTreeCheckpoint(URL_, await checkpointOf(leaves, 7, [key]), [key.publicKey]);
  const newer = await openTreeCheckpoint(URL_, await checkpointOf(leaves, 20, [key]), [key.publicKey]);
  const proof = consistencyProof(7, 20, memoryNodeReader(leaves.map(leafHash))).map(toBase64);
  verifyTreeExtends(URL_, older, newer, proof);
  const rewritten = log(20, (i) => (i === 2 ? { ...publish(2), publisher: "mallory" } : undefined));
  const other = await openTreeCheckpoint(URL_, await checkpointOf(rewritten, 20, [key]), [key.publicKey]);
  const otherProof = consistencyProof(7, 20, memoryNodeReader(rewritten.map(leafHash))).map(toBase64);
  assert.throws(() => verifyTreeExtends(URL_, older, other, otherProof), code("consistency"));
  assert.throws(() => verifyTreeExtends(URL_, older, other, proof), code("consistency"));
  assert.throws(() => verifyTreeExtends(URL_, newer, older, []), code("consistency"), "an older checkpoint than the one kept");
});
