/**
 * Regenerates test/vectors/rye/signed/* from test/vectors/rye/input/*. Run only when the format changes
 * on purpose: `node --import tsx packages/core/test/vectors/generate.ts`, then review the diff.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { keyPairFromSeed } from "../../src/crypto/keys.ts";
import { signItem } from "../../src/signature/sign.ts";
import { RYE_VECTORS, VECTOR_DATE, VECTOR_SEED } from "./fixtures.ts";

const dir = new URL("./rye/", import.meta.url);
const key = await keyPairFromSeed(VECTOR_SEED);
writeFileSync(new URL("public_key.pem", dir), key.publicKey.pem);
for (const { file, type } of RYE_VECTORS) {
  const input = readFileSync(new URL(`input/${file}`, dir), "utf8");
  const { content } = await signItem(input, type, key, { path: file, date: VECTOR_DATE });
  writeFileSync(new URL(`signed/${file}`, dir), content);
}
console.log(`signed ${RYE_VECTORS.length} vectors with key ${key.publicKey.fingerprint}`);
