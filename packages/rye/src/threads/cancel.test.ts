import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { isCancelRequested, readCancelRequest, requestCancel } from "./cancel.ts";
import { threadFile } from "./paths.ts";
import { newThreadRecord, writeThread } from "./record.ts";

test("requestCancel writes the marker with who and when; isCancelRequested sees it", async () => {
  const p = await mkdtemp(join(tmpdir(), "rye-cancel-"));
  await writeThread(p, newThreadRecord({ thread_id: "t1", directive: "d", status: "running" }));
  assert.equal(await isCancelRequested(p, "t1"), false);
  assert.equal(await readCancelRequest(p, "t1"), undefined);
  const written = await requestCancel(p, "t1", { reason: "user asked" });
  assert.equal(await isCancelRequested(p, "t1"), true);
  assert.deepEqual(JSON.parse(await readFile(threadFile(p, "t1", "cancel"), "utf8")), written);
  assert.equal(written.by.pid, process.pid);
  assert.equal(written.reason, "user asked");
  assert.ok(Math.abs(Date.parse(written.requested_at) - Date.now()) < 5_000);
  assert.deepEqual(await readCancelRequest(p, "t1"), written);
});

test("cancel refuses unknown threads and bad ids before touching the disk", async () => {
  const p = await mkdtemp(join(tmpdir(), "rye-cancel-"));
  await rejects(requestCancel(p, "ghost"), "ITEM_NOT_FOUND");
  await rejects(requestCancel(p, "../../x"), "PATH_TRAVERSAL");
  await rejects(isCancelRequested(p, "A/b"), "BAD_REQUEST");
  assert.equal(await isCancelRequested(p, "ghost"), false);
});
