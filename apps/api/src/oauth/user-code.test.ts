import assert from "node:assert/strict";
import { test } from "node:test";
import { formatUserCode, generateUserCode, normalizeUserCode, USER_CODE_ALPHABET } from "./user-code.ts";

test("the alphabet has no vowels, digits or look-alikes", () => {
  assert.equal(USER_CODE_ALPHABET.length, 20);
  assert.doesNotMatch(USER_CODE_ALPHABET, /[AEIOUY0-9]/);
});

test("generated codes are 8 letters of the alphabet, shown as XXXX-XXXX", () => {
  for (let i = 0; i < 200; i++) {
    const code = generateUserCode();
    assert.match(code, new RegExp(`^[${USER_CODE_ALPHABET}]{8}$`));
    assert.match(formatUserCode(code), /^[A-Z]{4}-[A-Z]{4}$/);
  }
});

test("input is case-insensitive, the dash and spaces optional", () => {
  for (const input of ["BCDF-GHJK", "bcdf-ghjk", "BCDFGHJK", " bcdf ghjk ", "bCdFgHjK"]) assert.equal(normalizeUserCode(input), "BCDFGHJK", input);
  for (const input of ["", "BCDF-GHJ", "BCDF-GHJKL", "BCDF-GHJA", "BCDF-GHJ1", "BCDF_GHJK", "Ｂ".repeat(8), "B".repeat(100)]) assert.equal(normalizeUserCode(input), null, input);
});
