/**
 * Orchestration with real threads (rye thread run → thread processes → a server speaking the Anthropic API): a root
 * thread starts 5 children in the background, waits for them through the orchestrator tool (woken by file-system
 * events), aggregates their results, and a search over the tree finds what a grandchild said; a cancelled parent
 * cancels its running children (cascade_cancel); a killed thread's process is gone and its budget released; a thread
 * whose process crashed is marked orphaned by a waiter instead of staying "running"; a thread may not touch threads
 * outside its own tree.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RecordedLlmRequest } from "../fake-llm.ts";
import type { ThreadBench } from "../threads.ts";
import { directive, requestInfo, threadBench } from "../threads.ts";

const CAN_ORCHESTRATE = "<execute><tool>rye.agent.threads.*</tool></execute>";
const spawn = (name: string) => ({ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: name, async_exec: true } } });
const orchestrate = (parameters: Record<string, unknown>) => ({ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/orchestrator", parameters } });

/** The thread ids the previous turn's spawn calls returned (from the tool results the model received). */
function spawnedIds(request: RecordedLlmRequest): string[] {
  return requestInfo(request)
    .toolResults.map((text) => {
      try {
        return (JSON.parse(text) as { data?: { thread_id?: string } }).data?.thread_id;
      } catch {
        return undefined;
      }
    })
    .filter((id): id is string => typeof id === "string");
}

let bench: ThreadBench;
let fanoutIds: string[] = [];
before(async () => {
  bench = await threadBench("anthropic");
  await bench.write("directive", "orch/tree/fanout.md", directive({ name: "fanout", category: "orch/tree", permissions: CAN_ORCHESTRATE }));
  await bench.write("directive", "orch/tree/worker.md", directive({ name: "worker", category: "orch/tree" }));
  await bench.write("directive", "orch/tree/deep.md", directive({ name: "deep", category: "orch/tree", permissions: CAN_ORCHESTRATE }));
  await bench.write("directive", "orch/tree/leaf.md", directive({ name: "leaf", category: "orch/tree" }));
  await bench.write("directive", "orch/stop/sleepy.md", directive({ name: "sleepy", category: "orch/stop" }));
  await bench.write("directive", "orch/stop/boss.md", directive({ name: "boss", category: "orch/stop", permissions: CAN_ORCHESTRATE }));
  await bench.write("directive", "orch/stop/nosy.md", directive({ name: "nosy", category: "orch/stop", permissions: CAN_ORCHESTRATE }));
});
after(() => bench?.close());

