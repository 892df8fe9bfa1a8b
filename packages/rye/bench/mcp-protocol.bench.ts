/**
 * The MCP server's transports and notifications, against real `rye mcp` child processes driven by the SDK client:
 * - tools/call round trip (`load` of a local item) over Streamable HTTP (`rye mcp --http 0`) against stdio (the
 *   baseline): median of N calls on a warm connection, and the HTTP/stdio ratio;
 * - progress notification latency: a tool reports a step with the wall-clock time in its message; the client's
 *   receive time minus it (tool → progress pipe → server → notification → client), against a ping round trip
 *   over the same connection (the baseline);
 * - tools/list over stdio: the raw request against the SDK client's listTools, which also compiles a JSON Schema
 *   validator for every tool's outputSchema (what the output schemas cost a client like the SDK's, once per list).
 * Run: node --import tsx packages/rye/bench/mcp-protocol.bench.ts   (MCP_BENCH_CALLS=200 by default)
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createWorkspace, nodeTool } from "../test/workspace.ts";

const BIN = fileURLToPath(new URL("../bin/rye.mjs", import.meta.url));
const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 200);
const STEPS = 30;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)]!;
const wallClock = () => performance.timeOrigin + performance.now();

const ws = await createWorkspace();
await ws.write("tool", "bench/add.mjs", nodeTool("bench", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } }`));
// Reports a step every 150 ms (above the 100 ms rate limit, so none is held back) stamped with the wall clock.
await ws.write("tool", "bench/stepper.mjs", nodeTool("bench", `export async function main(p, context) {
  for (let i = 1; i <= p.steps; i++) {
    await new Promise((r) => setTimeout(r, 150));
    context.reportProgress({ progress: i, total: p.steps, message: String(performance.timeOrigin + performance.now()) });
  }
  return {};
}`, `{ type: "object", properties: { steps: { type: "integer" } } }`));
const env = ws.env as Record<string, string>;

async function roundTrips(client: Client): Promise<number[]> {
  const call = () => client.callTool({ name: "load", arguments: { item_type: "tool", item_id: "bench/add" } });
  for (let i = 0; i < 10; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  return times;
}

const stdio = new Client({ name: "bench-stdio", version: "1" });
await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env, stderr: "ignore" }));
const server = spawn(process.execPath, [BIN, "mcp", "--http", "0"], { cwd: ws.projectDir, env, stdio: ["ignore", "pipe", "ignore"] });
const [line] = (await once(createInterface({ input: server.stdout! }), "line")) as [string];
const url = /listening on (\S+)/.exec(line)![1]!;
const http = new Client({ name: "bench-http", version: "1" });
await http.connect(new StreamableHTTPClientTransport(new URL(url)));

try {
  const stdioTimes = await roundTrips(stdio);
  const httpTimes = await roundTrips(http);
  const s = median(stdioTimes);
  const h = median(httpTimes);
  console.log(`tools/call round trip (load, ${CALLS} calls, warm): stdio median ${s.toFixed(2)} ms (p95 ${p95(stdioTimes).toFixed(2)}), Streamable HTTP median ${h.toFixed(2)} ms (p95 ${p95(httpTimes).toFixed(2)}) — HTTP/stdio ${(h / s).toFixed(2)}x`);

  for (const [name, client] of [["stdio", stdio], ["Streamable HTTP", http]] as const) {
    const pings: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await client.ping();
      pings.push(performance.now() - t);
    }
    const latencies: number[] = [];
    await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "bench/stepper", parameters: { steps: STEPS } } }, undefined, {
      onprogress: (p) => void latencies.push(wallClock() - Number(p.message)),
      timeout: 120_000,
    });
    const ping = median(pings);
    const latency = median(latencies);
    console.log(`progress notification latency over ${name} (${latencies.length}/${STEPS} steps received): median ${latency.toFixed(2)} ms (p95 ${p95(latencies).toFixed(2)}), ping round trip ${ping.toFixed(2)} ms — ${(latency / ping).toFixed(2)}x a ping`);
  }
  const raw: number[] = [];
  const listed: number[] = [];
  for (let i = 0; i < 30; i++) {
    let t = performance.now();
    await stdio.request({ method: "tools/list", params: {} }, ListToolsResultSchema);
    raw.push(performance.now() - t);
    t = performance.now();
    await stdio.listTools();
    listed.push(performance.now() - t);
  }
  console.log(`tools/list over stdio: raw request median ${median(raw).toFixed(2)} ms; SDK Client.listTools (compiles the output schema validators) median ${median(listed).toFixed(2)} ms — ${(median(listed) / median(raw)).toFixed(1)}x`);
} finally {
  await stdio.close();
  await http.close();
  server.kill("SIGTERM");
}
