import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair, keyPairFromSeed } from "../crypto/keys.ts";
import { fromBase64, fromHex, toBase64 } from "../text.ts";
import { COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, cosignerVerifierKey, latestCosignatureTime, parseCosignatureLine, parseCosignerVerifierKey, signCosignature, verifiedCosignatureLines, verifiedCosignatures } from "./cosignature.ts";
import { noteVerifierKey, parseNoteVerifierKey, signNote } from "./signed-note.ts";

// Made by tools/cosignature-vector (Go's crypto/ed25519, written from the spec, not from this code).
const GO = {
  seed: fromHex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"),
  name: "witness.example/w1",
  checkpoint: "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
  timestamp: 1679315147,
  vkey: "witness.example/w1+468d99bb+BHm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk",
  line: "— witness.example/w1 Ro2ZuwAAAABkGFDLQB2dbiQ7rPMIDjq/twq5Ixt42T+awjiYS4+fxrnLnI31x5abVjZlhDVvZAcRRLyAiG4oQlhTgi4DsxiPwiDaDg==\n",
};
// The spec's own example (tlog-cosignature, "Format"): its witness key is not published, but its timestamp is 1679315147.
const SPEC_LINE = "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==";

test("signs and names the key exactly as an independent Go implementation of the spec does", async () => {
  const key = await keyPairFromSeed(GO.seed);
  assert.equal(cosignerVerifierKey(GO.name, key.publicKey.raw), GO.vkey);
  assert.equal(await signCosignature(GO.checkpoint, GO.name, key, GO.timestamp), GO.line);
  const verifier = parseCosignerVerifierKey(GO.vkey)!;
  const note = `${GO.checkpoint}\n— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n${GO.line}`;
  const found = await verifiedCosignatures(note, [verifier]);
  assert.deepEqual(found.map((f) => [f.verifier.name, f.timestamp]), [[GO.name, GO.timestamp]]);
});

test("reads the spec example's timestamp", () => {
  const parsed = parseCosignatureLine(SPEC_LINE)!;
  assert.equal(parsed.name, "witness.example.com/w1");
  assert.equal(parsed.timestamp, 1679315147);
  assert.equal(parsed.signature.length, 64);
});

test("a cosignature counts only for its key, over its exact checkpoint and time", async () => {
  const [w, other] = [await generateKeyPair(), await generateKeyPair()];
  const text = "log.example/v1/tlog\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
  const note = await signNote(text, "log.example/v1/tlog", [other]);
  const line = await signCosignature(text, "w.example", w, 1_700_000_000);
  const vw = parseCosignerVerifierKey(cosignerVerifierKey("w.example", w.publicKey.raw))!;
  assert.equal((await verifiedCosignatures(note + line, [vw])).length, 1);
  // Another checkpoint (a split view's other tree).
  assert.equal((await verifiedCosignatures(note.replace("\n5\n", "\n6\n") + line, [vw])).length, 0);
  // The timestamp is signed.
  const bytes = fromBase64(line.slice("— w.example ".length, -1));
  bytes[11] = bytes[11]! ^ 1;
  assert.equal((await verifiedCosignatures(`${note}— w.example ${toBase64(bytes)}\n`, [vw])).length, 0);
  // Another key under the same name, and a key under another name.
  const vo = parseCosignerVerifierKey(cosignerVerifierKey("w.example", other.publicKey.raw))!;
  assert.equal((await verifiedCosignatures(note + line, [vo])).length, 0);
  assert.equal((await verifiedCosignatures(note + line.replace("w.example", "x.example"), [vw])).length, 0);
  // The log's own signature is not a cosignature, even by the same key under the same name (0x01 vs 0x04 key IDs).
  const vlog = parseCosignerVerifierKey(cosignerVerifierKey("log.example/v1/tlog", other.publicKey.raw))!;
  assert.equal((await verifiedCosignatures(note, [vlog])).length, 0);
});

test("verifier keys: 0x04 keys only, key ID checked, log keys refused", async () => {
  const k = await generateKeyPair();
  const vkey = cosignerVerifierKey("w.example", k.publicKey.raw);
  assert.ok(parseCosignerVerifierKey(vkey));
  assert.equal(parseCosignerVerifierKey(noteVerifierKey("w.example", k.publicKey.raw)), null, "a 0x01 log key");
  assert.equal(parseNoteVerifierKey(vkey), null, "a log reader does not take a witness key");
  assert.equal(parseCosignerVerifierKey(vkey.replace("w.example", "v.example")), null, "the key ID names the key");
  for (const bad of ["", "w.example", "w.example+00000000", "w+x+y", `${vkey}AA`]) assert.equal(parseCosignerVerifierKey(bad), null, bad);
});

test("notAfter: a line dated later does not count, nor hides an earlier-dated line of the same witness; the allowance is 10 minutes", async () => {
  const [w, log] = [await generateKeyPair(), await generateKeyPair()];
  const text = "log.example/v1/tlog\n5\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
  const note = await signNote(text, "log.example/v1/tlog", [log]);
  const vw = parseCosignerVerifierKey(cosignerVerifierKey("w.example", w.publicKey.raw))!;
  const now = 1_700_000_000_000;
  assert.equal(COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, 600);
  assert.equal(latestCosignatureTime(now), 1_700_000_600);
  const late = await signCosignature(text, "w.example", w, 1_700_000_601);
  const onTime = await signCosignature(text, "w.example", w, 1_700_000_600);
  assert.equal((await verifiedCosignatures(note + late, [vw], { notAfter: latestCosignatureTime(now) })).length, 0);
  assert.equal((await verifiedCosignatures(note + late, [vw])).length, 1, "no notAfter: not checked");
  assert.deepEqual((await verifiedCosignatures(note + late + onTime, [vw], { notAfter: latestCosignatureTime(now) })).map((f) => f.timestamp), [1_700_000_600]);
  assert.deepEqual((await verifiedCosignatureLines(note + late + onTime, [vw])).map((f) => f.timestamp), [1_700_000_601, 1_700_000_600]);
});
