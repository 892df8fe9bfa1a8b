import assert from "node:assert/strict";
import { test } from "node:test";
import { isValidCodeChallenge, verifyS256 } from "./pkce.ts";

// RFC 7636 Appendix B.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

test("S256 matches the RFC 7636 example and nothing else", () => {
  assert.ok(isValidCodeChallenge(CHALLENGE));
  assert.ok(verifyS256(VERIFIER, CHALLENGE));
  assert.equal(verifyS256(VERIFIER.replace("d", "e"), CHALLENGE), false);
  // plain (verifier == challenge) is not S256
  assert.equal(verifyS256(VERIFIER, VERIFIER), false);
});

test("verifier and challenge syntax is enforced", () => {
  assert.equal(verifyS256("short", CHALLENGE), false);
  assert.equal(verifyS256("a".repeat(129), CHALLENGE), false);
  assert.equal(verifyS256(`${VERIFIER}!`, CHALLENGE), false);
  for (const bad of ["", CHALLENGE.slice(1), `${CHALLENGE}=`, CHALLENGE.replace("-", "+")]) assert.equal(isValidCodeChallenge(bad), false, bad);
});
