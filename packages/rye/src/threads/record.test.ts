import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { threadDir, threadFile } from "./paths.ts";
import { finishThread, isTerminal, listThreads, newThreadRecord, readThread, THREAD_STATUSES, updateThread, writeThread } from "./record.ts";

const project = () => mkdtemp(join(tmpdir(), "rye-record-"));

test("newThreadRecord fills the defaults; writeThread/readThread round-trip it", async () => {
  const p = await project();
  const record = newThreadRecord({ thread_id: "t1", directive: "acme/ops/triage", model: "m", limits: { turns: 5, spend: 0.5 } }, new Date("2025-01-02T03:04:05Z"));
  assert.deepEqual(record, {
    thread_id: "t1",
    directive: "acme/ops/triage",
    status: "created",
    created_at: "2025-01-02T03:04:05.000Z",
    updated_at: "2025-01-02T03:04:05.000Z",
    depth: 0,
    limits: { turns: 5, spend: 0.5 },
    capabilities: [],
    cost: { turns: 0, input_tokens: 0, output_tokens: 0, spend: 0, elapsed_seconds: 0 },
    model: "m",
  });
  await writeThread(p, record);
  assert.deepEqual(await readThread(p, "t1"), record);
  assert.deepEqual(await readdir(threadDir(p, "t1")), ["thread.json"], "no temp file or lock left behind");
});

test("readThread: ITEM_NOT_FOUND when missing; a damaged or foreign record is VALIDATION_FAILED naming the file", async () => {
  const p = await project();
  await rejects(readThread(p, "nope"), "ITEM_NOT_FOUND", /No thread nope/);
  await rejects(readThread(p, "../x"), "PATH_TRAVERSAL");
  await mkdir(threadDir(p, "bad"), { recursive: true });
  await writeFile(threadFile(p, "bad", "record"), "{not json");
  await rejects(readThread(p, "bad"), "VALIDATION_FAILED", /thread\.json is not valid JSON/);
  await writeFile(threadFile(p, "bad", "record"), JSON.stringify({ ...newThreadRecord({ thread_id: "bad", directive: "d" }), status: "flying" }));
  const err = await rejects(readThread(p, "bad"), "VALIDATION_FAILED", /is not a valid thread record/);
  assert.deepEqual((err.details as { field: string }[]).map((d) => d.field), ["status"]);
  await writeFile(threadFile(p, "bad", "record"), JSON.stringify(newThreadRecord({ thread_id: "other", directive: "d" })));
  await rejects(readThread(p, "bad"), "VALIDATION_FAILED", /names thread other/);
});

test("a record of the original RYE (fewer fields, +00:00 offsets, unknown fields) is read, and unknown fields survive an update", async () => {
  const p = await project();
  await mkdir(threadDir(p, "orig"), { recursive: true });
  await writeFile(
    threadFile(p, "orig", "record"),
    JSON.stringify({ thread_id: "orig", directive: "x/y", status: "running", created_at: "2025-01-02T03:04:05+00:00", updated_at: "2025-01-02T03:04:05+00:00", model: "claude", custom: { a: 1 } }),
  );
  const read = await readThread(p, "orig");
  assert.equal(read.depth, 0);
  assert.deepEqual(read.capabilities, []);
  await updateThread(p, "orig", { status: "completed", result: "done" });
  const raw = JSON.parse(await readFile(threadFile(p, "orig", "record"), "utf8")) as Record<string, unknown>;
  assert.deepEqual(raw.custom, { a: 1 });
  assert.equal(raw.status, "completed");
});

test("writeThread refuses an invalid record (bad status, negative cost, bad id) without writing", async () => {
  const p = await project();
  const base = newThreadRecord({ thread_id: "t", directive: "d" });
  await rejects(writeThread(p, { ...base, status: "weird" as never }), "VALIDATION_FAILED");
  await rejects(writeThread(p, { ...base, cost: { ...base.cost, spend: -1 } }), "VALIDATION_FAILED");
  await rejects(writeThread(p, { ...base, thread_id: "../t" }), "VALIDATION_FAILED");
  await rejects(writeThread(p, { ...base, updated_at: "yesterday" }), "VALIDATION_FAILED");
  await rejects(readThread(p, "t"), "ITEM_NOT_FOUND");
});

