import assert from "node:assert/strict";
import { createHash, createPublicKey, verify as nodeVerify } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { keyPairFromSeed, publicKeyFromPem } from "../crypto/keys.ts";
import { RYE_VECTORS, VECTOR_DATE, VECTOR_SEED } from "../../test/vectors/fixtures.ts";
import { computeContentHash } from "./content-hash.ts";
import { extractSignature } from "./line.ts";
import { signItem } from "./sign.ts";
import { keyResolverFrom, verifyItem } from "./verify.ts";

const original = (f: string) => readFileSync(new URL(`../../test/vectors/original/${f}`, import.meta.url), "utf8");
const rye = (f: string) => readFileSync(new URL(`../../test/vectors/rye/${f}`, import.meta.url), "utf8");
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

test("signed items of the original system reproduce their embedded content hash", () => {
  for (const [file, type] of [
    ["subprocess.yaml", "tool"],
    ["limit_test.md", "directive"],
    ["anchor_patterns.md", "knowledge"],
  ] as const) {
    const content = original(file);
    const sig = extractSignature(content, type);
    assert.equal(sig.status, "signed", file);
    assert.equal(sig.status === "signed" && sig.signature.fingerprint, "440443d0858f0199");
    assert.equal(computeContentHash(content, type), sig.status === "signed" ? sig.signature.hash : "", file);
  }
  // The subprocess primitive's hash is also what the original's shipped lockfile records.
  assert.ok(computeContentHash(original("subprocess.yaml"), "tool").startsWith("c63d0310"));
});

test("perm_none.md, edited after signing, fails with INTEGRITY_MISMATCH", async () => {
  const result = await verifyItem(original("perm_none.md"), "directive", keyResolverFrom([]));
  assert.equal(result.ok, false);
  assert.equal(result.code, "INTEGRITY_MISMATCH");
  assert.equal(result.embeddedHash?.slice(0, 8), "3dbd293a");
  assert.notEqual(result.contentHash, result.embeddedHash);
});

test("original vectors whose hash matches stop at UNTRUSTED_KEY without the signer's key", async () => {
  const result = await verifyItem(original("limit_test.md"), "directive", keyResolverFrom([]));
  assert.equal(result.code, "UNTRUSTED_KEY");
  assert.equal(result.contentHash, result.embeddedHash);
});

test("rye vectors: signing the inputs with the fixed key reproduces the pinned bytes", async () => {
  const key = await keyPairFromSeed(VECTOR_SEED);
  assert.equal(key.publicKey.pem, rye("public_key.pem"));
  for (const { file, type } of RYE_VECTORS) {
    const { content } = await signItem(rye(`input/${file}`), type, key, { path: file, date: VECTOR_DATE });
    assert.equal(content, rye(`signed/${file}`), file);
  }
});

test("rye vectors verify with the published key, and node:crypto agrees on every signature", async () => {
  const pem = rye("public_key.pem");
  const keys = keyResolverFrom([publicKeyFromPem(pem)]);
  const nodeKey = createPublicKey(pem);
  for (const { file, type } of RYE_VECTORS) {
    const content = rye(`signed/${file}`);
    const result = await verifyItem(content, type, keys);
    assert.equal(result.code, "OK", file);
    const sig = extractSignature(content, type);
    assert.ok(sig.status === "signed");
    const raw = Buffer.from(sig.signature.signature, "base64url");
    assert.ok(nodeVerify(null, Buffer.from(sig.signature.hash, "ascii"), nodeKey, raw), `node:crypto rejects ${file}`);
    assert.equal(sig.signature.signature.length, 88);
    assert.ok(sig.signature.signature.endsWith("=="));
  }
});

test("rye vectors hash exactly the part the format prescribes (independent recomputation)", () => {
  // Directive: the <directive> … </directive> span, without prose, fences or trailing notes.
  const directive = rye("signed/greet_user.md");
  const span = directive.slice(directive.indexOf('<directive name="greet_user"'), directive.lastIndexOf("</directive>") + 12);
  assert.equal(computeContentHash(directive, "directive"), sha(span));
  // Knowledge: the body after the frontmatter, stripped.
  assert.equal(
    computeContentHash(rye("signed/item_formats.md"), "knowledge"),
    sha("# rye item formats\n\nDirectives, tools and knowledge — signed with Ed25519."),
  );
  // Knowledge without frontmatter: everything after the signature line, unstripped.
  const note = rye("signed/plain_note.md");
  assert.equal(computeContentHash(note, "knowledge"), sha(note.slice(note.indexOf("\n") + 1)));
  assert.ok(note.endsWith("\n"));
  // Python strip: U+3000, U+001C, U+0085 and spaces go; U+FEFF stays, so the U+2028 and newline before it stay too.
  assert.equal(
    computeContentHash(rye("signed/unicode_edges.md"), "knowledge"),
    sha("Body between Python whitespace.\u2028\n\ufeff"),
  );
  // Tool: everything but the shebang and the signature line.
  const tool = rye("signed/read_file.py");
  const lines = tool.split("\n");
  assert.ok(lines[0]!.startsWith("#!/usr/bin/env python3"));
  assert.ok(lines[1]!.startsWith("# rye:signed:"));
  assert.equal(computeContentHash(tool, "tool"), sha(lines.slice(2).join("\n")));
  // JS/TS tools carry the signature as a // comment so the file stays valid.
  assert.ok(rye("signed/word_count.ts").split("\n")[1]!.startsWith("// rye:signed:"));
});

test("CRLF input is signed as LF, and a CRLF copy of a signed file still verifies", async () => {
  const signed = rye("signed/crlf_directive.md");
  assert.ok(!signed.includes("\r"));
  assert.ok(!signed.includes("rye:validated"), "the legacy line was replaced");
  assert.equal(signed.split("\n").filter((l) => l.includes("rye:signed")).length, 1);
  const keys = keyResolverFrom([publicKeyFromPem(rye("public_key.pem"))]);
  assert.equal((await verifyItem(signed.replace(/\n/g, "\r\n"), "directive", keys)).code, "OK");
});
