import assert from "node:assert/strict";
import { test } from "node:test";
import { generateKeyPair, keyPairFromSeed } from "../crypto/keys.ts";
import { fromBase64, toBase64 } from "../text.ts";
import { formatCheckpoint, logOrigin, noteVerifierKey, openNote, parseCheckpoint, parseNote, parseNoteVerifierKey, signNote } from "./signed-note.ts";

// golang.org/x/mod/sumdb/note's own test key and signed note (note_test.go, TestSign).
const GO_SKEY_SEED = fromBase64("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz").slice(1);
const GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

test("signs and names keys exactly as Go's sumdb/note does", async () => {
  const key = await keyPairFromSeed(GO_SKEY_SEED);
  assert.equal(noteVerifierKey("PeterNeumann", key.publicKey.raw), GO_VKEY);
  assert.equal(await signNote(GO_TEXT, "PeterNeumann", [key]), GO_NOTE);
  const opened = await openNote(GO_NOTE, [parseNoteVerifierKey(GO_VKEY)!]);
  assert.ok(opened.ok);
  assert.equal(opened.text, GO_TEXT);
});

test("a note opens only with a known key whose signature verifies; other signers are ignored", async () => {
  const [a, b] = [await generateKeyPair(), await generateKeyPair()];
  const va = parseNoteVerifierKey(noteVerifierKey("log.example/v1/tlog", a.publicKey.raw))!;
  const vb = parseNoteVerifierKey(noteVerifierKey("log.example/v1/tlog", b.publicKey.raw))!;
  const both = await signNote("log.example/v1/tlog\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "log.example/v1/tlog", [b, a]); // a rotation's overlap
  for (const verifiers of [[va], [vb], [va, vb]]) assert.ok((await openNote(both, verifiers)).ok);
  const onlyA = await signNote("x\n", "log.example/v1/tlog", [a]);
  assert.deepEqual(await openNote(onlyA, [vb]), { ok: false, error: "NOTE_UNVERIFIED", reason: "no signature by a known key" });
  const edited = onlyA.replace("x\n", "y\n");
  assert.equal((await openNote(edited, [va])).ok, false);
  assert.equal(((await openNote(edited, [va])) as { error: string }).error, "NOTE_UNVERIFIED");
  for (const bad of ["no blank line\n— a AAAA\n", "x\n\n", "x\n\nnot a signature\n", "x\n\n— a !!!\n", "x\n\n— a AAAAAAAA"]) {
    const r = await openNote(bad, [va]);
    assert.equal(r.ok, false, bad);
    assert.equal((r as { error: string }).error, "NOTE_MALFORMED", bad);
  }
  assert.ok("reason" in parseNote("a\x01\n\n— a AAAAAAAA\n"), "control characters");
});

test("verifier keys: a key ID that does not match the name and key is refused", () => {
  assert.ok(parseNoteVerifierKey(GO_VKEY));
  assert.equal(parseNoteVerifierKey(GO_VKEY.replace("c74f20a3", "c74f20a4")), null);
  assert.equal(parseNoteVerifierKey(GO_VKEY.replace("PeterNeumann", "Peter")), null);
  assert.equal(parseNoteVerifierKey("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"), null, "another algorithm");
  assert.equal(parseNoteVerifierKey("a b+00000000+AQ=="), null);
  assert.throws(() => noteVerifierKey("has space", new Uint8Array(32)), RangeError);
});

test("checkpoint bodies: origin, size, base64 root; strict parsing", () => {
  const root = new Uint8Array(32).fill(9);
  const text = formatCheckpoint({ origin: "registry.example/v1/tlog", size: 42, rootHash: root });
  assert.equal(text, `registry.example/v1/tlog\n42\n${toBase64(root)}\n`);
  assert.deepEqual(parseCheckpoint(text), { origin: "registry.example/v1/tlog", size: 42, rootHash: root, extensions: [] });
  for (const bad of ["o\n42\n", "o\n042\n" + toBase64(root) + "\n", "o\n-1\n" + toBase64(root) + "\n", "o\n1\nAAAA\n", "\n1\n" + toBase64(root) + "\n", "o\n1\n" + toBase64(root), "o\n99999999999999999\n" + toBase64(root) + "\n"]) {
    assert.equal(parseCheckpoint(bad), null, JSON.stringify(bad));
  }
  assert.equal(logOrigin("https://registry.example/"), "registry.example/v1/tlog");
  assert.equal(logOrigin("http://127.0.0.1:3000/rye"), "127.0.0.1:3000/rye/v1/tlog");
});