test("updateThread: patch or function, updated_at moves, thread_id and created_at are fixed", async () => {
  const p = await project();
  const created = await writeThread(p, newThreadRecord({ thread_id: "t", directive: "d" }, new Date("2025-01-01T00:00:00Z")));
  const a = await updateThread(p, "t", { status: "running", pid: 1234 });
  assert.equal(a.status, "running");
  assert.equal(a.pid, 1234);
  assert.ok(Date.parse(a.updated_at) > Date.parse(created.updated_at));
  const b = await updateThread(p, "t", (r) => ({ ...r, cost: { ...r.cost, turns: r.cost.turns + 1 } }));
  assert.equal(b.cost.turns, 1);
  await rejects(updateThread(p, "t", (r) => ({ ...r, thread_id: "u" })), "BAD_REQUEST");
  await rejects(updateThread(p, "t", { status: "nope" as never }), "VALIDATION_FAILED");
  await rejects(updateThread(p, "missing", { status: "running" }), "ITEM_NOT_FOUND");
  assert.equal((await readThread(p, "t")).cost.turns, 1);
});

test("50 concurrent updateThread calls lose no increment (per-thread lock)", async () => {
  const p = await project();
  await writeThread(p, newThreadRecord({ thread_id: "t", directive: "d" }));
  await Promise.all(Array.from({ length: 50 }, () => updateThread(p, "t", (r) => ({ ...r, cost: { ...r.cost, turns: r.cost.turns + 1 } }))));
  assert.equal((await readThread(p, "t")).cost.turns, 50);
});

test("finishThread sets a terminal status once; a second finish is CONFLICT naming how it ended", async () => {
  const p = await project();
  await writeThread(p, newThreadRecord({ thread_id: "t", directive: "d", status: "running" }));
  const done = await finishThread(p, "t", "completed", { result: "42" });
  assert.equal(done.status, "completed");
  assert.equal(done.result, "42");
  assert.ok(done.ended_at);
  const err = await rejects(finishThread(p, "t", "killed"), "CONFLICT", /already ended \(completed\)/);
  assert.deepEqual(err.details, { thread_id: "t", status: "completed" });
  assert.equal((await readThread(p, "t")).status, "completed");
});

test("isTerminal", () => {
  assert.deepEqual(
    THREAD_STATUSES.filter((s) => isTerminal(s)),
    ["completed", "error", "cancelled", "killed", "suspended"],
  );
});

test("listThreads: newest first; damaged ones reported, not thrown; half-created directories skipped", async () => {
  const p = await project();
  assert.deepEqual(await listThreads(p), { threads: [], damaged: [] });
  await writeThread(p, newThreadRecord({ thread_id: "old", directive: "d" }, new Date("2025-01-01T00:00:00Z")));
  await writeThread(p, newThreadRecord({ thread_id: "new", directive: "d" }, new Date("2025-03-01T00:00:00Z")));
  await writeThread(p, newThreadRecord({ thread_id: "mid", directive: "d" }, new Date("2025-02-01T00:00:00Z")));
  await mkdir(threadDir(p, "broken"), { recursive: true });
  await writeFile(threadFile(p, "broken", "record"), "[]");
  await mkdir(threadDir(p, "creating"), { recursive: true });
  await mkdir(join(p, ".ai/threads/Not_An_Id"), { recursive: true });
  await writeFile(join(p, ".ai/threads/ledger.json"), "{}");
  const { threads, damaged } = await listThreads(p);
  assert.deepEqual(threads.map((t) => t.thread_id), ["new", "mid", "old"]);
  assert.deepEqual(damaged.map((d) => [d.thread_id, d.error.code]), [["Not_An_Id", "BAD_REQUEST"], ["broken", "VALIDATION_FAILED"]]);
});
