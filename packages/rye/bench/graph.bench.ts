/**
 * The state_graph runtime's own cost (docs/state-graphs.md), as a ratio against executing the same tool directly:
 * - baseline: a plain `execute` of a node tool through the engine (verified chain, its own child process);
 * - a graph step: a loop graph of STEPS steps, each running that tool, assigning its result and taking a
 *   conditional edge; per step = the median time between two step_completed events (the tool's run, the
 *   interpolation, the capability check, the signed state written atomically, the event appended);
 * - overhead per step = step − baseline, i.e. what the graph adds to running the tool;
 * - a foreach item: a foreach over ITEMS items (max_parallel 1, so items do not overlap) — per item = the node's
 *   time / ITEMS, the state signed after every item;
 * - a whole `rye graph run` of a one-step graph, end to end (CLI, chain, runtime process, one tool).
 * Run: node --import tsx packages/rye/bench/graph.bench.ts   (GRAPH_BENCH_STEPS=30 by default)
 */
import "@rye/core/node";
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { runRye } from "../test/cli.ts";
import { createWorkspace, nodeTool } from "../test/workspace.ts";

const STEPS = Number(process.env.GRAPH_BENCH_STEPS ?? 30);
const ITEMS = STEPS;
const EXECUTES = 30;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ws = await createWorkspace();
await ws.write("tool", "bench/tools/inc.mjs", nodeTool("bench/tools", "export function main(p) { return { next: (p.i ?? 0) + 1 }; }", `{ type: "object", properties: { i: { type: "integer" } } }`));
const graph = (name: string, nodes: string) => `version: "1.0.0"
tool_type: graph
executor_id: rye/core/runtimes/state_graph
category: bench/graphs
description: "bench ${name}"
config: { start: step, max_steps: ${STEPS + ITEMS + 10}, max_parallel: 1 }
nodes:
${nodes}`;
await ws.write(
  "tool",
  "bench/graphs/loop.yaml",
  graph(
    "loop",
    `  step:
    action: { item_id: bench/tools/inc, params: { i: "\${state.i}" } }
    assign: { i: "\${result.next}" }
    next:
      - if: { path: state.i, op: lt, value: ${STEPS} }
        to: step
      - to: fan
  fan:
    foreach: { over: "\${inputs.items}", as: n, action: { item_id: bench/tools/inc, params: { i: "\${n}" } }, collect: out }
    return: { i: "\${state.i}" }
`,
  ),
);
await ws.write("tool", "bench/graphs/one.yaml", graph("one", `  step:\n    action: { item_id: bench/tools/inc, params: { i: 1 } }\n    return: "\${result.next}"\n`));

// Baseline: a plain execute of the same tool, in this process.
const engine = await ws.engine();
await engine.execute({ item_type: "tool", item_id: "bench/tools/inc", parameters: { i: 0 } });
const executes: number[] = [];
for (let i = 0; i < EXECUTES; i++) {
  const t = performance.now();
  await engine.execute({ item_type: "tool", item_id: "bench/tools/inc", parameters: { i } });
  executes.push(performance.now() - t);
}
const executeMs = median(executes);

const env = Object.fromEntries(Object.entries(ws.env).filter((e): e is [string, string] => typeof e[1] === "string"));
const items = Array.from({ length: ITEMS }, (_, i) => i);
const started = performance.now();
const run = await runRye(["graph", "run", "bench/graphs/loop", "--inputs", JSON.stringify({ items }), "--run-id", "bench-loop", "--json"], { env, cwd: ws.projectDir });
const wall = performance.now() - started;
const out = JSON.parse(run.stdout) as { status: string; result?: { i: number } };
if (out.status !== "completed" || out.result?.i !== STEPS) throw new Error(`the bench graph did not complete: ${run.stdout} ${run.stderr}`);
const eventsPath = `${ws.projectDir}/.ai/knowledge/graph-runs/bench/graphs/loop/bench-loop.events.jsonl`;
const events = (await readFile(eventsPath, "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { ts: string; event_type: string; node?: string });
const completed = events.filter((e) => e.event_type === "step_completed");
const times = completed.map((e) => Date.parse(e.ts));
const perStep: number[] = [];
for (let i = 1; i < completed.length; i++) if (completed[i]!.node === "step") perStep.push(times[i]! - times[i - 1]!);
const stepMs = median(perStep);
const fanIndex = completed.findIndex((e) => e.node === "fan");
const itemMs = (times[fanIndex]! - times[fanIndex - 1]!) / ITEMS;

const ones: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const one = await runRye(["graph", "run", "bench/graphs/one", "--json"], { env, cwd: ws.projectDir });
  if (JSON.parse(one.stdout).status !== "completed") throw new Error(one.stdout);
  ones.push(performance.now() - t);
}
const oneMs = median(ones);

const row = (name: string, ms: number) => console.log(`${name.padEnd(52)} ${ms.toFixed(2).padStart(10)} ms   ${(ms / executeMs).toFixed(2).padStart(8)} × execute`);
console.log(`state_graph runtime, ${STEPS} loop steps + a foreach of ${ITEMS} items (node ${process.version})`);
row("execute of the tool directly (baseline)", executeMs);
row("graph step (tool + edge + signed state + event)", stepMs);
row("graph overhead per step (step − execute)", stepMs - executeMs);
row("foreach item (max_parallel 1, state signed per item)", itemMs);
row("rye graph run of a one-step graph, end to end", oneMs);
console.log(`(graph run of ${STEPS} steps + ${ITEMS} items: ${wall.toFixed(0)} ms wall in all; step overhead ratio ${(stepMs / executeMs).toFixed(2)})`);
