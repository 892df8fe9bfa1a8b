/**
 * The budget ledger under real concurrency: one parent thread starts 20 children in the background at once
 * (each its own process, each asking for 0.05 USD), with 0.5 USD to give. The children hold their reservations
 * (their model never answers until their duration limit), so they compete at the same time: however the
 * reservations interleave, what the parent has committed at once never exceeds its budget (the ledger's peak,
 * kept under the same lock), the refused children say spend_exceeded, and the sums add up.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ThreadBench } from "../threads.ts";
import { directive, returnsTool, threadBench } from "../threads.ts";

const CHILDREN = 20;
/** How long each child holds its reservation (its model never answers); the parent outlives them all. */
const HOLD_SECONDS = 20;
let bench: ThreadBench;
before(async () => {
  bench = await threadBench("anthropic");
});
after(() => bench?.close());

test("20 children reserving from one parent budget at once never exceed it", async () => {
  await bench.write("tool", "conc/tools/wait.mjs", returnsTool("conc/tools", "new Promise((r) => setTimeout(() => r({ waited: p.ms }), p.ms))", `{ type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] }`));
  await bench.write(
    "directive",
    "conc/fan/parent.md",
    directive({ name: "parent", category: "conc/fan", permissions: "<execute><tool>rye.agent.threads.thread_directive</tool><tool>conc.tools.*</tool></execute>", limits: `<limits spend="0.5" spawns="25"/>` }),
  );
  await bench.write("directive", "conc/fan/child.md", directive({ name: "child", category: "conc/fan" }));
  const spawnAsync = {
    name: "rye_execute",
    input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "conc/fan/child", async_exec: true, limit_overrides: { spend: 0.05, duration_seconds: HOLD_SECONDS } } },
  };
  bench.script({
    parent: (turn) =>
      turn === 0
        ? { toolCalls: Array.from({ length: CHILDREN }, () => spawnAsync), usage: { input: 1000, output: 100 } }
        : turn === 1
          ? // Stay alive while the children start and settle.
            { toolCalls: [{ name: "rye_execute", input: { item_type: "tool", item_id: "conc/tools/wait", parameters: { ms: (HOLD_SECONDS + 3) * 1000 } } }], usage: { input: 1000, output: 100 } }
          : { text: "all started", usage: { input: 1000, output: 100 } },
    child: () => ({ hang: true }),
  });
  const run = await bench.rye(["thread", "run", "conc/fan/parent"]);
  assert.equal(run.json.status, "completed", run.stdout + run.stderr);
  const parentId = run.json.thread_id as string;

  const starts = (await bench.events(parentId)).filter((e) => e.event_type === "tool_call_result").slice(0, CHILDREN);
  assert.equal(starts.length, CHILDREN);
  const childIds = starts.map((e) => JSON.parse(e.payload.output).data.thread_id as string);
  assert.equal(new Set(childIds).size, CHILDREN, "20 distinct children");

  // Wait for every child to settle (they run in the background).
  const deadline = Date.now() + 60_000;
  let records: Record<string, any>[] = [];
  for (;;) {
    records = await Promise.all(childIds.map((id) => bench.record(id)));
    if (records.every((r) => !["created", "running"].includes(r.status)) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const codes = records.map((r) => r.error?.code);
  assert.ok(codes.every((c) => c === "duration_seconds_exceeded" || c === "spend_exceeded"), JSON.stringify(codes));

  const ledger = JSON.parse(await readFile(join(bench.ws.projectDir, ".ai/threads/ledger.json"), "utf8")) as { entries: Record<string, any> };
  const parent = ledger.entries[parentId];
  const kids = childIds.map((id) => ledger.entries[id]).filter(Boolean);
  const ownSpend = 3 * ((1000 * 2 + 100 * 10) / 1e6); // three parent turns at the general tier's prices
  // The ledger's own account of the most the parent ever had committed at once (its spend plus the children's
  // open reservations), kept under the same lock as every reservation: never above what it reserved.
  assert.ok(parent.peak_committed <= parent.reserved_spend + 1e-12, `peak ${parent.peak_committed} of ${parent.reserved_spend}`);
  assert.ok(parent.peak_committed > 0.5 - 0.05, `the children used the budget up, at once (peak ${parent.peak_committed})`);
  assert.ok(kids.every((e) => e.reserved_spend <= 0.05 + 1e-12 && e.status === "released"));
  const holding = codes.filter((c) => c === "duration_seconds_exceeded").length;
  assert.equal(holding, kids.length, "every child with a ledger entry held a reservation until its duration ran out");
  assert.ok(codes.some((c) => c === "spend_exceeded"), "some children found no budget left");
  assert.equal(codes.filter((c) => c === "spend_exceeded").length, CHILDREN - holding, "the others were refused");
  assert.equal(parent.spawned, kids.length);
  assert.ok(Math.abs(parent.actual_spend - ownSpend) < 1e-9, "the children spent nothing; the parent its own turns");
});
