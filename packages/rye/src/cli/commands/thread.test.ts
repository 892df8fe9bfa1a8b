/**
 * `rye thread list|status|tail|cancel|kill` against thread files written here and a fake thread process: the real
 * binary for exit codes, envelopes and the cancel/kill flows; the same CLI in-process (runCli) for the many
 * formatting and error cases, which would otherwise cost a node start each.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runRye } from "../../../test/cli.ts";
import { getEntry, readLedger, report, reserve } from "../../threads/ledger.ts";
import { threadDir, threadFile } from "../../threads/paths.ts";
import { isAlive } from "../../threads/processes.ts";
import type { ThreadRecord } from "../../threads/record.ts";
import { newThreadRecord, readThread, writeThread } from "../../threads/record.ts";
import { readTranscript, TranscriptWriter } from "../../threads/transcript.ts";
import type { TranscriptEvent } from "../../threads/transcript.ts";
import { runFixture } from "../../threads/fixtures/run.ts";
import { runCli } from "../main.ts";
import type { CliRun } from "../../../test/cli.ts";

const env = (project: string) => ({ ...process.env, USER_SPACE: join(project, "home") });
/** The real binary. */
const rye = (args: string[], project: string) => runRye([...args, "-p", project], { env: env(project) });
/** The same CLI in this process. */
async function cli(args: string[], project: string): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const nl = (t: string) => (t.endsWith("\n") ? t : `${t}\n`);
  const io = { stdout: (t: string) => void (stdout += nl(t)), stderr: (t: string) => void (stderr += nl(t)) };
  const code = await runCli([...args, "-p", project], { io, env: env(project), cwd: project });
  return { code, stdout, stderr };
}
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;
const hour = (base: string, h: number) => new Date(Date.parse(base) + h * 3_600_000);

async function writeEvents(project: string, id: string, events: [string, unknown][]): Promise<void> {
  const w = new TranscriptWriter(project, id);
  for (const [type, payload] of events) await w.append(type, payload);
  await w.close();
}

async function fixtureProject(): Promise<string> {
  const p = await mkdtemp(join(tmpdir(), "rye-thread-cli-"));
  const cost = { turns: 3, input_tokens: 1000, output_tokens: 200, spend: 0.0123456, elapsed_seconds: 75 };
  for (let i = 0; i < 25; i++) {
    const id = `fin-${String(i).padStart(2, "0")}`;
    await writeThread(p, newThreadRecord({ thread_id: id, directive: "acme/demo/fin", status: "completed", model: "m1", cost, result: `answer ${i}` }, hour("2025-01-01T00:00:00Z", i)));
  }
  await writeEvents(p, "fin-24", [
    ["thread_started", { directive: "acme/demo/fin", model: "m1" }],
    ["cognition_in", { text: "Question?" }],
    ["cognition_out_delta", { text: "Ans" }],
    ["cognition_out", { text: "Answer 24" }],
    ["thread_completed", { status: "completed", cost, result: "answer 24" }],
  ]);
  await writeThread(p, newThreadRecord({ thread_id: "err-1", directive: "acme/demo/err", status: "error", error: { code: "TIMEOUT", message: "model too slow" } }, new Date("2025-02-01T00:00:00Z")));
  // Running, but its process is gone: orphaned.
  await writeThread(p, newThreadRecord({ thread_id: "orph", directive: "acme/demo/orph", status: "running", pid: deadPid(), parent_thread_id: "orph-parent" }, new Date("2025-03-01T00:00:00Z")));
  await reserve(p, { threadId: "orph-parent", amount: 1 });
  await reserve(p, { threadId: "orph", parentId: "orph-parent", amount: 0.4 });
  await report(p, "orph", 0.05);
  await writeEvents(p, "orph", [["thread_started", { directive: "acme/demo/orph" }], ["cognition_in", { text: "go" }], ["cognition_out", { text: "working" }]]);
  // Running and alive (this test process stands in for it; it wrote the record after it started), and the oldest.
  const live = newThreadRecord({ thread_id: "live", directive: "acme/demo/live", status: "running", pid: process.pid }, new Date("2024-12-01T00:00:00Z"));
  await writeThread(p, { ...live, updated_at: new Date().toISOString() });
  await mkdir(threadDir(p, "broken"), { recursive: true });
  await writeFile(threadFile(p, "broken", "record"), "{");
  return p;
}

