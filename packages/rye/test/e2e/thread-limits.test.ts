/**
 * Limits of real threads: each limit stops a thread with the original's code (turns, tokens, spend, duration),
 * a `limit` hook can only escalate (the thread stops as suspended), and depth and spawn limits hold in a
 * three-level tree of threads.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ThreadBench } from "../threads.ts";
import { directive, threadBench } from "../threads.ts";

let bench: ThreadBench;
before(async () => {
  bench = await threadBench("anthropic");
  await bench.write("knowledge", "lim/notes/n.md", `---\nid: n\ntitle: n\nversion: 1.0.0\nentry_type: reference\ncategory: lim/notes\n---\n\nA note.\n`);
});
after(() => bench?.close());

const search = { name: "rye_search", input: { item_type: "knowledge", query: "note" } };
const limited = (name: string, limits: string, hooks?: string) =>
  bench.write("directive", `lim/stop/${name}.md`, directive({ name, category: "lim/stop", permissions: "<search>knowledge</search>", limits, ...(hooks ? { hooks } : {}) }));

async function stoppedWith(name: string, code: string): Promise<Record<string, any>> {
  const started = Date.now();
  const run = await bench.rye(["thread", "run", `lim/stop/${name}`]);
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.equal(run.json.status, "error", run.stdout);
  assert.equal(run.json.error_code, code);
  const record = await bench.record(run.json.thread_id);
  assert.equal(record.status, "error");
  assert.equal(record.error.code, code);
  const events = await bench.events(run.json.thread_id);
  assert.equal(events.find((e) => e.event_type === "limit_exceeded")?.payload.limit_code, code, "the transcript records the limit");
  assert.equal(events.at(-1)!.event_type, "thread_error");
  const ledger = JSON.parse(await readFile(join(bench.ws.projectDir, ".ai/threads/ledger.json"), "utf8"));
  assert.equal(ledger.entries[run.json.thread_id].status, "released", "its reservation is released");
  return { ...run.json, ms: Date.now() - started };
}

describe("each limit stops a thread with its code", () => {
  test("turns", async () => {
    await limited("turns", `<limits turns="2"/>`);
    bench.script({ turns: () => ({ toolCalls: [search], usage: { input: 10, output: 5 } }) });
    const run = await stoppedWith("turns", "turns_exceeded");
    assert.equal(run.cost.turns, 2);
  });

  test("tokens (input and output of all turns)", async () => {
    await limited("tokens", `<limits tokens="5000"/>`);
    bench.script({ tokens: () => ({ toolCalls: [search], usage: { input: 4000, output: 2000 } }) });
    const run = await stoppedWith("tokens", "tokens_exceeded");
    assert.equal(run.cost.turns, 1);
  });

  test("spend (from the provider's pricing)", async () => {
    await limited("spend", `<limits spend="0.01"/>`);
    bench.script({ spend: () => ({ toolCalls: [search], usage: { input: 3000, output: 500 } }) });
    const run = await stoppedWith("spend", "spend_exceeded");
    assert.ok(run.cost.spend >= 0.01);
    assert.equal(run.cost.turns, 1);
  });

  test("duration_seconds interrupts a call that does not answer", async () => {
    await limited("duration", `<limits duration_seconds="1"/>`);
    bench.script({ duration: () => ({ hang: true }) });
    const run = await stoppedWith("duration", "duration_seconds_exceeded");
    assert.ok(run.cost.elapsed_seconds < 5, `stopped after ${run.cost.elapsed_seconds} s`);
  });

  test("a limit hook may escalate: the thread stops as suspended, the escalation recorded", async () => {
    await limited("escalate", `<limits turns="1"/>`, `<hook id="ask" event="limit"><condition path="limit_code" op="eq" value="turns_exceeded"/><control action="escalate"/></hook>`);
    bench.script({ escalate: () => ({ toolCalls: [search], usage: { input: 10, output: 5 } }) });
    const run = await bench.rye(["thread", "run", "lim/stop/escalate"]);
    assert.equal(run.json.status, "suspended", run.stdout);
    const record = await bench.record(run.json.thread_id);
    assert.equal(record.status, "suspended");
    assert.deepEqual(record.escalation, { limit_code: "turns_exceeded", current_value: 1, current_max: 1 });
    assert.ok((await bench.events(run.json.thread_id)).some((e) => e.event_type === "hook_fired" && e.payload.hook_id === "ask"));
  });
});

describe("depth and spawns in a three-level tree", () => {
  const spawn = (directiveName: string, extra: Record<string, unknown> = {}) => ({
    name: "rye_execute",
    input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: directiveName, ...extra } },
  });
  const CAN_SPAWN = "<execute><tool>rye.agent.threads.thread_directive</tool></execute>";

  test("depth decreases per level and a fourth level is refused; the spawn limit holds", async () => {
    await bench.write("directive", "lim/tree/root.md", directive({ name: "root", category: "lim/tree", permissions: CAN_SPAWN, limits: `<limits depth="2" spawns="1"/>` }));
    await bench.write("directive", "lim/tree/mid.md", directive({ name: "mid", category: "lim/tree", permissions: CAN_SPAWN }));
    await bench.write("directive", "lim/tree/leaf.md", directive({ name: "leaf", category: "lim/tree", permissions: CAN_SPAWN }));
    await bench.write("directive", "lim/tree/below.md", directive({ name: "below", category: "lim/tree", permissions: CAN_SPAWN }));
    bench.script({
      root: (turn) => (turn === 0 ? { toolCalls: [spawn("lim/tree/mid"), spawn("lim/tree/mid")], usage: { input: 10, output: 5 } } : { text: "root done", usage: { input: 10, output: 5 } }),
      mid: (turn) => (turn === 0 ? { toolCalls: [spawn("lim/tree/leaf")], usage: { input: 10, output: 5 } } : { text: "mid done", usage: { input: 10, output: 5 } }),
      leaf: (turn) => (turn === 0 ? { toolCalls: [spawn("lim/tree/below")], usage: { input: 10, output: 5 } } : { text: "leaf done", usage: { input: 10, output: 5 } }),
      below: () => ({ text: "must never run", usage: { input: 10, output: 5 } }),
    });
    const run = await bench.rye(["thread", "run", "lim/tree/root"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    const root = await bench.record(run.json.thread_id);
    assert.equal(root.depth, 2);

    const rootResults = (await bench.events(run.json.thread_id)).filter((e) => e.event_type === "tool_call_result");
    assert.equal(rootResults.length, 2);
    // The two calls run side by side: one child gets the only spawn, the other is over the limit.
    const ran = rootResults.filter((r) => r.payload.error === false);
    const refused = rootResults.filter((r) => r.payload.error === true);
    assert.equal(ran.length, 1, "one child ran");
    assert.equal(refused.length, 1, "the other is over the spawn limit");
    assert.match(refused[0]!.payload.output, /spawns_exceeded/);

    const midId = JSON.parse(ran[0]!.payload.output).data.thread_id as string;
    const mid = await bench.record(midId);
    assert.equal(mid.parent_thread_id, root.thread_id);
    assert.equal(mid.depth, 1);
    const leafResult = (await bench.events(midId)).find((e) => e.event_type === "tool_call_result")!;
    const leafId = JSON.parse(leafResult.payload.output).data.thread_id as string;
    const leaf = await bench.record(leafId);
    assert.equal(leaf.depth, 0);
    assert.equal(leaf.parent_thread_id, midId);
    const belowResult = (await bench.events(leafId)).find((e) => e.event_type === "tool_call_result")!;
    assert.equal(belowResult.payload.error, true);
    assert.match(belowResult.payload.output, /depth_exceeded/);
    assert.ok(!bench.llm.requests.some((r) => JSON.stringify(r.body.messages?.[0] ?? "").includes("# below")), "the fourth level never called the model");
  });
});
