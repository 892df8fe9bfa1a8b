/**
 * State graphs with real processes (docs/state-graphs.md): `rye graph run` → the graph tool's executor chain →
 * the state_graph runtime in its own process → every node's tool in its own process; the LLM step is a real
 * thread (rye/agent/threads/thread_directive) against a server speaking the Anthropic API.
 *
 * - a graph with a conditional edge, a foreach over 10 items, an error edge and an LLM step runs to its return;
 * - SIGKILL of the graph's process mid-foreach, then `rye graph resume`: the run finishes and no step (and no
 *   foreach item) that had completed runs again;
 * - a node whose action is outside the caller's capabilities (a thread's, or the graph's own permissions) is
 *   refused with FORBIDDEN naming the capability, and its tool never runs;
 * - a changed graph is not resumed without --force; a tampered state does not verify; max_steps stops a loop.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Engine } from "../../src/engine/engine.ts";
import { threads as threadsSdk } from "../../src/sdk/threads.ts";
import { newThreadRecord, writeThread } from "../../src/threads/record.ts";
import { RYE_BIN } from "../cli.ts";
import type { ThreadBench } from "../threads.ts";
import { directive, threadBench } from "../threads.ts";
import { nodeTool } from "../workspace.ts";

let bench: ThreadBench;
let callsLog: string;

/** A node tool that appends `<label>:<value>` to the calls log (after an optional delay) and returns `expr`. */
const loggingTool = (category: string, label: string, expr: string) =>
  nodeTool(
    category,
    `import { appendFileSync } from "node:fs";
export async function main(p) {
  if (p.delay) await new Promise((r) => setTimeout(r, p.delay));
  appendFileSync(${JSON.stringify("__LOG__")}, ${JSON.stringify(label)} + ":" + JSON.stringify(p.value ?? null) + "\\n");
  return ${expr};
}`,
  );

const PIPELINE = `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "Test pipeline: seed, square 1..n in parallel, sum, branch on the total, a failing step routed to recovery, an LLM summary"
config:
  start: seed
  max_steps: 20
  max_parallel: 3
config_schema:
  type: object
  properties:
    n: { type: integer, minimum: 1 }
    delay: { type: integer, minimum: 0 }
  required: [n]
nodes:
  seed:
    action: { primary: execute, item_type: tool, item_id: g/tools/seed, params: { n: "\${inputs.n}" } }
    assign: { items: "\${result.items}" }
    next: fan
  fan:
    foreach:
      over: "\${state.items}"
      as: value
      max_parallel: 3
      collect: squares
      action: { item_id: g/tools/square, params: { value: "\${value}", delay: "\${inputs.delay}" } }
    next: total
  total:
    action: { item_id: g/tools/sum, params: { values: "\${state.squares}" } }
    assign: { total: "\${result.total}" }
    next:
      - if: { path: state.total, op: gt, value: 100 }
        to: risky
      - to: small
  small:
    return: { total: "\${state.total}", branch: small }
  risky:
    action: { item_id: g/tools/boom }
    on_error: recover
    next: summarize
  recover:
    assign: { recovered_from: "\${error.node}", error_message: "\${error.message}" }
    next: summarize
  summarize:
    action:
      item_id: rye/agent/threads/thread_directive
      params: { directive_name: g/directives/summarize, inputs: { total: "\${state.total}" } }
    assign: { summary: "\${result.result}", thread_id: "\${result.thread_id}" }
    next: done
  done:
    return: { total: "\${state.total}", summary: "\${state.summary}", recovered_from: "\${state.recovered_from}", branch: big }
`;

async function calls(): Promise<string[]> {
  return (await readFile(callsLog, "utf8").catch(() => "")).split("\n").filter(Boolean);
}

function stateOf(text: string): Record<string, any> {
  return JSON.parse(text.slice(text.indexOf("```json\n") + 8, text.lastIndexOf("\n```"))) as Record<string, any>;
}

const statePath = (graph: string, runId: string) => join(bench.ws.projectDir, ".ai", "knowledge", "graph-runs", ...graph.split("/"), `${runId}.md`);

