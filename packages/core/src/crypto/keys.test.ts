import assert from "node:assert/strict";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { test } from "node:test";
import fc from "fast-check";
import { RyeError } from "../errors.ts";
import { nobleEd25519, webCryptoEd25519 } from "./ed25519.ts";
import { fingerprintOfPem, generateKeyPair, keyPairFromPrivatePem, publicKeyFromPem, seedFromPrivatePem } from "./keys.ts";

test("PEM exports are byte-identical to node:crypto's (and so to Python cryptography's)", async () => {
  for (let i = 0; i < 5; i++) {
    const ours = await generateKeyPair();
    const nodePrivate = createPrivateKey(ours.privateKeyPem);
    assert.equal(nodePrivate.export({ type: "pkcs8", format: "pem" }), ours.privateKeyPem);
    assert.equal(createPublicKey(nodePrivate).export({ type: "spki", format: "pem" }), ours.publicKey.pem);
    assert.equal(ours.publicKey.pem.length, 113);
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const imported = await keyPairFromPrivatePem(privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  assert.equal(imported.publicKey.pem, publicKey.export({ type: "spki", format: "pem" }));
});

test("fingerprint = first 16 hex of SHA-256 over the exact PEM bytes", async () => {
  const { publicKey } = await generateKeyPair();
  const expected = createHash("sha256").update(publicKey.pem).digest("hex").slice(0, 16);
  assert.equal(publicKey.fingerprint, expected);
  assert.equal(fingerprintOfPem(publicKey.pem), expected);
  // Same key, different bytes → different fingerprint (as in the original).
  assert.notEqual(fingerprintOfPem(publicKey.pem.replace(/\n/g, "\r\n")), expected);
  assert.equal(publicKeyFromPem(publicKey.pem.replace(/\n/g, "\r\n")).raw.length, 32);
});

test("bad key material is refused with INVALID_KEY", () => {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ecPem = publicKey.export({ type: "spki", format: "pem" }) as string;
  for (const bad of ["", "hello", ecPem, "-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----\n"]) {
    assert.throws(() => publicKeyFromPem(bad), (e: unknown) => e instanceof RyeError && e.code === "INVALID_KEY");
  }
  assert.throws(() => seedFromPrivatePem(ecPem), (e: unknown) => e instanceof RyeError && e.code === "INVALID_KEY");
});

test("WebCrypto and noble produce identical signatures and verify each other's, and node:crypto agrees", async () => {
  const web = await webCryptoEd25519();
  assert.ok(web, "Node 20 has WebCrypto Ed25519");
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 300 }), async (seed, message) => {
      const pubWeb = await web.publicKeyFromSeed(seed);
      const pubNoble = await nobleEd25519.publicKeyFromSeed(seed);
      assert.deepEqual(pubWeb, pubNoble);
      const sigWeb = await web.sign(seed, message);
      const sigNoble = await nobleEd25519.sign(seed, message);
      assert.deepEqual(sigWeb, sigNoble);
      assert.ok(await web.verify(pubNoble, message, sigNoble));
      assert.ok(await nobleEd25519.verify(pubWeb, message, sigWeb));
      const nodeKey = createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), pubWeb]), format: "der", type: "spki" });
      assert.ok(nodeVerify(null, message, nodeKey, sigWeb));
      const tampered = Uint8Array.from(sigWeb);
      tampered[0]! ^= 1;
      assert.equal(await web.verify(pubWeb, message, tampered), false);
      assert.equal(await nobleEd25519.verify(pubWeb, message, tampered), false);
    }),
    { numRuns: 25 },
  );
});

test("a node:crypto signature verifies with both providers", async () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = new Uint8Array((publicKey.export({ type: "spki", format: "der" }) as Buffer).subarray(12));
  const message = new TextEncoder().encode("f".repeat(64));
  const signature = new Uint8Array(nodeSign(null, message, privateKey));
  assert.ok(await nobleEd25519.verify(raw, message, signature));
  assert.ok(await (await webCryptoEd25519())!.verify(raw, message, signature));
  assert.equal(await nobleEd25519.verify(raw.subarray(1), message, signature), false, "short key is rejected, not thrown");
});

test("the node:crypto provider of @rye/core/node matches noble byte for byte", async () => {
  const { nodeEd25519 } = await import("../node/index.ts");
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), async (seed, message) => {
      const pub = await nodeEd25519.publicKeyFromSeed(seed);
      assert.deepEqual(pub, await nobleEd25519.publicKeyFromSeed(seed));
      const sig = await nodeEd25519.sign(seed, message);
      assert.deepEqual(sig, await nobleEd25519.sign(seed, message));
      assert.ok(await nodeEd25519.verify(pub, message, sig));
      assert.equal(await nodeEd25519.verify(pub, Uint8Array.from([...message, 1]), sig), false);
    }),
    { numRuns: 25 },
  );
});
