import assert from "node:assert/strict";
import { test } from "node:test";
import { loginQr, wantsQr } from "./qr.ts";

test("the QR code is for people: a terminal on stdout, no --json, no --no-qr", () => {
  assert.equal(wantsQr({ qrFlag: undefined, stdoutIsTty: true, json: false }), true);
  assert.equal(wantsQr({ qrFlag: true, stdoutIsTty: true, json: false }), true);
  assert.equal(wantsQr({ qrFlag: false, stdoutIsTty: true, json: false }), false);
  assert.equal(wantsQr({ qrFlag: true, stdoutIsTty: false, json: false }), false);
  assert.equal(wantsQr({ qrFlag: true, stdoutIsTty: true, json: true }), false);
});

test("the code is square half-block text that differs per link", () => {
  const a = loginQr("https://registry.example/device?user_code=ABCD-EFGH");
  const rows = a.split("\n").filter(Boolean);
  const width = [...rows[0]!].length;
  assert.ok(rows.every((r) => [...r].length === width), "every row has the same width");
  assert.ok(Math.abs(rows.length * 2 - width) <= 1, "two modules per character row: square");
  assert.match(a, /^[ ▀▄█\n]+$/);
  assert.notEqual(loginQr("https://registry.example/device?user_code=ABCD-EFGI"), a);
});