before(async () => {
  bench = await threadBench("anthropic");
  callsLog = join(bench.ws.root, "calls.log");
  const tool = (label: string, expr: string) => loggingTool("g/tools", label, expr).replace("__LOG__", callsLog);
  await bench.write("tool", "g/tools/seed.mjs", tool("seed", "{ items: Array.from({ length: p.n }, (_, i) => i + 1) }"));
  await bench.write("tool", "g/tools/square.mjs", tool("square", "{ square: p.value * p.value }"));
  await bench.write("tool", "g/tools/sum.mjs", tool("sum", "{ total: p.values.reduce((a, v) => a + v.square, 0) }"));
  await bench.write("tool", "g/tools/boom.mjs", tool("boom", `(() => { throw new Error("boom: the risky step always fails"); })()`));
  await bench.write("tool", "g/tools/flaky.mjs", tool("flaky", `(await import("node:fs")).existsSync(${JSON.stringify(join(bench.ws.root, "fixed"))}) ? { ok: true } : { success: false, error: { message: "not fixed yet" } }`));
  await bench.write("directive", "g/directives/summarize.md", directive({ name: "summarize", category: "g/directives", inputs: `<input name="total" type="integer" required="true" />` }));
  await bench.write("tool", "g/graphs/pipeline.yaml", PIPELINE);
  bench.script({ summarize: () => ({ text: "The total is large.", usage: { input: 20, output: 6 } }) });
});
after(() => bench?.close());

