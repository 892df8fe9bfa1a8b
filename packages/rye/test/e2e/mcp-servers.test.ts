/**
 * MCP server management (docs/mcp-servers.md) against real MCP servers started by the test (stdio and Streamable
 * HTTP, built with the MCP SDK), through the real `rye` CLI: add → stubs signed → search finds them → execute runs
 * through the chain stub → mcp runtime → subprocess; the server changes a schema → the stale stub is refused before
 * anything is called → refresh shows the change → re-signed, it runs again; remove deletes the stubs.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { runRye } from "../cli.ts";
import type { Workspace } from "../workspace.ts";
import { createWorkspace } from "../workspace.ts";
import { registerManagedTools } from "../fixtures/mcp-managed-tools.mjs";

const SERVER = fileURLToPath(new URL("../fixtures/mcp-managed-server.mjs", import.meta.url));

let ws: Workspace;
let variantFile: string;
let httpVariant = "v1";
let http: ReturnType<typeof createServer>;
let url = "";
const seenTokens: string[] = [];

const rye = async (args: string[], env: Record<string, string> = {}) => {
  const run = await runRye([...args, "--json"], { env: { ...(ws.env as Record<string, string>), ...env }, cwd: ws.projectDir });
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(run.stdout) as Record<string, any>;
  } catch {
    json = {};
  }
  return { ...run, json };
};

before(async () => {
  ws = await createWorkspace();
  variantFile = join(ws.root, "variant");
  await writeFile(variantFile, "v1");
  http = createServer(async (req, res) => {
    seenTokens.push(String(req.headers.authorization ?? ""));
    const mcp = new McpServer({ name: "rye-managed-http", version: "1.0.0" });
    registerManagedTools(mcp, httpVariant);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
after(() => {
  http?.closeAllConnections();
  http?.close();
});

describe("a stdio server", () => {
  test("add → signed stubs → search → execute → schema changed: refused → refresh → runs again → remove", async () => {
    const add = ["mcp", "add", "weather", "--command", process.execPath, "--arg", SERVER, "--arg", variantFile, "--env", "MANAGED_TOKEN=${MANAGED_TOKEN}"];
    const dry = await rye([...add, "--dry-run"]);
    assert.deepEqual(dry.json.tools.map((t: { name: string; tier: string }) => `${t.name}:${t.tier}`).sort(), ["forecast:T3", "weather:T1", "whoami:T3"], dry.stdout + dry.stderr);
    const refused = await rye(add);
    assert.equal(refused.json.error?.code, "BAD_REQUEST", "no terminal and no --yes: nothing is signed");
    const added = await rye([...add, "--yes"]);
    assert.equal(added.code, 0, added.stdout + added.stderr);
    assert.equal(added.json.written.length, 3);

    const stub = await readFile(join(ws.projectDir, ".ai/tools/mcp/weather/weather.yaml"), "utf8");
    assert.match(stub, /^# rye:signed:/, "signed with the user's key");
    assert.match(stub, /MANAGED_TOKEN: \$\{MANAGED_TOKEN\}/, "the credential stays a reference");
    const verify = await rye(["verify", ".ai/tools/mcp/weather/weather.yaml"]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);

    const found = await rye(["search", "weather city", "--type", "tool"]);
    assert.ok((found.json.results as { id: string }[]).some((r) => r.id === "mcp/weather/weather"), found.stdout);

    const ran = await rye(["execute", "tool", "mcp/weather/weather", "--params", JSON.stringify({ city: "Oslo" })]);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.deepEqual(ran.json.data.structuredContent, { city: "Oslo", sky: "sunny" });
    assert.deepEqual(ran.json.chain.map((c: { item_id: string }) => c.item_id), ["mcp/weather/weather", "rye/core/runtimes/mcp_stdio", "rye/core/primitives/subprocess"]);
    assert.equal(ran.json.metadata.security.tier, "T1", "a read-only tool (MCP annotations) is T1");
    const invalid = await rye(["execute", "tool", "mcp/weather/weather", "--params", JSON.stringify({ town: "Oslo" })]);
    assert.equal(invalid.json.error?.code, "INPUT_INVALID", "the server's input schema validates parameters before anything starts");
    const token = await rye(["execute", "tool", "mcp/weather/whoami"], { MANAGED_TOKEN: "tok-42" });
    assert.equal(token.json.data.content[0].text, "tok-42", "the reference is resolved at run time");

    // The server changes behind the signed stubs.
    await writeFile(variantFile, "v2");
    const stale = await rye(["execute", "tool", "mcp/weather/weather", "--params", JSON.stringify({ city: "Oslo" })]);
    assert.equal(stale.json.status, "error", stale.stdout);
    assert.equal(stale.json.data.error.type, "SchemaChanged");
    assert.match(stale.json.data.error.message, /changed the input schema of "weather".*nothing was called.*rye mcp refresh/);
    const gone = await rye(["execute", "tool", "mcp/weather/forecast", "--params", JSON.stringify({ city: "Oslo", days: 2 })]);
    assert.match(gone.json.data.error.message, /no longer offers the tool "forecast"/);

    const review = await rye(["mcp", "refresh", "weather", "--dry-run"]);
    assert.deepEqual(review.json.added, ["alerts"]);
    assert.deepEqual(review.json.changed.map((c: { tool: string }) => c.tool), ["weather"]);
    assert.deepEqual(review.json.removed, ["forecast"]);
    assert.deepEqual(review.json.unchanged, ["whoami"]);
    assert.equal((await rye(["execute", "tool", "mcp/weather/weather", "--params", JSON.stringify({ city: "Oslo" })])).json.status, "error", "a dry run re-signs nothing");

    const refreshed = await rye(["mcp", "refresh", "weather", "--yes"]);
    assert.equal(refreshed.code, 0, refreshed.stdout + refreshed.stderr);
    const again = await rye(["execute", "tool", "mcp/weather/weather", "--params", JSON.stringify({ city: "Oslo", units: "metric" })]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.json.data.content[0].text, /sunny in Oslo \(metric\)/);
    assert.deepEqual((await readdir(join(ws.projectDir, ".ai/tools/mcp/weather"))).sort(), ["alerts.yaml", "weather.yaml", "whoami.yaml"]);

    // The system tool (for MCP clients and threads) lists and reviews, and signs nothing.
    await writeFile(variantFile, "v1");
    const reviewed = await rye(["execute", "tool", "rye/mcp/manager", "--params", JSON.stringify({ action: "review", server: "weather" })]);
    assert.equal(reviewed.code, 0, reviewed.stdout + reviewed.stderr);
    assert.deepEqual(reviewed.json.data.changed.map((c: { name: string }) => c.name), ["weather"]);
    assert.deepEqual(reviewed.json.data.added.map((t: { name: string }) => t.name), ["forecast"]);
    assert.match(reviewed.json.data.next, /rye mcp refresh weather/);
    const managed = await rye(["execute", "tool", "rye/mcp/manager", "--params", JSON.stringify({ action: "list" })]);
    assert.deepEqual(managed.json.data.servers[0].tools.map((t: { item_id: string }) => t.item_id).sort(), ["mcp/weather/alerts", "mcp/weather/weather", "mcp/weather/whoami"]);
    assert.equal(managed.json.data.servers[0].tools.find((t: { tool: string }) => t.tool === "weather").version, "1.1.0", "a changed stub is a new version");

    const listed = await rye(["mcp", "list"]);
    assert.deepEqual(listed.json.servers.map((s: { name: string; stubs: string[] }) => [s.name, s.stubs.length]), [["weather", 3]]);
    const removed = await rye(["mcp", "remove", "weather"]);
    assert.equal(removed.json.removed_stubs, 3);
    assert.equal((await rye(["execute", "tool", "mcp/weather/weather", "--params", "{}"])).json.error?.code, "ITEM_NOT_FOUND");
  });
});

describe("a Streamable HTTP server", () => {
  test("add with a header reference → execute sends the resolved header → schema changed: refused", async () => {
    const added = await rye(["mcp", "add", "remote", "--url", url, "--header", "Authorization=Bearer ${REMOTE_TOKEN}", "--yes"], { REMOTE_TOKEN: "secret-1" });
    assert.equal(added.code, 0, added.stdout + added.stderr);
    const stub = await readFile(join(ws.projectDir, ".ai/tools/mcp/remote/weather.yaml"), "utf8");
    assert.doesNotMatch(stub, /secret-1/, "the token never reaches the stub");
    const ran = await rye(["execute", "tool", "mcp/remote/weather", "--params", JSON.stringify({ city: "Lima" })], { REMOTE_TOKEN: "secret-2" });
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.equal(seenTokens.at(-1), "Bearer secret-2");
    httpVariant = "v2";
    const stale = await rye(["execute", "tool", "mcp/remote/weather", "--params", JSON.stringify({ city: "Lima" })], { REMOTE_TOKEN: "secret-2" });
    assert.equal(stale.json.data.error.type, "SchemaChanged");
    const review = await rye(["mcp", "refresh", "remote", "--dry-run"], { REMOTE_TOKEN: "secret-2" });
    assert.deepEqual(review.json.changed.map((c: { tool: string }) => c.tool), ["weather"]);
  });

  test("bad input: a bad name, both or neither transport, an unreachable server", async () => {
    assert.equal((await rye(["mcp", "add", "Bad Name", "--url", url])).json.error?.code, "BAD_REQUEST");
    assert.equal((await rye(["mcp", "add", "x", "--url", url, "--command", "node"])).json.error?.code, "BAD_REQUEST");
    assert.equal((await rye(["mcp", "add", "x"])).json.error?.code, "BAD_REQUEST");
    const down = await rye(["mcp", "add", "down", "--url", "http://127.0.0.1:9/mcp", "--yes"]);
    assert.equal(down.json.error?.code, "UNAVAILABLE");
    assert.equal((await rye(["mcp", "refresh", "nothing"])).json.error?.code, "NOT_FOUND");
  });
});
