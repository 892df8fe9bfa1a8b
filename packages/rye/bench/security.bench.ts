/**
 * The security gate's cost per tool call (docs/security.md), against a plain `execute` of a tool through the engine
 * (the baseline, gate included): the decision for a short command, for a large input (a 256 KiB file write), and
 * the first call of a process (loading and verifying the rules and the policy).
 * Run: node --import tsx packages/rye/bench/security.bench.ts
 */
import "@rye/core/node";
import { performance } from "node:perf_hooks";
import { Engine } from "../src/engine/engine.ts";
import { gateToolCall } from "../src/security/gate.ts";
import { readVerifiedItem } from "../src/sdk/runtime.ts";
import { createWorkspace, nodeTool } from "../test/workspace.ts";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const ws = await createWorkspace();
await ws.write("tool", "bench/tools/echo.mjs", nodeTool("bench/tools", "export function main(p) { return { echo: p.text }; }", `{ type: "object", properties: { text: { type: "string" } } }`));

const cold = await Engine.open({ projectPath: ws.projectDir, env: ws.env });
// Verification warmed up by another item (every execute verifies its chain anyway): what the gate adds.
await readVerifiedItem(cold, "tool", "rye/file-system/fs_read");
const first = performance.now();
await gateToolCall(cold.ctx, { toolId: "rye/bash/bash", extras: { __tier__: "T3" }, parameters: { command: "ls" } });
const firstMs = performance.now() - first;

const engine = await Engine.open({ projectPath: ws.projectDir, env: ws.env });
await engine.execute({ item_type: "tool", item_id: "bench/tools/echo", parameters: { text: "warm" } });
const executes: number[] = [];
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  await engine.execute({ item_type: "tool", item_id: "bench/tools/echo", parameters: { text: "hello" } });
  executes.push(performance.now() - t);
}
const executeMs = median(executes);

const per = async (parameters: unknown, n: number) => {
  await gateToolCall(engine.ctx, { toolId: "rye/bash/bash", extras: { __tier__: "T3" }, parameters });
  const t = performance.now();
  for (let i = 0; i < n; i++) await gateToolCall(engine.ctx, { toolId: "rye/bash/bash", extras: { __tier__: "T3" }, parameters });
  return (performance.now() - t) / n;
};
const shortMs = await per({ command: "git status && npm test -- --grep gate" }, 20_000);
const largeMs = await per({ path: "notes.md", content: "All quiet on the build front. ".repeat(8738) }, 200);

const row = (name: string, ms: number) => console.log(`${name.padEnd(58)} ${ms.toFixed(ms < 0.1 ? 5 : 3).padStart(10)} ms   ${(ms / executeMs).toFixed(5).padStart(9)} × execute`);
console.log(`security gate (node ${process.version}), ${ws.projectDir}`);
row("baseline: plain execute of a tool, gate included (median)", executeMs);
row("gate decision, a short command (24 rules)", shortMs);
row("gate decision, a 256 KiB input", largeMs);
row("first call of a process: rules + policy read and verified", firstMs);