test("list, status and tail read the threads; finished threads cannot be cancelled or killed; bad ids are refused", async () => {
  const p = await fixtureProject();
  const [listJson, listText, listAll, statusOrph, statusFin, tailMd, tailJson] = await Promise.all([
    rye(["thread", "list", "--json"], p),
    cli(["thread", "list"], p),
    cli(["thread", "list", "--all", "--json"], p),
    cli(["thread", "status", "orph", "--json"], p),
    cli(["thread", "status", "fin-24"], p),
    cli(["thread", "tail", "fin-24"], p),
    cli(["thread", "tail", "fin-24", "--json"], p),
  ]);

  assert.equal(listJson.code, 0, listJson.stderr);
  const listed = JSON.parse(listJson.stdout) as { threads: (ThreadRecord & { orphaned: boolean })[]; omitted: number; damaged: { thread_id: string }[] };
  assert.deepEqual(
    listed.threads.map((t) => t.thread_id),
    ["orph", "err-1", ...Array.from({ length: 19 }, (_, i) => `fin-${String(24 - i).padStart(2, "0")}`), "live"],
    "newest first: every running thread, and the 20 most recent others",
  );
  assert.equal(listed.omitted, 6);
  assert.deepEqual(listed.damaged.map((d) => d.thread_id), ["broken"]);
  assert.deepEqual(listed.threads.filter((t) => t.orphaned).map((t) => t.thread_id), ["orph"]);
  assert.equal((JSON.parse(listAll.stdout) as { threads: unknown[] }).threads.length, 28);

  assert.equal(listText.code, 0);
  const lines = listText.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^ID\s+DIRECTIVE\s+STATUS\s+MODEL\s+TURNS\s+TOKENS\s+SPEND\s+STARTED\s+DURATION$/);
  assert.match(lines[1]!, /^orph\s+acme\/demo\/orph\s+running \(orphaned\)\s+-\s+0\s+0\s+\$0\.0000\s+2025-03-01 00:00:00Z\s+\S+$/);
  assert.match(listText.stdout, /\nfin-24\s+acme\/demo\/fin\s+completed\s+m1\s+3\s+1200\s+\$0\.0123\s+2025-01-02 00:00:00Z\s+1m15s\n/);
  assert.match(lines.at(-1)!, /^\(6 older threads not shown: rye thread list --all\)$/);
  assert.match(listText.stderr, /warning: thread broken is unreadable: error\[VALIDATION_FAILED\]/);

  assert.equal(statusOrph.code, 0, statusOrph.stderr);
  const status = JSON.parse(statusOrph.stdout) as { thread: ThreadRecord; orphaned: boolean; ledger: { reserved_spend: number; actual_spend: number; status: string }; transcript: { events: number }; cancel_requested: unknown };
  assert.equal(status.thread.thread_id, "orph");
  assert.equal(status.orphaned, true);
  assert.deepEqual([status.ledger.reserved_spend, status.ledger.actual_spend, status.ledger.status], [0.4, 0.05, "active"]);
  assert.equal(status.transcript.events, 3);
  assert.equal(status.cancel_requested, null);

  assert.equal(statusFin.code, 0);
  assert.match(statusFin.stdout, /^thread\s+fin-24$/m);
  assert.match(statusFin.stdout, /^status\s+completed$/m);
  assert.match(statusFin.stdout, /^cost\s+turns 3, tokens 1000 in \/ 200 out, spend \$0\.012346, 75\.0 s$/m);
  assert.match(statusFin.stdout, /^budget\s+no ledger entry$/m);
  assert.match(statusFin.stdout, /^transcript\s+5 events/m);
  assert.match(statusFin.stdout, /\nresult:\nanswer 24\n/);

  assert.equal(tailMd.code, 0);
  assert.match(tailMd.stdout, /^# acme\/demo\/fin\n/);
  assert.match(tailMd.stdout, /## User\n\nQuestion\?\n[\s\S]*## Assistant\n\nAnswer 24\n[\s\S]*\*\*Status:\*\* completed/);
  assert.doesNotMatch(tailMd.stdout, /Ans\n/);
  const events = tailJson.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as TranscriptEvent);
  assert.deepEqual(events.map((e) => e.event_type), ["thread_started", "cognition_in", "cognition_out_delta", "cognition_out", "thread_completed"]);

  const [cancelFin, killFin, traversal, badId, missing, badGrace, empty] = await Promise.all([
    cli(["thread", "cancel", "fin-24"], p),
    cli(["thread", "kill", "fin-24", "--json"], p),
    cli(["thread", "status", "../../etc"], p),
    rye(["thread", "tail", "Bad Id"], p),
    rye(["thread", "status", "nope", "--json"], p),
    cli(["thread", "kill", "orph", "--grace-ms", "soon"], p),
    cli(["thread", "list"], join(p, "home")),
  ]);
  assert.equal(cancelFin.code, 1);
  assert.match(cancelFin.stderr, /^error\[CONFLICT\]: Thread fin-24 already ended \(completed\): nothing to cancel\nhint: See how it ended: rye thread status fin-24/);
  assert.equal(killFin.code, 1);
  assert.equal((JSON.parse(killFin.stdout) as { error: { code: string } }).error.code, "CONFLICT");
  assert.equal(traversal.code, 1);
  assert.match(traversal.stderr, /error\[PATH_TRAVERSAL\][\s\S]*hint: Thread ids are/);
  assert.equal(badId.code, 2, "a malformed id is a usage error");
  assert.match(badId.stderr, /error\[BAD_REQUEST\]: Invalid thread id "Bad Id"/);
  assert.equal(missing.code, 1);
  assert.deepEqual(Object.keys((JSON.parse(missing.stdout) as { error: object }).error), ["code", "message", "hint"]);
  assert.equal((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, "ITEM_NOT_FOUND");
  assert.equal(badGrace.code, 2);
  assert.match(badGrace.stderr, /--grace-ms must be an integer/);
  assert.equal(empty.code, 0);
  assert.match(empty.stdout, /^No threads in /);
  for (const r of [cancelFin, traversal, badId, missing]) assert.doesNotMatch(r.stdout + r.stderr, /\n\s+at /, "no stack trace");

  // An orphan has no process to stop: kill marks it, closes its transcript and releases its budget to the parent.
  const kill = await cli(["thread", "kill", "orph"], p);
  assert.equal(kill.code, 0, kill.stderr);
  assert.match(kill.stdout, /^Killed thread orph at .*: its process \d+ was already gone\.\nBudget released: spent \$0\.050000 of \$0\.400000 reserved, added to parent orph-parent\.\n$/);
  const record = await readThread(p, "orph");
  assert.equal(record.status, "killed");
  assert.ok(record.ended_at);
  assert.equal((await getEntry(p, "orph"))!.status, "released");
  assert.equal((await getEntry(p, "orph-parent"))!.actual_spend, 0.05);
  assert.equal((await readTranscript(p, "orph")).at(-1)!.event_type, "thread_killed");
});

test("cancel: a running thread is asked to stop; tail --follow streams until it ends as cancelled", async () => {
  const p = await mkdtemp(join(tmpdir(), "rye-thread-cli-"));
  await reserve(p, { threadId: "parent", amount: 2 });
  const fake = runFixture("fake-thread.ts", [p, "fake-1", "parent"], { detached: true });
  const [, pid, child] = (await fake.line(/^ready /)).split(" ").map(Number) as [number, number, number];
  try {
    const follow = rye(["thread", "tail", "fake-1", "--follow", "--json"], p);
    const status = JSON.parse((await cli(["thread", "status", "fake-1", "--json"], p)).stdout) as { thread: ThreadRecord; orphaned: boolean };
    assert.deepEqual([status.thread.status, status.thread.pid, status.orphaned], ["running", pid, false]);
    const cancel = await rye(["thread", "cancel", "fake-1"], p);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.match(cancel.stdout, /^Cancellation requested for fake-1: the thread stops before its next model or tool call and ends as cancelled\.\nTo stop it at once: rye thread kill fake-1\n$/);
    assert.equal((await fake.exited).code, 0, "the thread noticed the marker and exited");
    const followed = await follow;
    assert.equal(followed.code, 0, followed.stderr);
    const events = followed.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as TranscriptEvent);
    assert.deepEqual(events.slice(0, 4).map((e) => e.event_type), ["thread_started", "cognition_in", "tool_call_start", "tool_call_result"]);
    assert.ok(events.some((e) => e.event_type === "cognition_out"), "events written while following arrived");
    assert.equal(events.at(-1)!.event_type, "thread_cancelled", "follow ran until the thread ended");
    assert.doesNotMatch(followed.stdout, /sk-fake-secret/);
    assert.equal((await readThread(p, "fake-1")).status, "cancelled");
    assert.equal((await getEntry(p, "parent"))!.actual_spend, 0.123);
    const again = await cli(["thread", "cancel", "fake-1", "--json"], p);
    assert.equal(again.code, 1);
    assert.equal((JSON.parse(again.stdout) as { error: { code: string } }).error.code, "CONFLICT");
  } finally {
    for (const p of [pid, child]) if (isAlive(p)) process.kill(p, "SIGKILL");
  }
});