describe("a graph runs end to end", () => {
  test("conditional edge, foreach over 10 items (parallel, bounded), error edge and an LLM step; state signed; events logged", async () => {
    const before = (await calls()).length;
    const run = await bench.rye(["graph", "run", "g/graphs/pipeline", "--input", "n=10"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.json.status, "completed", run.stdout);
    assert.deepEqual(run.json.result, { total: 385, summary: "The total is large.", recovered_from: "risky", branch: "big" });
    const made = (await calls()).slice(before);
    assert.deepEqual(made.filter((c) => c.startsWith("square:")).map((c) => Number(c.slice(7))).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "each item once");
    assert.deepEqual(made.filter((c) => !c.startsWith("square:")), ["seed:null", "sum:null", "boom:null"]);

    const status = await bench.rye(["graph", "status", run.json.run_id]);
    assert.equal(status.code, 0, status.stdout + status.stderr);
    assert.deepEqual(status.json.log.map((e: { node: string; status: string }) => `${e.node}:${e.status}`), ["seed:ok", "fan:ok", "total:ok", "risky:error", "recover:ok", "summarize:ok", "done:ok"]);
    assert.equal(status.json.log[1].items, 10);
    assert.equal(status.json.state.error_message.includes("boom: the risky step always fails"), true, status.json.state.error_message);
    // The LLM step was a real thread that finished.
    assert.equal((await bench.record(status.json.state.thread_id)).status, "completed");
    // The state is a signed knowledge item: rye verify accepts it, and it is searchable.
    const verified = await bench.rye(["verify", statePath("g/graphs/pipeline", run.json.run_id)]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    const events = (await readFile(status.json.events, "utf8")).trim().split("\n").map((l) => JSON.parse(l).event_type as string);
    assert.equal(events[0], "graph_started");
    assert.equal(events.at(-1), "graph_completed");
    assert.equal(events.filter((e) => e === "step_completed").length, 6);
    assert.equal(events.filter((e) => e === "step_failed").length, 1);

    const listed = await bench.rye(["graph", "list"]);
    assert.ok(listed.json.runs.some((r: { run_id: string; status: string }) => r.run_id === run.json.run_id && r.status === "completed"), listed.stdout);
    const notGraph = await bench.rye(["graph", "run", "g/tools/seed"]);
    assert.equal(notGraph.json.error.code, "BAD_REQUEST");

    // The other branch of the conditional edge: 1² + 2² + 3² = 14 goes to `small`.
    const small = await bench.rye(["graph", "run", "g/graphs/pipeline", "--input", "n=3"]);
    assert.deepEqual(small.json.result, { total: 14, branch: "small" }, small.stdout + small.stderr);
  });

  test("a graph is an item: rye execute runs it through the executor chain; search finds it; sign signs it", async () => {
    const executed = await bench.rye(["execute", "tool", "g/graphs/pipeline", "--params", JSON.stringify({ n: 2 })]);
    assert.equal(executed.code, 0, executed.stdout + executed.stderr);
    assert.deepEqual(executed.json.data.result, { total: 5, branch: "small" });
    assert.deepEqual(executed.json.chain.map((c: { item_id: string }) => c.item_id), ["g/graphs/pipeline", "rye/core/runtimes/state_graph", "rye/core/primitives/subprocess"]);
    const found = await bench.rye(["search", "pipeline", "--type", "tool"]);
    assert.ok(found.json.results.some((r: { id: string }) => r.id === "g/graphs/pipeline"), found.stdout);
    await bench.write("tool", "g/graphs/unsigned.yaml", PIPELINE, { signer: null });
    const signed = await bench.rye(["sign", "g/graphs/unsigned", "--type", "tool"]);
    assert.equal(signed.code, 0, signed.stdout + signed.stderr);
    // load and search actions
    await bench.write(
      "tool",
      "g/graphs/lookup.yaml",
      `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "looks things up"
config: { start: find }
nodes:
  find:
    action: { primary: search, item_type: tool, params: { query: "\${inputs.q}" } }
    assign: { first: "\${result.0.id}" }
    next: read
  read:
    action: { primary: load, item_type: tool, item_id: "\${state.first}" }
    return: { id: "\${result.item_id}", verified: "\${result.verification.ok}" }
`,
    );
    const looked = await bench.rye(["graph", "run", "g/graphs/lookup", "--input", "q=seed"]);
    assert.deepEqual(looked.json.result, { id: "g/tools/seed", verified: true }, looked.stdout + looked.stderr);

    const bad = await bench.rye(["execute", "tool", "g/graphs/pipeline", "--params", "{}"]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout, /INPUT_INVALID/);
  });
});

describe("crash and resume", () => {
  test("SIGKILL mid-foreach, then rye graph resume: the run finishes and no completed step or item runs again", async () => {
    const runId = "pipeline-crash-1";
    const before = (await calls()).length;
    const cli = spawn(process.execPath, [RYE_BIN, "graph", "run", "g/graphs/pipeline", "--input", "n=10", "--input", "delay=400", "--run-id", runId, "--json"], { env: bench.env, cwd: bench.ws.projectDir, stdio: "ignore" });
    const exited = new Promise((r) => cli.once("exit", r));
    let state: Record<string, any> | undefined;
    for (let i = 0; i < 600; i++) {
      const text = await readFile(statePath("g/graphs/pipeline", runId), "utf8").catch(() => "");
      if (text) {
        state = stateOf(text);
        if (state.foreach && Object.keys(state.foreach.done).length >= 4) break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(state?.foreach, "the run reached the foreach");
    process.kill(state!.pid, "SIGKILL");
    cli.kill("SIGKILL");
    await exited;
    // The state as the killed process left it.
    const atKill = stateOf(await readFile(statePath("g/graphs/pipeline", runId), "utf8"));
    assert.equal(atKill.status, "running", "a killed run is still 'running'");
    const crashed = await bench.rye(["graph", "status", runId]);
    assert.equal(crashed.json.process_alive, false, "status tells its process is gone");
    assert.deepEqual(atKill.log.map((e: { node: string }) => e.node), ["seed"]);
    const doneAtKill = Object.keys(atKill.foreach.done).map((i) => Number(i) + 1);
    assert.ok(doneAtKill.length >= 4 && doneAtKill.length < 10, `items done at the kill: ${doneAtKill}`);
    // Items in flight at the kill were orphaned: let them finish (they did not complete for the graph, and may run again).
    await new Promise((r) => setTimeout(r, 800));

    const resumed = await bench.rye(["graph", "resume", runId]);
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.equal(resumed.json.status, "completed");
    assert.equal(resumed.json.resumed, true);
    assert.equal(resumed.json.result.total, 385);

    const made = (await calls()).slice(before);
    assert.equal(made.filter((c) => c === "seed:null").length, 1, "the completed seed step did not run again");
    for (const v of doneAtKill) assert.equal(made.filter((c) => c === `square:${v}`).length, 1, `completed item ${v} ran once`);
    for (let v = 1; v <= 10; v++) assert.ok(made.includes(`square:${v}`), `item ${v} ran`);
    assert.equal(made.filter((c) => c === "sum:null").length, 1);
    const final = await bench.rye(["graph", "status", runId]);
    assert.equal(final.json.resumes, 1);
    assert.deepEqual(final.json.log.map((e: { node: string }) => e.node), ["seed", "fan", "total", "risky", "recover", "summarize", "done"]);
    const events = (await readFile(final.json.events, "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    const resumedEvent = events.find((e) => e.event_type === "graph_resumed");
    assert.equal(resumedEvent.node, "fan");
    assert.equal(resumedEvent.foreach_items_done, doneAtKill.length);

    // A run id is never reused for a new run.
    const reused = await bench.rye(["graph", "run", "g/graphs/pipeline", "--input", "n=1", "--run-id", runId]);
    assert.equal(reused.json.error.code, "CONFLICT", reused.stdout);

    // Resuming a completed run runs nothing.
    const again = await bench.rye(["graph", "resume", runId]);
    assert.equal(again.json.status, "completed");
    assert.equal((await calls()).length, before + made.length);
  });

  test("Ctrl-C (SIGINT to rye graph run) stops the run cleanly: CANCELLED recorded, running tools stopped, resume finishes it", async () => {
    const runId = "pipeline-cancel-1";
    const cli = spawn(process.execPath, [RYE_BIN, "graph", "run", "g/graphs/pipeline", "--input", "n=6", "--input", "delay=1500", "--run-id", runId, "--json"], { env: bench.env, cwd: bench.ws.projectDir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    cli.stdout.on("data", (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => cli.once("exit", (code) => r(code)));
    for (let i = 0; i < 600; i++) {
      const text = await readFile(statePath("g/graphs/pipeline", runId), "utf8").catch(() => "");
      if (text && stateOf(text).current === "fan") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 300)); // the first items are running (each takes 1.5 s)
    const before = (await calls()).length;
    cli.kill("SIGINT");
    assert.equal(await exited, 1);
    assert.match(stdout, /PROCESS_FAILED/);
    const state = stateOf(await readFile(statePath("g/graphs/pipeline", runId), "utf8"));
    assert.equal(state.status, "error");
    assert.equal(state.error.code, "CANCELLED");
    assert.equal(state.current, "fan");
    await new Promise((r) => setTimeout(r, 1800));
    assert.equal((await calls()).length, before, "the running items were stopped with the run");
    const resumed = await bench.rye(["graph", "resume", runId]);
    assert.equal(resumed.json.status, "completed", resumed.stdout + resumed.stderr);
    assert.equal(resumed.json.result.total, 91);
  });

  test("a failed run resumes at the failed node; a changed graph needs --force; a tampered state does not verify", async () => {
    const graph = (note: string) => `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "flaky ${note}"
config: { start: first }
hooks:
  - event: graph_error
    if: { path: error.code, op: eq, value: STEP_FAILED }
    action: { item_id: g/tools/square, params: { value: "\${error.node}" } }
nodes:
  first:
    action: { item_id: g/tools/seed, params: { n: 1 } }
    next: second
  second:
    action: { item_id: g/tools/flaky }
    next: third
  third:
    return: "ok"
`;
    await bench.write("tool", "g/graphs/flaky.yaml", graph("one"));
    const failed = await bench.rye(["graph", "run", "g/graphs/flaky", "--run-id", "flaky-1"]);
    assert.equal(failed.code, 1);
    assert.equal(failed.json.status, "error");
    assert.equal(failed.json.error.code, "STEP_FAILED");
    assert.equal(failed.json.error.node, "second");
    assert.match(failed.json.error.message, /not fixed yet/);
    // The graph's hook on graph_error ran (a tool, through the same capability check) and was logged.
    assert.ok((await calls()).includes('square:"second"'), "the graph_error hook ran");
    const failedEvents = (await readFile(statePath("g/graphs/flaky", "flaky-1").replace(/\.md$/, ".events.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(failedEvents.map((e) => e.event_type), ["graph_started", "step_completed", "step_failed", "graph_error", "hook_completed"]);

    await writeFile(join(bench.ws.root, "fixed"), "");
    await bench.write("tool", "g/graphs/flaky.yaml", graph("two"));
    const refused = await bench.rye(["graph", "resume", "flaky-1"]);
    assert.equal(refused.code, 1);
    assert.equal(refused.json.error.code, "CONFLICT");
    assert.match(refused.json.error.message, /GRAPH_CHANGED/);
    assert.match(refused.json.error.hint, /--force/);

    // One process per run: while another live process holds the run's lock, a resume is refused.
    const lock = statePath("g/graphs/flaky", "flaky-1").replace(/\.md$/, ".lock");
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), created_at: new Date().toISOString(), token: "0123456789abcdef" }));
    const busy = await bench.rye(["graph", "resume", "flaky-1", "--force"]);
    assert.equal(busy.json.error.code, "CONFLICT", busy.stdout);
    assert.match(busy.json.error.message, /being run by another process \(pid \d+\)/);
    await rm(lock);

    const before = (await calls()).length;
    const forced = await bench.rye(["graph", "resume", "flaky-1", "--force"]);
    assert.equal(forced.json.status, "completed", forced.stdout + forced.stderr);
    assert.equal(forced.json.result, "ok");
    assert.deepEqual((await calls()).slice(before), ["flaky:null"], "the completed first step did not run again");

    const path = statePath("g/graphs/flaky", "flaky-1");
    await writeFile(path, (await readFile(path, "utf8")).replace('"status": "completed"', '"status": "running"'));
    const tampered = await bench.rye(["graph", "resume", "flaky-1"]);
    assert.equal(tampered.code, 1);
    assert.equal(tampered.json.error.code, "INTEGRITY_MISMATCH", tampered.stdout);
  });
});

describe("capabilities", () => {
  test("a node outside the calling thread's capabilities is refused (FORBIDDEN, the capability named) before its tool runs", async () => {
    const engine = await Engine.open({ projectPath: bench.ws.projectDir, env: bench.env });
    const record = newThreadRecord({ thread_id: "caller-20260101t000000-000001", directive: "g/directives/summarize", status: "running", capabilities: ["rye.execute.tool.g.graphs.*", "rye.execute.tool.g.tools.seed"], limits: { spend: 1 } });
    await writeThread(bench.ws.projectDir, record);
    // The context the agent runtime hands over: the thread and its capability token chain (signed with the user's key).
    const { chain } = await threadsSdk.mintCapabilityToken({ caps: record.capabilities, directiveId: record.directive, threadId: record.thread_id, expiresInSeconds: 600 }, bench.env);
    const parent = JSON.stringify({ thread_id: record.thread_id, project_path: bench.ws.projectDir, depth: record.depth, limits: record.limits, capabilities: record.capabilities, token_chain: chain });
    const before = (await calls()).length;
    // As the agent runtime's dispatcher runs a graph for a thread: the caller's context handed over by the engine.
    const result = (await engine.execute({ item_type: "tool", item_id: "g/graphs/pipeline", parameters: { n: 3 }, thread_parent: parent })) as Record<string, any>;
    assert.equal(result.status, "error");
    assert.equal(result.data.status, "error");
    assert.equal(result.data.error.code, "FORBIDDEN");
    assert.equal(result.data.error.node, "fan");
    assert.equal(result.data.error.required_capability, "rye.execute.tool.g.tools.square");
    assert.deepEqual((await calls()).slice(before), ["seed:null"], "the allowed node ran, the refused one never did");
    const status = await bench.rye(["graph", "status", result.data.run_id]);
    assert.deepEqual(status.json.caller, { thread_id: record.thread_id });

    // A nested graph gets the caller's context too: the inner graph refuses the same node.
    await bench.write("tool", "g/graphs/outer.yaml", `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "runs the pipeline as one of its nodes"
config: { start: inner }
nodes:
  inner:
    action: { item_id: g/graphs/pipeline, params: { n: 3 } }
    return: "\${result.result}"
`);
    const nested = (await engine.execute({ item_type: "tool", item_id: "g/graphs/outer", parameters: {}, thread_parent: parent })) as Record<string, any>;
    assert.equal(nested.data.error.code, "STEP_FAILED");
    assert.match(nested.data.error.message, /\[FORBIDDEN\].*rye\.execute\.tool\.g\.tools\.square/);
    assert.deepEqual((await calls()).slice(before), ["seed:null", "seed:null"], "the inner graph ran seed, never square");

    // A forged context (no such running thread) refuses the whole run.
    const forged = JSON.stringify({ thread_id: "nope-20260101t000000-000000", project_path: bench.ws.projectDir, depth: 0, limits: {}, capabilities: ["rye.*"] });
    const refused = (await engine.execute({ item_type: "tool", item_id: "g/graphs/pipeline", parameters: { n: 3 }, thread_parent: forged })) as Record<string, any>;
    assert.equal(refused.status, "error");
    assert.equal(refused.data.error.code, "FORBIDDEN");
    assert.deepEqual((await calls()).slice(before), ["seed:null", "seed:null"]);
  });

  test("through a real thread: a graph node outside the directive's permissions is refused", async () => {
    await bench.write("directive", "g/directives/caller.md", directive({ name: "caller", category: "g/directives", permissions: "<execute><tool>g.graphs.pipeline</tool><tool>g.tools.seed</tool></execute>" }));
    bench.script({
      caller: (turn) =>
        turn === 0
          ? { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "g/graphs/pipeline", parameters: { n: 3 } } }], usage: { input: 10, output: 5 } }
          : { text: "graph tried", usage: { input: 10, output: 5 } },
      summarize: () => ({ text: "The total is large.", usage: { input: 20, output: 6 } }),
    });
    const before = (await calls()).length;
    const run = await bench.rye(["thread", "run", "g/directives/caller"]);
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    const result = (await bench.events(run.json.thread_id)).find((e) => e.event_type === "tool_call_result")!;
    assert.equal(result.payload.error, true);
    assert.match(result.payload.output, /FORBIDDEN/);
    assert.match(result.payload.output, /rye\.execute\.tool\.g\.tools\.square/);
    assert.deepEqual((await calls()).slice(before), ["seed:null"], "the square tool never ran");
  });

  test("the graph's own permissions bound its nodes too; a refusal is not routed to on_error", async () => {
    await bench.write(
      "tool",
      "g/graphs/bounded.yaml",
      `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "declares what it may run"
permissions: [rye.execute.tool.g.tools.seed]
config: { start: a }
nodes:
  a:
    action: { item_id: g/tools/seed, params: { n: 1 } }
    next: b
  b:
    action: { item_id: g/tools/boom }
    on_error: c
  c:
    return: "routed"
`,
    );
    const before = (await calls()).length;
    const run = await bench.rye(["graph", "run", "g/graphs/bounded"]);
    assert.equal(run.code, 1);
    assert.equal(run.json.error.code, "FORBIDDEN");
    assert.equal(run.json.error.required_capability, "rye.execute.tool.g.tools.boom");
    assert.deepEqual((await calls()).slice(before), ["seed:null"]);
  });
});

describe("limits and validation", () => {
  test("max_steps stops a loop (MAX_STEPS_EXCEEDED); an edge to a missing node is refused before anything runs", async () => {
    await bench.write(
      "tool",
      "g/graphs/loop.yaml",
      `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: g/graphs
description: "counts forever"
config: { start: tick, max_steps: 5 }
nodes:
  tick:
    assign: { n: "\${run.steps}" }
    next: tick
`,
    );
    const run = await bench.rye(["graph", "run", "g/graphs/loop"]);
    assert.equal(run.code, 1);
    assert.equal(run.json.error.code, "MAX_STEPS_EXCEEDED");
    assert.equal(run.json.steps, 5);
    assert.equal(run.json.state.n, 4);

    await bench.write("tool", "g/graphs/broken.yaml", PIPELINE.replace("next: total", "next: nowhere").replace(`description: "`, `description: "broken `));
    const broken = await bench.rye(["graph", "run", "g/graphs/broken", "--input", "n=1"]);
    assert.equal(broken.code, 1);
    assert.equal(broken.json.error.code, "VALIDATION_FAILED", broken.stdout);
    assert.match(JSON.stringify(broken.json.error), /goes to \\"nowhere\\", which is not a node/);
    // Item validation knows graphs: rye sign refuses the broken one.
    await bench.write("tool", "g/graphs/broken2.yaml", PIPELINE.replace("next: total", "next: nowhere").replace(`description: "`, `description: "broken `), { signer: null });
    const sign = await bench.rye(["sign", "g/graphs/broken2", "--type", "tool"]);
    assert.equal(sign.code, 1);
    assert.match(JSON.stringify(sign.json), /nowhere/);
  });
});
