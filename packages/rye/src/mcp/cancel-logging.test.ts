/**
 * MCP logging and cancellation (SDK client over stdio against a real `rye mcp`): the server's logs arrive as
 * `notifications/message` at the level the client sets, stdout carries nothing but the protocol, and
 * `notifications/cancelled` for a running execute kills the tool's whole process tree.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));

let ws: Workspace;
let client: Client;
const logs: LoggingMessageNotification["params"][] = [];
const transportErrors: Error[] = [];
/** The logs received so far (a function: the compiler must not narrow the array after an assertion). */
const logged = () => logs;

// Starts a grandchild (a node process that idles), writes both pids, then never returns.
const SPAWNER = `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
export function main(p) {
  const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(p.pid_file, JSON.stringify({ child: process.pid, grandchild: grandchild.pid }));
  return new Promise(() => {});
}`;

before(async () => {
  ws = await createWorkspace();
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  await ws.write("tool", "demo/spawner.mjs", nodeTool("demo", SPAWNER, `{ type: "object", properties: { pid_file: { type: "string" } }, required: ["pid_file"] }`));
  client = new Client({ name: "rye-cancel-test", version: "1.0.0" });
  client.onerror = (err) => transportErrors.push(err);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], cwd: ws.projectDir, env: ws.env as Record<string, string>, stderr: "pipe" }));
});
after(async () => {
  await client?.close();
});

/** Gone: no such process, or a zombie nobody reaps (a container's init may not). */
async function gone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(50);
  }
  throw new Error(`gave up waiting for ${what}`);
}

test("the server announces logging; logs follow the level the client sets", async () => {
  assert.ok(client.getServerCapabilities()?.logging, "logging capability");
  await client.setLoggingLevel("debug");
  logs.length = 0;
  await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: 1, b: 2 } } });
  assert.ok(logs.some((l) => l.level === "debug" && l.logger === "rye" && /execute: started/.test(String(l.data))), JSON.stringify(logs));
  assert.ok(logs.some((l) => l.level === "info" && /execute demo\/add: success in \d+ ms/.test(String(l.data))), JSON.stringify(logs));

  await client.setLoggingLevel("error");
  logs.length = 0;
  await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: 1 } } });
  await client.callTool({ name: "search", arguments: { query: "add" } });
  // Notifications are written before the response on the same stream, so none can still be on the way.
  assert.deepEqual(logs, [], "below the level set: nothing");

  await client.setLoggingLevel("warning");
  await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: 1 } } });
  assert.ok(logged().some((l) => l.level === "warning" && /INPUT_INVALID/.test(String(l.data))), JSON.stringify(logs));
});

test("cancelling a running execute kills the tool and its grandchild; the call ends with a cancellation", async () => {
  const pidFile = join(ws.root, "pids.json");
  const controller = new AbortController();
  const call = client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/spawner", parameters: { pid_file: pidFile } } }, undefined, { signal: controller.signal, timeout: 120_000 });
  const pids = await waitFor("the tool to start its grandchild", async () => {
    const text = await readFile(pidFile, "utf8").catch(() => "");
    return text ? (JSON.parse(text) as { child: number; grandchild: number }) : undefined;
  });
  assert.equal(await gone(pids.child), false, "the tool runs");
  assert.equal(await gone(pids.grandchild), false, "its grandchild runs");
  controller.abort("the user changed their mind");
  await assert.rejects(call, /changed their mind|abort|cancel/i);
  await waitFor("the tool process to end", async () => ((await gone(pids.child)) ? true : undefined));
  await waitFor("the grandchild process to end", async () => ((await gone(pids.grandchild)) ? true : undefined));
  // The server goes on serving.
  const after = (await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: 2, b: 3 } } })) as unknown as { structuredContent: { data: unknown } };
  assert.deepEqual(after.structuredContent.data, { sum: 5 });
});

test("stdout carried nothing but the protocol", () => {
  assert.deepEqual(transportErrors.map((e) => e.message), []);
});
