import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { allocateThreadId, newThreadId, threadIdLeaf } from "./ids.ts";
import { isValidThreadId, threadDir } from "./paths.ts";

const NOW = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));

test("newThreadId: <leaf>-<UTC yyyymmdd>t<hhmmss>-<6 hex>", () => {
  const id = newThreadId("acme/ops/Triage", NOW);
  assert.match(id, /^triage-20250102t030405-[0-9a-f]{6}$/);
  assert.equal(isValidThreadId(id), true);
  // UTC, whatever the local time zone: the date part comes from getUTC*.
  assert.match(newThreadId("x", new Date("2024-12-31T23:59:59.999Z")), /^x-20241231t235959-/);
});

test("the leaf is lower-cased, sanitized, starts with a letter or digit and is at most 60 characters", () => {
  assert.equal(threadIdLeaf("acme/ops/My Directive.v2"), "my_directive_v2");
  assert.equal(threadIdLeaf("__init__"), "init__");
  assert.equal(threadIdLeaf("a\\b\\Ünïcode"), "n_code");
  assert.equal(threadIdLeaf(""), "thread");
  assert.equal(threadIdLeaf("///"), "thread");
  assert.equal(threadIdLeaf("---"), "thread");
  assert.equal(threadIdLeaf("x".repeat(100)).length, 60);
  for (const name of ["../../etc/passwd", "a/..", "..", "C:\\x\\y", "名前"]) assert.equal(isValidThreadId(newThreadId(name, NOW)), true, name);
});

test("10 000 ids drawn in the same second are distinct in practice; allocateThreadId guarantees it", async () => {
  const ids = new Set(Array.from({ length: 10_000 }, () => newThreadId("d", NOW)));
  assert.ok(ids.size >= 9_990, `${ids.size} distinct`); // 24 random bits: a handful of birthday collisions at most

  const project = await mkdtemp(join(tmpdir(), "rye-ids-"));
  const allocated = await Promise.all(Array.from({ length: 200 }, () => allocateThreadId(project, "acme/d", { now: NOW })));
  assert.equal(new Set(allocated).size, 200);
  assert.equal((await readdir(join(project, ".ai/threads"))).length, 200, "each allocation created its directory");
});

test("allocateThreadId never hands out a taken id: it draws again, and gives up with CONFLICT after `attempts`", async () => {
  const project = await mkdtemp(join(tmpdir(), "rye-ids-"));
  await mkdir(threadDir(project, "d-20250102t030405-aaaaaa"), { recursive: true });
  const draws = ["d-20250102t030405-aaaaaa", "d-20250102t030405-aaaaaa", "d-20250102t030405-bbbbbb"];
  assert.equal(await allocateThreadId(project, "d", { draw: () => draws.shift()! }), "d-20250102t030405-bbbbbb");
  assert.equal(draws.length, 0);
  const err = await rejects(allocateThreadId(project, "d", { attempts: 3, draw: () => "d-20250102t030405-aaaaaa" }), "CONFLICT");
  assert.match(err.message, /after 3 attempts/);
});
