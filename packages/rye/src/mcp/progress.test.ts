/**
 * MCP progress: the adapter's rules (increasing values across phases, rate limit with a trailing report, phase
 * ends always sent), the tool progress channel's parsing limits, and end to end over stdio: a tool's own steps
 * arrive as `notifications/progress` only when the client passes a progress token.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Progress, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";
import { parseProgressLine, PROGRESS_LIMITS } from "../execute/primitives/progress-channel.ts";
import { createMcpProgress } from "./progress.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));

function recorder() {
  const sent: Progress[] = [];
  let clock = 0;
  const progress = createMcpProgress(
    { progressToken: "t", send: async (n: ServerNotification) => void sent.push(n.params as Progress) },
    { settings: { minIntervalMs: 100 }, now: () => clock },
  );
  return { sent, progress, tick: (ms: number) => (clock += ms) };
}

test("a new phase continues from the last value sent, its total offset the same way", () => {
  const { sent, progress, tick } = recorder();
  progress.listener({ key: "download a", done: 10, total: 40 });
  tick(200);
  progress.listener({ key: "download a", done: 40, total: 40 });
  tick(200);
  progress.listener({ key: "tool steps", done: 1, total: 3, message: "step 1" });
  tick(200);
  progress.listener({ key: "tool steps", done: 3, total: 3 });
  progress.finish();
  assert.deepEqual(sent.map((p) => [p.progress, p.total]), [[10, 40], [40, 40], [41, 43], [43, 43]]);
  assert.equal(sent[2]!.message, "step 1");
});

test("rate limit: reports inside the interval are withheld, the latest is sent at its end; a phase end always goes out", async () => {
  const { sent, progress, tick } = recorder();
  progress.listener({ key: "k", done: 1, total: 100 });
  tick(10);
  progress.listener({ key: "k", done: 2, total: 100 });
  tick(10);
  progress.listener({ key: "k", done: 3, total: 100 });
  assert.deepEqual(sent.map((p) => p.progress), [1], "withheld inside the interval");
  progress.listener({ key: "k", done: 100, total: 100 });
  assert.deepEqual(sent.map((p) => p.progress), [1, 100], "the end of a phase is not held back");
  progress.listener({ key: "k", done: 50, total: 100 });
  progress.finish();
  assert.deepEqual(sent.map((p) => p.progress), [1, 100], "never a smaller value");

  const second = recorder();
  second.progress.listener({ key: "k", done: 1 });
  second.progress.listener({ key: "k", done: 2 });
  await sleep(150);
  assert.deepEqual(second.sent.map((p) => p.progress), [1, 2], "the withheld report is sent when the interval has passed");
  second.progress.finish();
});

test("a long execute with nothing else to report sends a heartbeat with its elapsed time", async () => {
  const sent: Progress[] = [];
  let clock = 0;
  const progress = createMcpProgress({ progressToken: 1, send: async (n: ServerNotification) => void sent.push(n.params as Progress) }, { heartbeat: "tool demo/slow", settings: { heartbeatMs: 20 }, now: () => clock });
  clock = 5000;
  for (let i = 0; i < 100 && sent.length === 0; i++) await sleep(10);
  clock = 7000;
  for (let i = 0; i < 100 && sent.length === 1; i++) await sleep(10);
  progress.finish();
  assert.deepEqual(sent.slice(0, 2).map((p) => [p.progress, p.message]), [[5, "tool demo/slow: running for 5 s"], [7, "tool demo/slow: running for 7 s"]]);
});

test("the tool progress channel accepts small well-formed reports only", () => {
  assert.deepEqual(parseProgressLine('{"progress":2,"total":5,"message":"two","phase":"p"}'), { progress: 2, total: 5, message: "two", phase: "p" });
  for (const bad of ['{"progress":-1}', '{"progress":"2"}', '{"progress":1,"total":-3}', "[1]", "nope", '{"total":3}', `{"progress":1,"message":"${"x".repeat(PROGRESS_LIMITS.maxLineBytes)}"}`]) {
    assert.equal(parseProgressLine(bad), null, bad);
  }
  assert.equal(parseProgressLine(`{"progress":1,"message":"${"m".repeat(1000)}"}`)!.message!.length, PROGRESS_LIMITS.maxMessageChars);
});

// A tool that reports five steps, pausing between them, and says whether it had a progress pipe.
const STEPPER = `export async function main(p, context) {
  for (let i = 1; i <= 5; i++) {
    context.reportProgress({ progress: i, total: 5, message: "step " + i + " of 5" });
    await new Promise((r) => setTimeout(r, p.pause_ms));
  }
  return { had_pipe: Boolean(process.env.RYE_PROGRESS_FD) };
}`;

let ws: Workspace;
let client: Client;
before(async () => {
  ws = await createWorkspace();
  await ws.write("tool", "demo/stepper.mjs", nodeTool("demo", STEPPER, `{ type: "object", properties: { pause_ms: { type: "integer" } }, required: ["pause_ms"] }`));
  client = new Client({ name: "rye-progress-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: ws.env as Record<string, string>, stderr: "pipe" }));
});
after(async () => {
  await client?.close();
});

test("a tool's own steps arrive as notifications/progress when the client passes a token", async () => {
  const seen: Progress[] = [];
  const result = (await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/stepper", parameters: { pause_ms: 150 } } }, undefined, { onprogress: (p) => void seen.push(p) })) as unknown as { structuredContent: { data: { had_pipe: boolean } } };
  assert.equal(result.structuredContent.data.had_pipe, true);
  assert.ok(seen.length >= 2, JSON.stringify(seen));
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, `increasing: ${JSON.stringify(seen)}`);
  const last = seen.at(-1)!;
  assert.equal(last.progress, last.total, "the last step is reported with its total");
  assert.equal(last.message, "step 5 of 5");
});

test("without a progress token: no notifications and no progress pipe", async () => {
  let notified = 0;
  client.setNotificationHandler((await import("@modelcontextprotocol/sdk/types.js")).ProgressNotificationSchema, () => void notified++);
  const result = (await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/stepper", parameters: { pause_ms: 1 } } })) as unknown as { structuredContent: { data: { had_pipe: boolean } } };
  assert.equal(result.structuredContent.data.had_pipe, false);
  assert.equal(notified, 0);
});
