import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { keyRotationSchema, publicKeyFromPem, verifyDocument } from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { skipUnless } from "../../../../scripts/test-requirements.ts";
import { runRegistryCli } from "../cli/registry-cli.ts";

let reg: TestRegistry;
before(async () => {
  reg = await createTestRegistry();
});
after(() => reg.close());

test("the key is created on first start with mode 0600 and published", async () => {
  assert.equal((await stat(join(reg.keyDir, "private_key.pem"))).mode & 0o777, 0o600);
  assert.equal((await reg.db.prisma.registryKey.count()), 1);
});

test("rotation: a statement signed by the previous key, picked up by the running app, published in /v1/keys", async () => {
  const before = (await (await reg.request("GET", "/v1/keys")).json()) as { active: string; keys: { public_key: string }[] };
  const { rotateRegistryKey } = await import("./keyring.ts");
  const result = await rotateRegistryKey({ db: reg.db, keyDir: reg.keyDir, registryUrl: "http://registry.test" });
  assert.equal(result.previous, before.active);
  const after = (await (await reg.request("GET", "/v1/keys")).json()) as { active: string; keys: any[] };
  assert.equal(after.active, result.next, "the running app signs with the new key");
  assert.equal(after.keys.length, 2);
  const next = after.keys.find((k) => k.fingerprint === result.next);
  assert.ok(keyRotationSchema.safeParse(next.rotation.payload).success);
  const previousKey = publicKeyFromPem(before.keys[0]!.public_key);
  assert.ok(await verifyDocument(next.rotation, previousKey), "the old key vouches for the new one");
  assert.equal(next.rotation.payload.next_public_key, next.public_key);
  const old = after.keys.find((k) => k.fingerprint === result.previous);
  assert.ok(old.valid_until);
  assert.equal(((await stat(join(reg.keyDir, "retired", `${result.previous}.pem`))).mode & 0o777), 0o600);
});

test("npm run registry -- keys rotate/revoke/list works against the database (PostgreSQL)", { skip: skipUnless(process.env.DATABASE_URL ? false : "needs PostgreSQL (DATABASE_URL): the CLI opens its own connection; PGlite is single-process") }, async () => {
  const { createScratchPostgresDatabase } = await import("@rye/db/testing");
  const scratch = await createScratchPostgresDatabase();
  const { openDatabase } = await import("@rye/db");
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const dataDir = await mkdtemp(join(tmpdir(), "rye-cli-keys-"));
  const env = { DATABASE_URL: scratch.url, RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: "http://registry.test" };
  try {
    const db = await openDatabase({ databaseUrl: scratch.url });
    const { RegistryKeyring } = await import("./keyring.ts");
    const keyring = await RegistryKeyring.load({ db, keyDir: join(dataDir, "keys"), registryUrl: "http://registry.test" });
    await db.close();
    const lines: string[] = [];
    assert.equal(await runRegistryCli(["keys", "rotate"], env, (s) => lines.push(s)), 0);
    const rotated = JSON.parse(lines.join("\n"));
    assert.equal(rotated.previous, keyring.current().publicKey.fingerprint);
    assert.equal(await runRegistryCli(["keys", "revoke", rotated.previous, "--reason", "test"], env, (s) => lines.push(s)), 0);
    const listed: string[] = [];
    assert.equal(await runRegistryCli(["keys", "list"], env, (s) => listed.push(s)), 0);
    assert.match(listed.join("\n"), /REVOKED: test/);
    const missing: string[] = [];
    assert.equal(await runRegistryCli(["keys", "revoke", "0000000000000000", "--reason", "x"], env, (s) => missing.push(s)), 1);
    assert.match(missing.join("\n"), /error\[KEY_NOT_FOUND\]/);
  } finally {
    await scratch.drop();
  }
});

test("several processes: a rotation made by one is followed by the others through the database, even with the key file's mtime unchanged", { skip: skipUnless(process.env.DATABASE_URL ? false : "needs PostgreSQL (DATABASE_URL): two connections to one database") }, async () => {
  const { createScratchPostgresDatabase } = await import("@rye/db/testing");
  const { openDatabase } = await import("@rye/db");
  const { mkdtemp, utimes } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { RegistryKeyring, rotateRegistryKey } = await import("./keyring.ts");
  const { PolledReadGeneration } = await import("../services/read-generation.ts");
  const scratch = await createScratchPostgresDatabase();
  const dbA = await openDatabase({ databaseUrl: scratch.url });
  const dbB = await openDatabase({ databaseUrl: scratch.url });
  try {
    const shared = await mkdtemp(join(tmpdir(), "rye-keys-shared-"));
    const own = await mkdtemp(join(tmpdir(), "rye-keys-own-"));
    const open = (db: typeof dbA, keyDir: string) => RegistryKeyring.load({ db, keyDir, registryUrl: "http://registry.test", generation: () => new PolledReadGeneration(db).current(), newKeyFileWaitMs: 200 });
    const a = await open(dbA, shared);
    const b = await open(dbB, shared);
    const first = (await a.signer()).publicKey.fingerprint;
    assert.equal((await b.signer()).publicKey.fingerprint, first);
    const path = join(shared, "private_key.pem");
    const { mtime } = await stat(path);
    const { next } = await rotateRegistryKey({ db: dbA, keyDir: shared, registryUrl: "http://registry.test" });
    await utimes(path, mtime, mtime); // a file system with coarse timestamps: the mtime alone would not tell
    assert.equal((await b.signer()).publicKey.fingerprint, next, "B signs with the new key");
    assert.equal((await a.signer()).publicKey.fingerprint, next);

    // A process whose key directory is not shared would keep the retired key: it refuses to sign instead.
    const { copyFile } = await import("node:fs/promises");
    await copyFile(join(shared, "retired", `${first}.pem`), join(own, "private_key.pem"));
    const stale = await RegistryKeyring.load({ db: dbB, keyDir: own, registryUrl: "http://registry.test", generation: async () => 1n, newKeyFileWaitMs: 200 });
    await assert.rejects(stale.signer(), (err: Error & { code?: string; hint?: string }) => err.code === "UNAVAILABLE" && /RYE_REGISTRY_KEY_DIR/.test(err.hint ?? ""));
  } finally {
    await dbA.close();
    await dbB.close();
    await scratch.drop();
  }
});