describe("a root thread fans out, waits and aggregates", () => {
  test("5 children in the background, waited for through the orchestrator, results aggregated; chain_search finds a grandchild's words", async () => {
    let deepChild: string[] = [];
    bench.script({
      fanout: (turn, request) => {
        if (turn === 0) return { toolCalls: [spawn("orch/tree/worker"), spawn("orch/tree/worker"), spawn("orch/tree/worker"), spawn("orch/tree/worker"), spawn("orch/tree/deep")], usage: { input: 100, output: 20 } };
        if (turn === 1) {
          fanoutIds = spawnedIds(request);
          return { toolCalls: [orchestrate({ operation: "wait_threads", thread_ids: fanoutIds, timeout_seconds: 120 })], usage: { input: 100, output: 20 } };
        }
        if (turn === 2) return { toolCalls: [orchestrate({ operation: "aggregate_results", thread_ids: fanoutIds })], usage: { input: 100, output: 20 } };
        return { text: "all five finished", usage: { input: 100, output: 20 } };
      },
      worker: () => ({ text: "worker result", usage: { input: 10, output: 5 } }),
      deep: (turn, request) => {
        if (turn === 0) return { toolCalls: [spawn("orch/tree/leaf")], usage: { input: 10, output: 5 } };
        if (turn === 1) {
          deepChild = spawnedIds(request);
          return { toolCalls: [orchestrate({ operation: "wait_threads", thread_ids: deepChild, timeout_seconds: 120 })], usage: { input: 10, output: 5 } };
        }
        return { text: "deep result", usage: { input: 10, output: 5 } };
      },
      leaf: () => ({ text: "the secret word is needle-42", usage: { input: 10, output: 5 } }),
    });
    const run = await bench.rye(["thread", "run", "orch/tree/fanout"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.equal(fanoutIds.length, 5);

    const events = await bench.events(run.json.thread_id);
    const results = events.filter((e) => e.event_type === "tool_call_result").map((e) => e.payload);
    const waited = JSON.parse(results[5]!.output).data;
    assert.equal(waited.done, true, results[5]!.output);
    assert.deepEqual(waited.threads.map((t: { status: string }) => t.status), ["completed", "completed", "completed", "completed", "completed"], JSON.stringify(waited.threads.map((t: { error?: unknown }) => t.error)));
    const aggregated = JSON.parse(results[6]!.output).data;
    assert.equal(aggregated.totals.completed, 5);
    assert.deepEqual(aggregated.threads.map((t: { result: string }) => t.result).sort(), ["deep result", "worker result", "worker result", "worker result", "worker result"]);
    for (const id of fanoutIds) assert.equal((await bench.record(id)).parent_thread_id, run.json.thread_id);

    const found = await bench.rye(["thread", "search", run.json.thread_id, "needle-\\d+"]);
    assert.equal(found.code, 0, found.stdout + found.stderr);
    const where = new Set(found.json.matches.map((m: { thread_id: string }) => m.thread_id));
    assert.ok(where.has(deepChild[0]), "the grandchild said it");
    const deepId = fanoutIds.find((id) => id.startsWith("deep-"))!;
    assert.deepEqual([...where].filter((id) => id !== deepChild[0]), [deepId], "and only its parent saw it (the wait's result), no other thread");
    assert.equal(found.json.searched_threads, 7, "root, five children, one grandchild");
    const chain = await bench.rye(["thread", "chain", deepChild[0]!]);
    assert.equal(chain.json.thread_id, run.json.thread_id, "the chain starts at the root");
    assert.equal(chain.json.children.length, 5);
  });
});

describe("stopping threads", () => {
  test("a cancelled parent cancels its running child (cascade_cancel); both end cancelled", async () => {
    bench.script({
      boss: (turn, request) => {
        if (turn === 0) return { toolCalls: [spawn("orch/stop/sleepy")], usage: { input: 10, output: 5 } };
        return { toolCalls: [orchestrate({ operation: "wait_threads", thread_ids: spawnedIds(request), timeout_seconds: 120 })], usage: { input: 10, output: 5 } };
      },
      sleepy: () => ({ hang: true }),
    });
    const started = await bench.rye(["thread", "run", "orch/stop/boss", "--async"]);
    const boss = started.json.thread_id as string;
    let child: string | undefined;
    for (let i = 0; i < 200 && !child; i++) {
      const chain = await bench.rye(["thread", "chain", boss]);
      child = chain.json.children?.[0]?.thread_id;
      if (!child) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(child, "the boss started its child");
    const cancelled = await bench.rye(["thread", "cancel", boss]);
    assert.equal(cancelled.code, 0, cancelled.stdout + cancelled.stderr);
    const waited = await bench.rye(["thread", "wait", boss, child!, "--timeout", "60"]);
    assert.equal(waited.code, 0, waited.stdout + waited.stderr);
    assert.deepEqual(waited.json.threads.map((t: { status: string }) => t.status), ["cancelled", "cancelled"], JSON.stringify(waited.json.threads.map((t: { error?: unknown }) => t.error)));
    const bossEvents = await bench.events(boss);
    assert.deepEqual(bossEvents.find((e) => e.event_type === "children_cancelled")?.payload.thread_ids, [child]);
  });

  test("kill ends the process and releases the budget; a crashed thread is marked orphaned by a waiter", async () => {
    bench.script({ sleepy: () => ({ hang: true }) });
    // Running, with its budget reserved (the record says running a moment before the reservation is made).
    const reserved = async (id: string) => {
      const ledger = await readFile(join(bench.ws.projectDir, ".ai", "threads", "ledger.json"), "utf8").then((t) => JSON.parse(t) as { entries: Record<string, unknown> }, () => ({ entries: {} }));
      return id in ledger.entries;
    };
    const running = async (id: string) => {
      for (let i = 0; i < 200 && ((await bench.record(id)).status !== "running" || !(await reserved(id))); i++) await new Promise((r) => setTimeout(r, 100));
    };
    const a = await bench.rye(["thread", "run", "orch/stop/sleepy", "--async"]);
    await running(a.json.thread_id);
    const killed = await bench.rye(["thread", "kill", a.json.thread_id, "--grace-ms", "500"]);
    assert.equal(killed.code, 0, killed.stdout + killed.stderr);
    assert.equal(killed.json.status, "killed");
    assert.equal(killed.json.ledger.status, "released");
    assert.deepEqual([killed.json.process.was_alive, killed.json.process.exited], [true, true], "its process was running and is gone");

    const b = await bench.rye(["thread", "run", "orch/stop/sleepy", "--async"]);
    await running(b.json.thread_id);
    const pid = (await bench.record(b.json.thread_id)).pid as number;
    process.kill(-pid, "SIGKILL"); // a crash: nothing of rye's runs after it
    const waited = await bench.rye(["thread", "wait", b.json.thread_id, "--timeout", "30"]);
    assert.equal(waited.code, 0, waited.stdout + waited.stderr);
    assert.deepEqual([waited.json.threads[0].status, waited.json.threads[0].error.code], ["error", "orphaned"]);
    assert.ok(waited.json.waited_ms < 10_000, `noticed within ${waited.json.waited_ms} ms`);
    const status = await bench.rye(["thread", "status", b.json.thread_id]);
    assert.equal(status.json.ledger.status, "released");
  });

  test("a thread may not wait for, read or stop threads outside its own tree", async () => {
    bench.script({ sleepy: () => ({ hang: true }) });
    const stranger = await bench.rye(["thread", "run", "orch/stop/sleepy", "--async"]);
    bench.script({
      nosy: (turn) =>
        turn === 0 ? { toolCalls: [orchestrate({ operation: "kill_thread", thread_id: stranger.json.thread_id }), orchestrate({ operation: "read_transcript", thread_id: stranger.json.thread_id })], usage: { input: 10, output: 5 } } : { text: "done", usage: { input: 1, output: 1 } },
      sleepy: () => ({ hang: true }),
    });
    const run = await bench.rye(["thread", "run", "orch/stop/nosy"]);
    assert.equal(run.json.status, "completed", run.stdout);
    const results = (await bench.events(run.json.thread_id)).filter((e) => e.event_type === "tool_call_result");
    for (const r of results) {
      assert.equal(r.payload.error, true);
      assert.match(r.payload.output, /may act only on threads it started/);
    }
    assert.equal((await bench.record(stranger.json.thread_id)).status, "running", "the stranger was left alone");
    await bench.rye(["thread", "kill", stranger.json.thread_id, "--grace-ms", "200"]);
  });
});
