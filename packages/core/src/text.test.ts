import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { fromBase64, fromBase64Url, normalizeNewlines, pyStrip, toBase64, toBase64Url, utf8Decode } from "./text.ts";

test("pyStrip follows Python's str.strip(), not JavaScript's trim()", () => {
  assert.equal(pyStrip("\x1c\x1d\x1e\x1f\x85 x \u3000\u2028"), "x");
  assert.equal(pyStrip("\ufeffx\ufeff"), "\ufeffx\ufeff", "U+FEFF is not whitespace in Python");
  assert.equal(pyStrip(" \t\n\r\x0b\x0c"), "");
  assert.equal(pyStrip("\u180ex"), "\u180ex", "U+180E is not whitespace since Unicode 6.3");
  assert.equal(pyStrip(""), "");
});

test("normalizeNewlines is Python's universal newlines", () => {
  assert.equal(normalizeNewlines("a\r\nb\rc\n\r\n"), "a\nb\nc\n\n");
  assert.equal(normalizeNewlines("\r\r\n"), "\n\n");
});

test("base64 and padded base64url round-trip and match Buffer", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      assert.equal(toBase64(bytes), Buffer.from(bytes).toString("base64"));
      assert.deepEqual(fromBase64(toBase64(bytes)), bytes);
      const url = toBase64Url(bytes);
      assert.equal(url.replace(/=+$/, ""), Buffer.from(bytes).toString("base64url"));
      assert.deepEqual(fromBase64Url(url), bytes);
    }),
  );
});

test("base64url decoding is strict: padding required, no standard alphabet", () => {
  const sig = toBase64Url(new Uint8Array(64).fill(0xfb));
  assert.ok(sig.endsWith("=="));
  assert.throws(() => fromBase64Url(sig.slice(0, -2)));
  assert.throws(() => fromBase64Url(sig.replace(/-/g, "+")));
  assert.throws(() => fromBase64("abc"));
});

test("utf8Decode keeps a BOM and rejects invalid bytes", () => {
  assert.equal(utf8Decode(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61])), "\ufeffa");
  assert.throws(() => utf8Decode(Uint8Array.from([0xff, 0xfe])));
});
