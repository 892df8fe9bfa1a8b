/** scrypt password storage and the password rules (values pinned: changing them must be deliberate). */
import assert from "node:assert/strict";
import { scryptSync } from "node:crypto";
import { describe, test } from "node:test";
import { hashPassword, KEY_BYTES, needsRehash, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblems, SALT_BYTES, SCRYPT_LOG_N, SCRYPT_P, SCRYPT_R, verifyPassword } from "./passwords.ts";

const account = { username: "alice", email: "alice@example.test" };

describe("password hashing", () => {
  test("parameters and storage format are pinned", async () => {
    assert.deepEqual([SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P, SALT_BYTES, KEY_BYTES], [15, 8, 1, 16, 32]);
    const stored = await hashPassword("correct horse battery");
    assert.match(stored, /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.equal(needsRehash(stored), false);
  });

  test("verifies the right password only, with a fresh salt each time", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    assert.notEqual(a, b);
    assert.equal(await verifyPassword("correct horse battery", a), true);
    assert.equal(await verifyPassword("correct horse battery", b), true);
    assert.equal(await verifyPassword("correct horse batterY", a), false);
    assert.equal(await verifyPassword("", a), false);
  });

  test("composed and decomposed Unicode spell the same password", async () => {
    const stored = await hashPassword("caf\u00e9-au-lait-123");
    assert.equal(await verifyPassword("cafe\u0301-au-lait-123", stored), true);
  });

  test("hashes made with older parameters still verify and ask for a rehash", async () => {
    const salt = Buffer.alloc(16, 7);
    const hash = scryptSync("old password 1", salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const stored = `scrypt$14$8$1$${salt.toString("base64url")}$${hash.toString("base64url")}`;
    assert.equal(await verifyPassword("old password 1", stored), true);
    assert.equal(needsRehash(stored), true);
  });

  test("no stored hash, malformed or hostile ones: false, never a throw", async () => {
    const good = await hashPassword("correct horse battery");
    const [, , , , salt, hash] = good.split("$");
    for (const stored of [null, "", "plain", "bcrypt$2b$10$abc", `scrypt$15$8$1$${salt}`, `scrypt$40$8$1$${salt}$${hash}`, `scrypt$22$64$1$${salt}$${hash}`, `scrypt$15$8$99$${salt}$${hash}`, `scrypt$15$8$1$$${hash}`, `scrypt$15$8$1$${salt}$AAAA`, `scrypt$x$8$1$${salt}$${hash}`]) {
      assert.equal(await verifyPassword("correct horse battery", stored), false, String(stored));
      if (stored !== null) assert.equal(needsRehash(stored), true, stored);
    }
  });
});

describe("password rules", () => {
  test("limits are pinned", () => {
    assert.equal(PASSWORD_MIN_LENGTH, 10);
    assert.equal(PASSWORD_MAX_LENGTH, 256);
  });

  test("length is counted in characters", () => {
    assert.deepEqual(passwordProblems("x".repeat(10), account), []);
    assert.equal(passwordProblems("x".repeat(9), account).length, 1);
    assert.deepEqual(passwordProblems("x".repeat(256), account), []);
    assert.equal(passwordProblems("x".repeat(257), account).length, 1);
    assert.deepEqual(passwordProblems("\u{1F511}".repeat(10), account), [], "ten emoji are ten characters");
  });

  test("the username or email is not a password, in any case", () => {
    assert.match(passwordProblems("averylongname", { username: "averylongname", email: "x@y.z" }).join(), /username/);
    assert.match(passwordProblems("Alice@Example.test", account).join(), /email/);
    assert.deepEqual(passwordProblems("alice@example.test!", account), []);
  });
});
