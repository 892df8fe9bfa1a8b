import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { isSealed, SECRETS_KEY_FILE, SecretBox } from "./secret-box.ts";

test("a sealed secret opens to itself, differs on every seal and never contains the secret", () => {
  const box = SecretBox.fromKey(randomBytes(32));
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  const a = box.seal(secret);
  const b = box.seal(secret);
  assert.ok(isSealed(a) && a !== b, "a fresh IV per seal");
  assert.ok(!a.includes(secret.slice(6)));
  assert.equal(box.open(a), secret);
  assert.equal(box.open(b), secret);
  assert.equal(box.open("whsec_legacy"), "whsec_legacy", "a value stored before sealing is returned as it is");
});

test("another key, a changed byte or a truncated value is refused with a clear error, never garbage", () => {
  const box = SecretBox.fromKey(randomBytes(32));
  const sealed = box.seal("whsec_x");
  const refused = (fn: () => unknown) => assert.throws(fn, (err: unknown) => err instanceof RyeError && err.code === "INTERNAL" && /cannot be unsealed/.test(err.message));
  refused(() => SecretBox.fromKey(randomBytes(32)).open(sealed));
  const body = Buffer.from(sealed.slice("sealed:v1:".length), "base64url");
  body[14] = body[14]! ^ 1;
  refused(() => box.open(`sealed:v1:${body.toString("base64url")}`));
  refused(() => box.open("sealed:v1:AAAA"));
  assert.throws(() => SecretBox.fromKey(randomBytes(16)), /32 bytes/);
});

test("the key file is created once (0600) and shared by every process of the key directory; RYE_SECRETS_KEY wins", async () => {
  const keyDir = join(await mkdtemp(join(tmpdir(), "rye-secrets-")), "keys");
  const [first, second] = await Promise.all([SecretBox.load({ keyDir }), SecretBox.load({ keyDir })]);
  assert.equal(second.open(first.seal("shared")), "shared", "two processes starting together use one key");
  assert.equal((await stat(join(keyDir, SECRETS_KEY_FILE))).mode & 0o777, 0o600);
  const again = await SecretBox.load({ keyDir });
  assert.equal(again.open(first.seal("kept")), "kept", "a restart reads the same key");
  const envKey = randomBytes(32).toString("base64");
  const fromEnv = await SecretBox.load({ keyDir, envKey });
  assert.equal(SecretBox.fromKey(Buffer.from(envKey, "base64")).open(fromEnv.seal("env")), "env");
  await assert.rejects(SecretBox.load({ keyDir, envKey: "c2hvcnQ=" }), /RYE_SECRETS_KEY is not 32 bytes/);
  await writeFile(join(keyDir, SECRETS_KEY_FILE), "bm90IGEga2V5\n");
  await assert.rejects(SecretBox.load({ keyDir }), /does not hold a 32-byte key/);
  assert.ok((await readFile(join(keyDir, SECRETS_KEY_FILE), "utf8")).length > 0);
});
