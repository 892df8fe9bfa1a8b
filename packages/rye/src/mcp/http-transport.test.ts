/**
 * `rye mcp --http`: the MCP server over Streamable HTTP, driven by the SDK's StreamableHTTPClientTransport against
 * a real `rye mcp --http 0` child process (loopback, and exposed on 0.0.0.0 with a bearer token), plus the
 * session limits of startMcpHttp in-process.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";
import { isLoopback, startMcpHttp, tokenMatches } from "./http-transport.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
const TOKEN = "t".repeat(20) + "0123456789abcdef0123";

let ws: Workspace;
const children: ChildProcess[] = [];
const clients: Client[] = [];

const directive = `# greet

\`\`\`xml
<directive name="greet" version="1.0.0">
  <metadata>
    <description>Greets someone</description>
    <category>demo</category>
    <author>tests</author>
  </metadata>
  <inputs><input name="name" type="string" required="true">who</input></inputs>
  <process><step name="s">Say hi to {input:name}.</step></process>
</directive>
\`\`\`
`;

before(async () => {
  ws = await createWorkspace();
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  await ws.write("directive", "demo/greet.md", directive);
  await ws.write("tool", "demo/stepper.mjs", nodeTool("demo", `export async function main(p, context) {
  for (let i = 1; i <= 3; i++) { context.reportProgress({ progress: i, total: 3, message: "step " + i }); await new Promise((r) => setTimeout(r, 150)); }
  return {};
}`));
  await ws.write("tool", "demo/spawner.mjs", nodeTool("demo", `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
export function main(p) {
  const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  writeFileSync(p.pid_file, JSON.stringify({ child: process.pid, grandchild: grandchild.pid }));
  return new Promise(() => {});
}`, `{ type: "object", properties: { pid_file: { type: "string" } }, required: ["pid_file"] }`));
});
after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
});

/** Starts `rye mcp --http 0 …` and resolves with its endpoint URL (the one line it prints), or its error output. */
async function serve(args: string[], env: Record<string, string | undefined> = {}): Promise<{ url: string; child: ChildProcess } | { exitCode: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "0", ...args], { cwd: ws.projectDir, env: { ...ws.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([once(lines, "line").then(([line]) => String(line)), once(child, "exit").then(() => null)]);
  if (first === null) return { exitCode: child.exitCode, stderr };
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  assert.ok(url, first);
  return { url, child };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "rye-http-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** A raw POST of an initialize request with chosen headers (node:http, so Host can be set too). */
function rawInitialize(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("two clients share one server concurrently: own sessions, tools and prompts over HTTP", async () => {
  const served = await serve([]);
  assert.ok("url" in served, JSON.stringify(served));
  assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const [a, b] = await Promise.all([connect(served.url), connect(served.url)]);
  const ids = [a, b].map((c) => (c.transport as StreamableHTTPClientTransport).sessionId);
  assert.ok(ids[0] && ids[1] && ids[0] !== ids[1], `distinct session ids: ${ids.join(", ")}`);
  const sums = await Promise.all(
    Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: i, b: 100 } } })),
  );
  assert.deepEqual(sums.map((r) => (r.structuredContent as { data: { sum: number } }).data.sum), [100, 101, 102, 103, 104, 105]);
  assert.deepEqual((await a.listTools()).tools.map((t) => t.name).sort(), ["execute", "load", "search", "sign"]);
  const prompts = await b.listPrompts();
  assert.ok(prompts.prompts.some((p) => p.name === "demo/greet"));
  const prompt = await b.getPrompt({ name: "demo/greet", arguments: { name: "Ada" } });
  assert.match((prompt.messages[0]!.content as { text: string }).text, /Say hi to Ada\./);
  // Closing one session leaves the other working.
  await a.close();
  assert.equal(Boolean((await b.callTool({ name: "search", arguments: { query: "add", item_type: "tool" } })).isError), false);
});

/** Gone: no such process, or a zombie nobody reaps. */
async function gone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat === "" || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
}

test("over HTTP too: progress notifications reach the caller, and a cancel kills the tool's process tree", async () => {
  const served = await serve([]);
  assert.ok("url" in served);
  const client = await connect(served.url);
  const seen: { progress: number; total?: number; message?: string }[] = [];
  await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/stepper" } }, undefined, { onprogress: (p) => void seen.push(p) });
  assert.equal(seen.at(-1)?.message, "step 3", JSON.stringify(seen));
  assert.equal(seen.at(-1)?.progress, seen.at(-1)?.total);

  const pidFile = join(ws.root, "http-pids.json");
  const controller = new AbortController();
  const call = client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/spawner", parameters: { pid_file: pidFile } } }, undefined, { signal: controller.signal, timeout: 120_000 });
  let pids: { child: number; grandchild: number } | undefined;
  for (let i = 0; i < 600 && !pids; i++) {
    const text = await readFile(pidFile, "utf8").catch(() => "");
    if (text) pids = JSON.parse(text) as { child: number; grandchild: number };
    else await sleep(50);
  }
  assert.ok(pids, "the tool started its grandchild");
  controller.abort("stop");
  await assert.rejects(call);
  for (let i = 0; i < 600 && !((await gone(pids.child)) && (await gone(pids.grandchild))); i++) await sleep(50);
  assert.equal(await gone(pids.child), true, "the tool is gone");
  assert.equal(await gone(pids.grandchild), true, "its grandchild is gone");
});

