/**
 * Re-signs rye's system bundle (the top-level `.ai/`) with the release key.
 * Key: $RYE_RELEASE_KEY_FILE, else ~/.rye-release/private_key.pem. When there is none, a new release key
 * is created there (mode 0600) and its public key replaces packages/rye/release/release_public_key.pem:
 * the public key ships with the package, so rotating it needs no other change.
 * Run: npm run sign:system
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import "@rye/core/node";
import { generateKeyPair, ITEM_TYPES, keyPairFromPrivatePem, keyResolverFrom, parseItem, signItem, verifyItem } from "@rye/core";
import { listItemFiles } from "../packages/rye/src/spaces/spaces.ts";
import { RELEASE_PUBLIC_KEY_PATH } from "../packages/rye/src/engine/release-key.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const keyFile = process.env.RYE_RELEASE_KEY_FILE ?? join(homedir(), ".rye-release", "private_key.pem");

async function releaseKey() {
  try {
    return await keyPairFromPrivatePem(await readFile(keyFile, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    const key = await generateKeyPair();
    await mkdir(dirname(keyFile), { recursive: true, mode: 0o700 });
    await writeFile(keyFile, key.privateKeyPem, { mode: 0o600, flag: "wx" });
    await writeFile(RELEASE_PUBLIC_KEY_PATH, key.publicKey.pem);
    console.log(`created a new release key ${key.publicKey.fingerprint} at ${keyFile}`);
    return key;
  }
}

const key = await releaseKey();
const shipped = await readFile(RELEASE_PUBLIC_KEY_PATH, "utf8").catch(() => "");
if (shipped !== key.publicKey.pem) await writeFile(RELEASE_PUBLIC_KEY_PATH, key.publicKey.pem);

const space = { name: "system" as const, root: join(repo, ".ai") };
let count = 0;
let failed = 0;
let changed = 0;
for (const type of ITEM_TYPES) {
  for (const file of await listItemFiles(space, type)) {
    const content = await readFile(file.path, "utf8");
    const parsed = parseItem(content, type, { path: file.path });
    if (parsed.issues.length > 0) {
      failed++;
      console.error(`✗ ${relative(repo, file.path)}: ${parsed.issues.map((i) => `${i.field}: ${i.message}`).join("; ")}`);
      continue;
    }
    count++;
    // Unchanged items keep their signature (and timestamp), so re-running the script is a no-op.
    if ((await verifyItem(content, type, keyResolverFrom([key.publicKey]))).ok) continue;
    await writeFile(file.path, (await signItem(content, type, key, { path: file.extension })).content);
    changed++;
  }
}
console.log(`${count} system items signed with release key ${key.publicKey.fingerprint} (${changed} re-signed)${failed ? `, ${failed} invalid` : ""}`);
if (failed) process.exitCode = 1;
