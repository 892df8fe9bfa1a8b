/** safeNext: the same accept/refuse decisions as the API's safeNextPath, falling back to "/" instead of throwing. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { landingAfterSignIn, safeNext, signInUrl } from "./session-next.ts";

test("same-origin paths pass through, with their query and fragment", () => {
  assert.equal(safeNext("/settings/tokens"), "/settings/tokens");
  assert.equal(safeNext("/oauth/authorize?client_id=rye-cli&state=a%20b#x"), "/oauth/authorize?client_id=rye-cli&state=a%20b#x");
  assert.equal(safeNext("/device?user_code=ABCD-EFGH"), "/device?user_code=ABCD-EFGH");
  assert.equal(safeNext(["/a", "/b"]), "/a");
  assert.equal(safeNext("/a/../b"), "/b", "dot segments are resolved");
});

test("anything that could leave the origin falls back to / (or the given fallback)", () => {
  for (const bad of [
    undefined,
    null,
    "",
    "settings",
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "/\t/evil.example",
    "/x\u0000",
    "javascript:alert(1)",
    " /settings",
    `/${"a".repeat(2048)}`,
  ]) {
    assert.equal(safeNext(bad as string | undefined), "/", JSON.stringify(bad));
  }
  assert.equal(safeNext("//x", "/settings"), "/settings");
});

test("sign-in URLs carry next encoded; the sign-in pages themselves are not a landing", () => {
  assert.equal(signInUrl("/settings"), "/login?next=%2Fsettings");
  assert.equal(signInUrl("/device?user_code=AB-CD", "/signup"), "/signup?next=%2Fdevice%3Fuser_code%3DAB-CD");
  assert.equal(signInUrl("https://evil.example"), "/login");
  assert.equal(landingAfterSignIn("/login?next=/x"), "/");
  assert.equal(landingAfterSignIn("/signup"), "/");
  assert.equal(landingAfterSignIn("/settings/keys"), "/settings/keys");
});
