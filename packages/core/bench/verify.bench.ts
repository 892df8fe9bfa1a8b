/**
 * Verify throughput of @rye/core (node:crypto, WebCrypto and noble providers) against raw node:crypto doing the
 * same work (SHA-256 of the hashed span + Ed25519 verify with a cached KeyObject), in one process.
 * Run: npm run bench -w @rye/core
 */
import { createHash, createPublicKey, verify as nodeVerify } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { contentForHash, extractSignature, keyPairFromSeed, keyResolverFrom, nobleEd25519, signItem, verifyItem, webCryptoEd25519 } from "../src/index.ts";

const input = readFileSync(new URL("../test/vectors/rye/input/greet_user.md", import.meta.url), "utf8");
const key = await keyPairFromSeed(new Uint8Array(32).fill(7));
const { content } = await signItem(input, "directive", key);
const keys = keyResolverFrom([key.publicKey]);
const web = (await webCryptoEd25519())!;

async function measure(name: string, seconds: number, op: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 200; i++) await op(); // warm-up
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await op();
    n += 50;
  }
  const rate = n / ((performance.now() - start) / 1000);
  console.log(`${name.padEnd(44)} ${rate.toFixed(0).padStart(8)} verifies/s`);
  return rate;
}

const nodeKey = createPublicKey(key.publicKey.pem);
const sig = extractSignature(content, "directive");
if (sig.status !== "signed") throw new Error("vector not signed");
const sigBytes = Buffer.from(sig.signature.signature, "base64url");
const hashBytes = Buffer.from(sig.signature.hash, "ascii");

const baseline = await measure("node:crypto (sha256 + verify, raw)", 2, () => {
  const hash = createHash("sha256").update(contentForHash(content, "directive")).digest("hex");
  if (hash !== sig.signature.hash || !nodeVerify(null, hashBytes, nodeKey, sigBytes)) throw new Error("baseline failed");
});
const coreWeb = await measure("@rye/core verifyItem (WebCrypto)", 2, async () => {
  if (!(await verifyItem(content, "directive", keys, { provider: web })).ok) throw new Error("verify failed");
});
const coreNoble = await measure("@rye/core verifyItem (noble fallback)", 2, async () => {
  if (!(await verifyItem(content, "directive", keys, { provider: nobleEd25519 })).ok) throw new Error("verify failed");
});
await import("../src/node/index.ts"); // what Node processes (CLI, MCP, API) use: node:crypto for Ed25519 and SHA-256
const coreNode = await measure("@rye/core verifyItem (@rye/core/node)", 2, async () => {
  if (!(await verifyItem(content, "directive", keys)).ok) throw new Error("verify failed");
});
console.log(`\nratio @rye/core/node path / node:crypto baseline: ${(coreNode / baseline).toFixed(2)}`);
console.log(`ratio WebCrypto path / node:crypto baseline: ${(coreWeb / baseline).toFixed(2)}`);
console.log(`ratio noble path / node:crypto baseline:     ${(coreNoble / baseline).toFixed(2)}`);
