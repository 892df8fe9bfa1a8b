import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { threadFile } from "./paths.ts";
import { finishThread, newThreadRecord, updateThread, writeThread } from "./record.ts";
import type { TranscriptEvent } from "./transcript.ts";
import { dropPartialTail, followTranscript, readTranscript, redact, renderEvent, TranscriptWriter } from "./transcript.ts";

const project = () => mkdtemp(join(tmpdir(), "rye-transcript-"));
const ev = (event_type: string, payload: unknown): TranscriptEvent => ({ timestamp: 1735787045.5, thread_id: "t1", event_type, payload });

test("append writes one JSON line per event at once (no buffering) and its markdown; deltas stay out of the markdown", async () => {
  const p = await project();
  const w = new TranscriptWriter(p, "t1");
  const before = Date.now() / 1000;
  const first = await w.append("thread_started", { directive: "acme/ops/triage", model: "m1", provider: "anthropic" });
  // Another reader sees the line as soon as append resolved, while the writer is still open.
  const lines = (await readFile(threadFile(p, "t1", "transcript"), "utf8")).split("\n");
  assert.equal(lines.length, 2);
  const parsed = JSON.parse(lines[0]!) as TranscriptEvent;
  assert.deepEqual(Object.keys(parsed), ["timestamp", "thread_id", "event_type", "payload"]);
  assert.deepEqual(parsed, first);
  assert.ok(parsed.timestamp >= before && parsed.timestamp <= Date.now() / 1000, "unix seconds, with the milliseconds as fraction");
  await w.append("cognition_out_delta", { text: "Hel" });
  await w.append("cognition_out", { text: "Hello" });
  await w.close();
  assert.equal((await readTranscript(p, "t1")).length, 3);
  const md = await readFile(threadFile(p, "t1", "markdown"), "utf8");
  assert.match(md, /^# acme\/ops\/triage\n\n- thread: `t1`\n- model: m1 \(anthropic\)\n/);
  assert.match(md, /## Assistant\n\nHello\n/);
  assert.doesNotMatch(md, /Hel\n/);
  await rejects(w.append("x", {}), "CONFLICT");
});

test("appends keep call order without awaiting; event types are checked", async () => {
  const p = await project();
  const w = new TranscriptWriter(p, "t1");
  await Promise.all(Array.from({ length: 200 }, (_, i) => w.append("cognition_out_delta", { text: String(i) })));
  await w.close();
  assert.deepEqual((await readTranscript(p, "t1")).map((e) => (e.payload as { text: string }).text), Array.from({ length: 200 }, (_, i) => String(i)));
  await rejects(new TranscriptWriter(p, "t1").append("Bad Type", {}), "BAD_REQUEST");
  assert.throws(() => new TranscriptWriter(p, "../t"), /'\.\.'/);
});

test("secrets never reach either file: deep strings, keys, arrays, errors, JSON-special characters, overlapping values", async () => {
  const p = await project();
  const key = 'sk-ant-"quoted\\slash\nline';
  const w = new TranscriptWriter(p, "t1", { secrets: [key, "sk-ant-", "", "tok_123456"] });
  await w.append("tool_call_start", {
    tool: "rye_execute",
    input: { headers: { authorization: `Bearer ${key}` }, list: [key, `x${key}y`, 7], [key]: "as a key", nested: { deeper: [{ v: "tok_123456 and tok_123456" }] } },
  });
  await w.append("tool_call_result", { tool: "t", is_error: true, error: new Error(`request with ${key} failed`) });
  await w.close();
  const jsonl = await readFile(threadFile(p, "t1", "transcript"), "utf8");
  const md = await readFile(threadFile(p, "t1", "markdown"), "utf8");
  for (const text of [jsonl, md]) {
    for (const leak of ["sk-ant-", "quoted\\\\slash", "tok_123456", "quoted"]) assert.ok(!text.includes(leak), `${leak} leaked`);
  }
  const [start, result] = await readTranscript(p, "t1");
  const input = (start!.payload as { input: Record<string, unknown> }).input;
  assert.deepEqual(input.headers, { authorization: "Bearer [redacted]" });
  assert.deepEqual(input.list, ["[redacted]", "x[redacted]y", 7]);
  assert.equal(input["[redacted]"], "as a key");
  assert.deepEqual(input.nested, { deeper: [{ v: "[redacted] and [redacted]" }] });
  assert.deepEqual((result!.payload as { error: unknown }).error, { name: "Error", message: "request with [redacted] failed" });
});

test("redact makes any value JSON-safe", () => {
  const cyclic: Record<string, unknown> = { a: 1n, f: () => 1, u: undefined, n: Number.NaN, d: new Date(0) };
  cyclic.self = cyclic;
  assert.deepEqual(redact(cyclic, []), { a: "1", n: null, d: "1970-01-01T00:00:00.000Z", self: "[circular]" });
  const shared = { x: 1 };
  assert.deepEqual(redact({ a: shared, b: shared }, []), { a: { x: 1 }, b: { x: 1 } }, "a repeated (not cyclic) object is kept");
  assert.equal(redact(undefined, []), null);
});

test("renderEvent covers every event type of the runtime", () => {
  assert.equal(renderEvent(ev("cognition_in", { text: "Do the thing" })), "## User\n\nDo the thing\n");
  assert.equal(renderEvent(ev("cognition_out", { text: "Done" })), "## Assistant\n\nDone\n");
  assert.equal(renderEvent(ev("cognition_out_delta", { text: "D" })), "");
  assert.equal(renderEvent(ev("tool_call_start", { call_id: "c1", tool: "rye_search", input: { query: "x" } })), '### Tool call: rye_search `c1`\n\n```json\n{\n  "query": "x"\n}\n```\n');
  assert.equal(renderEvent(ev("tool_call_result", { tool: "rye_load", output: "text with ``` inside" })), "### Result: rye_load\n\n````\ntext with ``` inside\n````\n");
  assert.equal(renderEvent(ev("tool_call_result", { tool: "rye_load", is_error: true, error: { code: "ITEM_NOT_FOUND" } })), '### **Error**: rye_load\n\n```json\n{\n  "code": "ITEM_NOT_FOUND"\n}\n```\n');
  assert.equal(renderEvent(ev("tool_call_denied", { tool: "rye_execute", reason: "not permitted", capability: "rye.execute.tool.x" })), "### Denied: rye_execute\n\nnot permitted (requires `rye.execute.tool.x`)\n");
  assert.equal(renderEvent(ev("limit_exceeded", { limit_code: "turns_exceeded", current_value: 11, current_max: 10 })), "### Limit exceeded: turns_exceeded (11 of 10)\n");
  assert.equal(renderEvent(ev("hook_fired", { hook_id: "h1", event: "after_step", action: "load" })), "### Hook h1 on after_step → load\n");
  const cost = { turns: 3, input_tokens: 1200, output_tokens: 340, spend: 0.0045123, elapsed_seconds: 12.34 };
  assert.equal(
    renderEvent(ev("thread_completed", { status: "completed", cost, result: "All good" })),
    "---\n\n**Status:** completed\n\n**Cost:** turns 3, tokens 1200 in / 340 out, spend $0.004512, 12.3 s\n\n**Result:**\n\nAll good\n",
  );
  assert.match(renderEvent(ev("thread_error", { cost, error: { code: "TIMEOUT", message: "slow" } })), /\*\*Status:\*\* error[\s\S]*\*\*Error:\*\* TIMEOUT: slow\n$/);
  for (const closing of ["thread_cancelled", "thread_killed", "thread_suspended"]) {
    assert.match(renderEvent(ev(closing, {})), new RegExp(`\\*\\*Status:\\*\\* ${closing.slice(7)}\\n\\n\\*\\*Cost:\\*\\* turns 0, tokens 0 in / 0 out, spend \\$0\\.000000`));
  }
  assert.match(renderEvent(ev("thread_suspended", { escalation: { limit_code: "spend_exceeded", current_value: 1, current_max: 1 } })), /\*\*Escalation:\*\*/);
  assert.equal(renderEvent(ev("custom_event", { a: 1 })), '### custom_event\n\n```json\n{\n  "a": 1\n}\n```\n');
});

test("readTranscript: [] before the first event; a damaged line is VALIDATION_FAILED naming it; a line being written is skipped", async () => {
  const p = await project();
  assert.deepEqual(await readTranscript(p, "t1"), []);
  const w = new TranscriptWriter(p, "t1");
  await w.append("cognition_in", { text: "a" });
  await w.append("cognition_in", { text: "b" });
  await w.close();
  const path = threadFile(p, "t1", "transcript");
  await appendFile(path, '{"timestamp": 1, "thread_id": "t1", "ev');
  assert.equal((await readTranscript(p, "t1")).length, 2, "the unfinished last line is not an event yet");
  await appendFile(path, "\n");
  const err = await rejects(readTranscript(p, "t1"), "VALIDATION_FAILED", /transcript\.jsonl line 3 is not a transcript event/);
  assert.equal((err.details as { line: number }).line, 3);
});

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

async function collect(iterator: AsyncGenerator<TranscriptEvent>, into: TranscriptEvent[]): Promise<void> {
  for await (const e of iterator) into.push(e);
}

for (const watch of [true, false]) {
  test(`followTranscript (${watch ? "fs.watch" : "polling only"}) yields events as they come and ends when the thread ends`, async () => {
    const p = await project();
    await writeThread(p, newThreadRecord({ thread_id: "t1", directive: "d", status: "running", pid: process.pid }));
    const w = new TranscriptWriter(p, "t1");
    await w.append("thread_started", { directive: "d" });
    const seen: TranscriptEvent[] = [];
    const following = collect(followTranscript(p, "t1", { watch, pollMs: 50 }), seen);
    await until(() => seen.length >= 1);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(seen.length, 1, "the events written before, and nothing else");
    await w.append("cognition_in", { text: "héllo wörld" });
    await until(() => seen.length >= 2);
    assert.equal(seen.length, 2, "a new event arrives while following");
    // A line written in two pieces, split inside a multi-byte character, arrives once, intact.
    const line = Buffer.from(`${JSON.stringify({ timestamp: 1, thread_id: "t1", event_type: "cognition_out", payload: { text: "ünï" } })}\n`);
    const split = line.indexOf(Buffer.from("ü")) + 1;
    await appendFile(threadFile(p, "t1", "transcript"), line.subarray(0, split));
    await new Promise((r) => setTimeout(r, 120));
    await appendFile(threadFile(p, "t1", "transcript"), line.subarray(split));
    await w.append("thread_completed", { status: "completed" });
    await w.close();
    await finishThread(p, "t1", "completed");
    await following;
    assert.deepEqual(seen.map((e) => e.event_type), ["thread_started", "cognition_in", "cognition_out", "thread_completed"]);
    assert.equal((seen[2]!.payload as { text: string }).text, "ünï");
  });
}

test("followTranscript ends on abort, when the thread's process is gone, and refuses an unknown thread", async () => {
  const p = await project();
  await writeThread(p, newThreadRecord({ thread_id: "t1", directive: "d", status: "running", pid: process.pid }));
  const controller = new AbortController();
  const seen: TranscriptEvent[] = [];
  const following = collect(followTranscript(p, "t1", { signal: controller.signal }), seen);
  await new Promise((r) => setTimeout(r, 50));
  controller.abort();
  await following;
  assert.equal(seen.length, 0);

  // Orphaned: "running", but its pid is dead — following would otherwise never end.
  await updateThread(p, "t1", { pid: spawnSync(process.execPath, ["-e", ""]).pid! });
  await new TranscriptWriter(p, "t1").append("cognition_in", { text: "last" });
  await collect(followTranscript(p, "t1", { pollMs: 20 }), seen);
  assert.deepEqual(seen.map((e) => e.event_type), ["cognition_in"]);

  const unknown = followTranscript(p, "nope");
  await rejects(unknown.next(), "ITEM_NOT_FOUND");
  await writeFile(threadFile(p, "t1", "transcript"), "garbage\n");
  await rejects(followTranscript(p, "t1").next(), "VALIDATION_FAILED", /line 1/);
});

test("dropPartialTail cuts what a killed writer left mid-line, so the next append starts a line of its own", async () => {
  const p = await mkdtemp(join(tmpdir(), "rye-transcript-tail-"));
  assert.equal(await dropPartialTail(p, "t1"), 0, "no transcript: nothing to cut");
  const w = new TranscriptWriter(p, "t1");
  await w.append("cognition_in", { text: "täsk" });
  await w.close();
  assert.equal(await dropPartialTail(p, "t1"), 0, "a whole transcript is left alone");
  await appendFile(threadFile(p, "t1", "transcript"), '{"timestamp": 1, "thread_id": "t1", "event_type": "cognition_o');
  assert.equal(await dropPartialTail(p, "t1"), 62);
  const again = new TranscriptWriter(p, "t1");
  await again.append("thread_recovered", { events: 1 });
  await again.close();
  assert.deepEqual((await readTranscript(p, "t1")).map((e) => e.event_type), ["cognition_in", "thread_recovered"]);
});
