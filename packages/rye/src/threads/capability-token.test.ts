import "@rye/core/node";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KeyPair } from "@rye/core";
import { generateKeyPair, getEd25519, toBase64Url, utf8Decode, fromBase64Url } from "@rye/core";
import type { CapabilityToken } from "./capability-token.ts";
import { decodeToken, encodeToken, MAX_CHAIN_LENGTH, mintToken, parseExpiry, pythonIsoUtc, pythonJson, signingPayload, verifyChain } from "./capability-token.ts";

const HOUR = 3600_000;
const inAnHour = () => new Date(Date.now() + HOUR);
const codeOf = (code: string) => (err: unknown) => (err as { code?: string }).code === code;

async function signed(token: Omit<CapabilityToken, "signature">, key: KeyPair): Promise<CapabilityToken> {
  const unsigned = { ...token, signature: null };
  const signature = await (await getEd25519()).sign(key.seed, signingPayload(unsigned));
  return { ...unsigned, signature: toBase64Url(signature) };
}

describe("the original's encoding", () => {
  test("the signed bytes are Python's json.dumps(sort_keys=True) with sorted caps", () => {
    const token: CapabilityToken = {
      token_id: "5f0c", caps: ["rye.load.knowledge.*", "rye.execute.tool.a.*"], aud: "rye", exp: "2026-11-25T13:00:00.123000+00:00",
      parent_id: null, directive_id: "acme/ops/triage", thread_id: "triage-1", signature: "ignored",
    };
    assert.equal(
      utf8Decode(signingPayload(token)),
      '{"aud": "rye", "caps": ["rye.execute.tool.a.*", "rye.load.knowledge.*"], "directive_id": "acme/ops/triage", "exp": "2026-11-25T13:00:00.123000+00:00", "parent_id": null, "thread_id": "triage-1", "token_id": "5f0c"}',
    );
  });

  test("non-ASCII is escaped as Python does, ASCII controls as JSON does", () => {
    assert.equal(pythonJson({ b: "é😀", a: "tab\there\u007f" }), '{"a": "tab\\there\u007f", "b": "\\u00e9\\ud83d\\ude00"}');
    assert.equal(pythonJson([1, true, null, { z: [] }]), '[1, true, null, {"z": []}]');
  });

  test("expiry times are Python isoformat, and parse back (naive times are UTC)", () => {
    assert.equal(pythonIsoUtc(new Date("2026-11-25T13:00:00.000Z")), "2026-11-25T13:00:00+00:00");
    assert.equal(pythonIsoUtc(new Date("2026-11-25T13:00:00.042Z")), "2026-11-25T13:00:00.042000+00:00");
    assert.equal(parseExpiry("2026-11-25T13:00:00.042000+00:00"), Date.parse("2026-11-25T13:00:00.042Z"));
    assert.equal(parseExpiry("2026-11-25T13:00:00"), Date.parse("2026-11-25T13:00:00Z"));
    assert.equal(parseExpiry("2026-11-25T15:00:00+02:00"), Date.parse("2026-11-25T13:00:00Z"));
    assert.ok(Number.isNaN(parseExpiry("tomorrow")));
  });

  test("a token round-trips through base64url of the sorted JSON", async () => {
    const key = await generateKeyPair();
    const token = await mintToken({ caps: ["rye.execute.tool.a.*"], directiveId: "d", threadId: "t", expiresAt: inAnHour() }, key);
    const encoded = encodeToken(token);
    assert.deepEqual(decodeToken(encoded), token);
    assert.match(utf8Decode(fromBase64Url(encoded)), /^\{"aud": "rye", "caps": \[/);
  });
});

describe("minting and verifying a chain", () => {
  test("a child's token is its parent's attenuated: caps intersected, expiry never later", async () => {
    const key = await generateKeyPair();
    const root = await mintToken({ caps: ["rye.execute.tool.a.*", "rye.load.knowledge.*"], directiveId: "root", threadId: "root-1", expiresAt: inAnHour() }, key);
    const child = await mintToken({ caps: ["rye.*"], directiveId: "child", threadId: "child-1", expiresAt: new Date(Date.now() + 10 * HOUR), parent: root }, key);
    assert.equal(child.parent_id, root.token_id);
    assert.equal(child.exp, root.exp, "a child never outlives its parent's token");
    assert.ok(!child.caps.includes("rye.*"));
    assert.ok(child.caps.includes("rye.execute.tool.a.*") && child.caps.includes("rye.load.knowledge.*"));
    const chain = await verifyChain([encodeToken(root), encodeToken(child)], { keys: [key.publicKey.raw], threadId: "child-1" });
    assert.equal(chain.length, 2);
  });

  test("each kind of bad chain is refused with its own code", async () => {
    const key = await generateKeyPair();
    const other = await generateKeyPair();
    const keys = [key.publicKey.raw];
    const root = await mintToken({ caps: ["rye.execute.tool.a.*"], directiveId: "root", threadId: "root-1", expiresAt: inAnHour() }, key);
    const child = await mintToken({ caps: ["rye.execute.tool.a.b"], directiveId: "c", threadId: "child-1", expiresAt: inAnHour(), parent: root }, key);
    const ok = [encodeToken(root), encodeToken(child)];
    await verifyChain(ok, { keys, threadId: "child-1" });

    // forged: another key, or a field changed after signing
    const forged = await mintToken({ caps: ["rye.*"], directiveId: "root", threadId: "root-1", expiresAt: inAnHour() }, other);
    await assert.rejects(verifyChain([encodeToken(forged)], { keys }), codeOf("CAP_TOKEN_FORGED"));
    await assert.rejects(verifyChain([encodeToken({ ...root, caps: ["rye.*"] })], { keys }), codeOf("CAP_TOKEN_FORGED"));
    await assert.rejects(verifyChain([encodeToken(root), encodeToken({ ...child, thread_id: "someone-else" })], { keys }), codeOf("CAP_TOKEN_FORGED"));
    // expired
    const old = await signed({ ...root, token_id: "old", exp: pythonIsoUtc(new Date(Date.now() - 1000)) }, key);
    await assert.rejects(verifyChain([encodeToken(old)], { keys }), codeOf("CAP_TOKEN_EXPIRED"));
    await assert.rejects(verifyChain(ok, { keys, now: Date.now() + 2 * HOUR }), codeOf("CAP_TOKEN_EXPIRED"));
    // wrong audience
    const elsewhere = await mintToken({ caps: ["rye.execute.tool.a.*"], directiveId: "root", threadId: "root-1", expiresAt: inAnHour(), audience: "other-service" }, key);
    await assert.rejects(verifyChain([encodeToken(elsewhere)], { keys }), codeOf("CAP_TOKEN_AUDIENCE"));
    // widened: a correctly signed child granting more than its parent, or outliving it
    const wide = await signed({ ...child, token_id: "wide", caps: ["rye.execute.tool.*"] }, key);
    await assert.rejects(verifyChain([encodeToken(root), encodeToken(wide)], { keys }), (e: { code: string; message: string }) => e.code === "CAP_TOKEN_WIDENED" && /rye\.execute\.tool\.\*/.test(e.message));
    const longer = await signed({ ...child, token_id: "longer", exp: pythonIsoUtc(new Date(Date.now() + 5 * HOUR)) }, key);
    await assert.rejects(verifyChain([encodeToken(root), encodeToken(longer)], { keys }), codeOf("CAP_TOKEN_WIDENED"));
    // broken chain: a wrong parent id, no root, the wrong thread at the end
    const stray = await signed({ ...child, token_id: "stray", parent_id: "not-the-root" }, key);
    await assert.rejects(verifyChain([encodeToken(root), encodeToken(stray)], { keys }), codeOf("CAP_TOKEN_CHAIN"));
    await assert.rejects(verifyChain([encodeToken(child)], { keys }), codeOf("CAP_TOKEN_CHAIN"));
    await assert.rejects(verifyChain(ok, { keys, threadId: "root-1" }), codeOf("CAP_TOKEN_CHAIN"));
    // malformed, missing, too long
    await assert.rejects(verifyChain(["not base64 json"], { keys }), codeOf("CAP_TOKEN_MALFORMED"));
    await assert.rejects(verifyChain([toBase64Url(new TextEncoder().encode('{"token_id": "x"}'))], { keys }), codeOf("CAP_TOKEN_MALFORMED"));
    await assert.rejects(verifyChain([], { keys }), codeOf("CAP_TOKEN_MISSING"));
    await assert.rejects(verifyChain(Array(MAX_CHAIN_LENGTH + 1).fill(ok[0]), { keys }), codeOf("CAP_TOKEN_CHAIN"));
  });
});
