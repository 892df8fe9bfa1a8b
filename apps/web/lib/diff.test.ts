import assert from "node:assert/strict";
import { test } from "node:test";
import { formatUnified, lineDiff, parseDiffRange } from "./diff.ts";

test("ranges: a...b and a..b, nothing else", () => {
  assert.deepEqual(parseDiffRange("1.0.0...1.1.0"), { from: "1.0.0", to: "1.1.0" });
  assert.deepEqual(parseDiffRange("1.0.0..2.0.0-beta.1"), { from: "1.0.0", to: "2.0.0-beta.1" });
  for (const bad of [undefined, null, "", "1.0.0", "1.0.0...", "...1.0.0", "1.0.0...1.0.0", "a b...c", "1.0.0....1.1.0"]) assert.equal(parseDiffRange(bad), null, String(bad));
});

test("identical texts have no hunks", () => {
  const d = lineDiff("a\nb\n", "a\r\nb\r\n");
  assert.equal(d.identical, true);
  assert.deepEqual(d.hunks, []);
});

test("a change is a unified hunk with numbered lines and counts", () => {
  const old = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"].join("\n") + "\n";
  const next = ["one", "two", "three", "four", "FIVE", "six", "seven", "eight", "nine", "ten"].join("\n") + "\n";
  const d = lineDiff(old, next);
  assert.equal(d.added, 2);
  assert.equal(d.removed, 1);
  assert.equal(d.hunks.length, 1);
  const [hunk] = d.hunks;
  assert.equal(hunk!.header, "@@ -2,8 +2,9 @@");
  const removed = hunk!.lines.find((l) => l.kind === "remove")!;
  assert.deepEqual(removed, { kind: "remove", text: "five", oldNumber: 5, newNumber: null });
  const added = hunk!.lines.filter((l) => l.kind === "add");
  assert.deepEqual(added.map((l) => [l.text, l.newNumber]), [["FIVE", 5], ["ten", 10]]);
  assert.equal(hunk!.lines.filter((l) => l.kind === "context").length, 7);
  assert.equal(formatUnified(d, "a", "b").split("\n").slice(0, 3).join("|"), "--- a|+++ b|@@ -2,8 +2,9 @@");
});

test("distant changes make separate hunks; a missing final newline is not a change marker", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
  const changed = [...lines];
  changed[1] = "changed 2";
  changed[35] = "changed 36";
  const d = lineDiff(lines.join("\n"), changed.join("\n"));
  assert.equal(d.hunks.length, 2);
  assert.ok(d.hunks.every((h) => h.lines.every((l) => !l.text.startsWith("\\"))));
});