test("kill: a thread ignoring SIGTERM and its child are both gone after the grace period; marked killed; spend cascades", async () => {
  const p = await mkdtemp(join(tmpdir(), "rye-thread-cli-"));
  await reserve(p, { threadId: "parent", amount: 2 });
  const fake = runFixture("fake-thread.ts", [p, "fake-2", "parent", "--ignore-term"], { detached: true });
  const [, pid, child] = (await fake.line(/^ready /)).split(" ").map(Number) as [number, number, number];
  try {
    assert.ok(isAlive(pid) && isAlive(child));
    const t0 = performance.now();
    const kill = await rye(["thread", "kill", "fake-2", "--grace-ms", "300", "--json"], p);
    assert.equal(kill.code, 0, kill.stderr);
    const out = JSON.parse(kill.stdout) as { status: string; ended_by_itself: boolean; process: { pid: number; was_alive: boolean; forced: boolean; exited: boolean }; ledger: { status: string; actual_spend: number } };
    assert.equal(out.status, "killed");
    assert.equal(out.ended_by_itself, false);
    assert.deepEqual(out.process, { pid, was_alive: true, forced: true, exited: true });
    assert.ok(performance.now() - t0 >= 300);
    assert.equal((await fake.exited).signal, "SIGKILL");
    assert.equal(isAlive(pid), false);
    assert.equal(isAlive(child), false, "the thread's child went with it");
    const record = await readThread(p, "fake-2");
    assert.equal(record.status, "killed");
    assert.ok(Date.parse(record.ended_at!) >= Date.parse(record.created_at));
    assert.ok(record.cost.elapsed_seconds > 0);
    assert.deepEqual([out.ledger.status, out.ledger.actual_spend], ["released", 0.123]);
    const ledger = await readLedger(p);
    assert.equal(ledger.entries.parent!.actual_spend, 0.123, "the killed thread's spend reached its parent");
    const events = await readTranscript(p, "fake-2");
    assert.equal(events.at(-1)!.event_type, "thread_killed");
    const again = await cli(["thread", "kill", "fake-2"], p);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /error\[CONFLICT\]: Thread fake-2 already ended \(killed\)/);
  } finally {
    for (const p of [pid, child]) if (isAlive(p)) process.kill(p, "SIGKILL");
  }
});
