/**
 * Handoff and resume (docs/agent-runtime.md §12), with real threads against the scripted provider server: a thread
 * whose context passes the threshold of its model's window hands over to a continuation thread (summary of the
 * older turns by the summary directive + the trailing turns), which finishes the task; the chain stays searchable;
 * a failed thread is resumed with new instructions and its continuation sees the earlier conversation; a running
 * thread hands over on request.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signItem } from "@rye/core";
import type { ThreadBench } from "../threads.ts";
import { directive, requestInfo, returnsTool, threadBench } from "../threads.ts";

let bench: ThreadBench;

const call = (id: string, parameters: Record<string, unknown> = {}) => ({ name: "rye_execute", input: { item_type: "tool", item_id: id, parameters } });
const messagesText = (body: Record<string, any>) => JSON.stringify(body.messages);

before(async () => {
  bench = await threadBench("anthropic");
  await bench.write("tool", "cont/tools/fact.mjs", returnsTool("cont/tools", "({ fact: 'the vault code is ' + p.n })", `{ type: "object", properties: { n: { type: "number" } } }`));
  await bench.write(
    "directive",
    "cont/long/worker.md",
    directive({ name: "worker", category: "cont/long", permissions: "<execute><tool>cont.tools.*</tool></execute>", limits: `<limits turns="12" />` }),
  );
  // This project's models have a 1000-token window; a thread hands over at half of it.
  await mkdir(join(bench.ws.projectDir, ".ai/config"), { recursive: true });
  const override = `version: "1.0.0"\ntool_type: config\nexecutor_id: null\ncategory: config\ndescription: "small windows"\ncontinuation:\n  default_context_window: 1000\n  trigger_threshold: 0.5\n  resume_ceiling_tokens: 100\n`;
  await writeFile(join(bench.ws.projectDir, ".ai/config/resilience.yaml"), (await signItem(override, "tool", bench.ws.key)).content);
});
after(() => bench?.close());

describe("handoff near the context window", () => {
  test("the thread hands over; the continuation starts from the summary and the trailing turns and finishes the task", async () => {
    let summaryRequest: Record<string, any> | undefined;
    const continuationRequests: Record<string, any>[] = [];
    bench.script({
      worker: (turn, request) => {
        const text = messagesText(request.body);
        if (text.includes("summarised")) {
          // The continuation: it knows the earlier work from the summary.
          continuationRequests.push(request.body);
          return { text: "finished: the vault code is 7 (from the summary)", usage: { input: 200, output: 20 } };
        }
        if (turn === 0) return { toolCalls: [call("cont/tools/fact", { n: 7 })], usage: { input: 300, output: 20 } };
        // The second turn fills the window past the threshold (480 + 40 ≥ 500): the handoff follows this turn.
        return { text: "working on it", toolCalls: [call("cont/tools/fact", { n: 8 })], usage: { input: 480, output: 40 } };
      },
      thread_summary: (_turn, request) => {
        summaryRequest = request.body;
        return { text: "SUMMARY: the task is under way; fact tool said the vault code is 7.", usage: { input: 100, output: 30 } };
      },
    });
    const run = await bench.rye(["thread", "run", "cont/long/worker"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.match(String(run.json.result), /vault code is 7/);

    const record = await bench.record(run.json.thread_id);
    assert.equal(typeof record.continued_by, "string", "the thread names its continuation");
    const next = await bench.record(record.continued_by);
    assert.equal(next.continues, run.json.thread_id);
    assert.equal(next.parent_thread_id, run.json.thread_id, "the continuation is in the thread's tree");
    assert.equal(next.status, "completed");
    assert.equal(next.depth, record.depth, "a continuation keeps its depth");
    assert.ok(next.limits.turns <= 12 - 2, "it gets what is left of the turns");

    const events = await bench.events(run.json.thread_id);
    const handoff = events.find((e) => e.event_type === "thread_handoff")!;
    assert.equal(handoff.payload.reason, "context_window");
    assert.equal(handoff.payload.context_tokens, 520);
    assert.equal(handoff.payload.continuation_thread_id, record.continued_by);
    assert.ok(events.some((e) => e.event_type === "summary_written"));
    assert.ok(summaryRequest, "the summary directive was asked");
    assert.match(messagesText(summaryRequest!), /vault code is 7/, "the summary sees the conversation");
    assert.equal(summaryRequest!.tools, undefined, "the summary call has no tools");

    // The continuation's first request: task + summary, then the trailing turns (the last tool call and its result).
    const first = continuationRequests[0]!;
    assert.equal(first.messages[0].role, "user");
    assert.match(JSON.stringify(first.messages[0].content), /SUMMARY: the task is under way/);
    assert.match(messagesText(first), /vault code is 8/, "the trailing turn is kept unchanged");
    const nextEvents = await bench.events(record.continued_by);
    assert.equal(nextEvents.find((e) => e.event_type === "thread_continued")!.payload.kind, "handoff");

    // Nothing is lost: the chain search finds what was said before the handoff.
    const found = await bench.rye(["thread", "search", run.json.thread_id, "vault code is 8"]);
    assert.ok((found.json.matches as { thread_id: string }[]).some((m) => m.thread_id === run.json.thread_id), found.stdout);
  });
});

describe("resume", () => {
  test("a failed thread resumed with new instructions continues with its earlier conversation", async () => {
    bench.script({
      worker: (turn, request) => {
        const text = messagesText(request.body);
        if (text.includes("try the number 9")) return { text: `resumed and done: ${/vault code is 5/.test(text) ? "saw 5" : "lost 5"}`, usage: { input: 50, output: 10 } };
        if (turn === 0) return { toolCalls: [call("cont/tools/fact", { n: 5 })], usage: { input: 40, output: 10 } };
        return { status: 500, message: "upstream broke" };
      },
    });
    const failed = await bench.rye(["thread", "run", "cont/long/worker"]);
    assert.equal(failed.json.status, "error", failed.stdout);

    const resumed = await bench.rye(["thread", "resume", failed.json.thread_id, "--message", "The server is back: try the number 9 and finish."]);
    assert.equal(resumed.json.status, "completed", resumed.stdout + resumed.stderr);
    assert.equal(resumed.json.result, "resumed and done: saw 5", "the continuation saw the earlier tool result");
    const next = await bench.record(resumed.json.thread_id);
    assert.equal(next.continues, failed.json.thread_id);
    assert.equal((await bench.record(failed.json.thread_id)).continued_by, resumed.json.thread_id);
    const request = bench.llm.requests.filter((r) => requestInfo(r).directive === "worker").at(-1)!;
    const roles = (request.body.messages as { role: string }[]).map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "user"], "task, the tool call, then its result with the new message");

    // A thread already continued, and a running thread, cannot be resumed.
    const again = await bench.rye(["thread", "resume", failed.json.thread_id, "--message", "again"]);
    assert.notEqual(again.code, 0);
    assert.match(again.stdout + again.stderr, /already continued/);
  });

  test("a running thread hands over when asked (rye thread handoff)", async () => {
    let id = "";
    // The second answer waits until the handoff was asked for, so the thread is mid-task when it is.
    const handoffAsked = async () => {
      for (let i = 0; i < 600 && !(id && existsSync(join(bench.ws.projectDir, ".ai", "threads", id, "handoff"))); i++) await new Promise((r) => setTimeout(r, 50));
    };
    bench.script({
      worker: async (turn, request) => {
        const text = messagesText(request.body);
        if (text.includes("summarised")) return { text: "continuation done", usage: { input: 10, output: 5 } };
        if (turn === 0) return { toolCalls: [call("cont/tools/fact", { n: 1 })], usage: { input: 10, output: 5 } };
        await handoffAsked();
        return { toolCalls: [call("cont/tools/fact", { n: 2 })], usage: { input: 10, output: 5 } };
      },
      thread_summary: () => ({ text: "SUMMARY of a short thread", usage: { input: 10, output: 5 } }),
    });
    const started = await bench.rye(["thread", "run", "cont/long/worker", "--async"]);
    id = started.json.thread_id as string;
    const handoff = await bench.rye(["thread", "handoff", id]);
    assert.equal(handoff.json.status, "handoff_requested", handoff.stdout + handoff.stderr);
    const waited = await bench.rye(["thread", "wait", id, "--timeout", "60"]);
    assert.equal(waited.code, 0, waited.stdout);
    const record = await bench.record(id);
    assert.equal(record.status, "completed");
    assert.equal(record.result, "continuation done");
    const events = await bench.events(id);
    assert.equal(events.find((e) => e.event_type === "thread_handoff")!.payload.reason, "requested");
  });
});
