/** Name and email rules (pinned). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { NAME_MAX_LENGTH, NAME_MIN_LENGTH, nameProblems, normalizeEmail, normalizeName, RESERVED_NAMES } from "./usernames.ts";

test("limits are pinned", () => {
  assert.deepEqual([NAME_MIN_LENGTH, NAME_MAX_LENGTH], [2, 39]);
});

test("valid names", () => {
  for (const name of ["ab", "alice", "a1", "42", "acme-ci", "a-b-c", "x".repeat(39)]) assert.deepEqual(nameProblems(name), [], name);
});

test("invalid names", () => {
  for (const name of ["a", "", "x".repeat(40), "Alice", "-alice", "alice-", "al--ice", "al_ice", "al.ice", "al ice", "al/ice", "\u0430lice", "alice\n", "../x", "a'b"]) {
    assert.equal(nameProblems(name).length, 1, JSON.stringify(name));
  }
});

test("names are normalized to lowercase before the rules", () => {
  assert.equal(normalizeName("  Alice-CI "), "alice-ci");
  assert.deepEqual(nameProblems(normalizeName("Alice")), []);
});

test("reserved names are refused", () => {
  for (const name of ["admin", "administrator", "root", "api", "www", "rye", "registry", "system", "support", "help", "login", "logout", "signin", "signup", "settings", "account", "new", "org", "orgs", "oauth", "device", "search", "about", "docs", "security", "status", "null", "undefined"]) {
    assert.ok(RESERVED_NAMES.has(name), name);
    assert.match(nameProblems(name).join(), /reserved/, name);
  }
  for (const name of RESERVED_NAMES) assert.equal(normalizeName(name), name, "reserved names are stored normalized");
});

test("the website's top-level routes can never be a user or organization name", () => {
  // /{namespace} pages sit beside these (apps/web/app): a namespace named like them would be unreachable.
  for (const name of ["directive", "directives", "tool", "tools", "knowledge", "publish", "manage", "search", "settings", "login", "signup", "device"]) {
    assert.ok(RESERVED_NAMES.has(name), name);
    assert.match(nameProblems(name).join(), /reserved/, name);
  }
  // Next.js serves its assets under /_next: reserved, and not even a valid name.
  assert.ok(RESERVED_NAMES.has("_next"));
  assert.equal(nameProblems("_next").length, 1);
});

test("emails are trimmed, lowercased and shape-checked", () => {
  assert.equal(normalizeEmail("  Alice@Example.TEST "), "alice@example.test");
  assert.equal(normalizeEmail("a.b+tag@sub.example.org"), "a.b+tag@sub.example.org");
  for (const bad of ["", "alice", "alice@", "@example.test", "alice@example", "alice@@example.test", "al ice@example.test", "alice@example..test", "alice@.test", `${"x".repeat(250)}@example.test`, "a@b.c\nBcc: x@y.z", "<script>@x.y", "a(b)@example.test", "\"a b\"@example.test", "a@-example.test", ".a@example.test"]) {
    assert.equal(normalizeEmail(bad), null, JSON.stringify(bad));
  }
});