test("DNS rebinding protection: a foreign Origin or Host is refused before any session exists", async () => {
  const served = await serve([]);
  assert.ok("url" in served);
  const port = new URL(served.url).port;
  const foreignOrigin = await rawInitialize(served.url, { origin: "http://evil.example" });
  assert.equal(foreignOrigin.status, 403);
  assert.match(foreignOrigin.body, /Origin .*not allowed/);
  const foreignHost = await rawInitialize(served.url, { host: `evil.example:${port}` });
  assert.equal(foreignHost.status, 403);
  assert.match(foreignHost.body, /Host .*not allowed/);
  assert.equal((await rawInitialize(served.url, { origin: `http://localhost:${port}` })).status, 200, "the server's own origin is fine");
  const allowed = await serve(["--allowed-origin", "https://app.example"]);
  assert.ok("url" in allowed);
  assert.equal((await rawInitialize(allowed.url, { origin: "https://app.example" })).status, 200);
});

test("exposed on a non-loopback address: a bearer token is required, missing or wrong ones are refused", async () => {
  const refused = await serve(["--host", "0.0.0.0"], { RYE_MCP_TOKEN: undefined });
  assert.ok("exitCode" in refused);
  assert.notEqual(refused.exitCode, 0);
  assert.match(refused.stderr, /needs a bearer token/);
  const short = await serve(["--host", "0.0.0.0"], { RYE_MCP_TOKEN: "short" });
  assert.ok("exitCode" in short);
  assert.match(short.stderr, /at least 32/);

  const tokenFile = join(ws.root, "mcp-token");
  await writeFile(tokenFile, `${TOKEN}\n`);
  const served = await serve(["--host", "0.0.0.0", "--token-file", tokenFile]);
  assert.ok("url" in served, JSON.stringify(served));
  const missing = await rawInitialize(served.url, {});
  assert.equal(missing.status, 401);
  assert.match(missing.body, /bearer token is required/);
  const wrong = await rawInitialize(served.url, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
  assert.equal(wrong.status, 401);
  await assert.rejects(connect(served.url, { authorization: "Bearer nope" }), /401|invalid|token/i);
  const client = await connect(served.url, { authorization: `Bearer ${TOKEN}` });
  const result = await client.callTool({ name: "execute", arguments: { item_type: "tool", item_id: "demo/add", parameters: { a: 20, b: 22 } } });
  assert.deepEqual((result.structuredContent as { data: unknown }).data, { sum: 42 });
});

test("sessions: unknown ids are 404, requests without one are 400, the session cap and idle expiry hold", async () => {
  const server = await startMcpHttp({ port: 0, env: ws.env, cwd: ws.projectDir, limits: { maxSessions: 2, idleSessionMs: 300 } });
  try {
    const unknown = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "nope" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    assert.equal(unknown.status, 404);
    const noSession = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    assert.equal(noSession.status, 400);
    await connect(server.url);
    await connect(server.url);
    assert.equal(server.sessions(), 2);
    assert.equal((await rawInitialize(server.url, {})).status, 503, "a third session is over the cap");
    // Idle sessions are closed by the sweep; then there is room again.
    for (let i = 0; i < 100 && server.sessions() > 0; i++) await sleep(50);
    assert.equal(server.sessions(), 0);
    assert.equal((await rawInitialize(server.url, {})).status, 200);
    const tooBig = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(4 * 1024 * 1024 + 1) });
    assert.equal(tooBig.status, 413);
  } finally {
    await server.close();
  }
});

test("a port in use is a clear error", async () => {
  const first = await startMcpHttp({ port: 0, env: ws.env, cwd: ws.projectDir });
  try {
    await assert.rejects(startMcpHttp({ port: first.port, env: ws.env, cwd: ws.projectDir }), (err: Error & { code?: string }) => err.code === "UNAVAILABLE" && /EADDRINUSE/.test(err.message));
  } finally {
    await first.close();
  }
});

test("tokens are compared whole", () => {
  assert.equal(tokenMatches(TOKEN, TOKEN), true);
  assert.equal(tokenMatches(TOKEN, TOKEN.slice(0, -1)), false);
  assert.equal(tokenMatches(TOKEN, `${TOKEN}x`), false);
});

test("loopback addresses need no token; every other address does", () => {
  for (const host of ["127.0.0.1", "127.0.0.5", "localhost", "::1", "[::1]"]) assert.equal(isLoopback(host), true, host);
  for (const host of ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "example.com", "128.0.0.1"]) assert.equal(isLoopback(host), false, host);
});
