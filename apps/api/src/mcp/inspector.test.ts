/**
 * A client this project did not write: the official MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, a dev
 * dependency) connects to the running registry's /mcp over Streamable HTTP, anonymously, lists its tools, prompts and
 * resources without an error or a schema-portability error, and calls `search`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startMcpFixture, type McpFixture } from "../../test/mcp-registry.ts";

const run = promisify(execFile);

let f: McpFixture;
let launcher: string;
let catalog: string;

before(async () => {
  const dir = process.env.MCP_INSPECTOR_DIR ?? dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"));
  launcher = join(dir, "clients/launcher/build/index.js");
  assert.ok(await stat(launcher).then(() => true, () => false), `no inspector launcher at ${launcher}: run npm install (it is a devDependency of apps/api)`);
  // The inspector keeps a catalog of servers (default under HOME): a throwaway one.
  catalog = join(await mkdtemp(join(tmpdir(), "rye-inspector-")), "mcp.json");
  f = await startMcpFixture();
});
after(() => f?.close());

async function inspect(method: string, extra: string[] = []): Promise<Record<string, any>> {
  const args = [launcher, "--cli", `${f.url}/mcp`, "--transport", "http", "--method", method, ...extra];
  const { stdout, stderr } = await run(process.execPath, args, { env: { ...process.env, MCP_CATALOG_PATH: catalog, NO_COLOR: "1" }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`inspector ${method} failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  });
  const portability = /Schema portability: (\d+) errors?/.exec(stderr);
  if (portability) assert.equal(portability[1], "0", stderr);
  const other = stderr.split("\n").filter((line) => line.trim() && !line.startsWith("Schema portability:"));
  assert.deepEqual(other.filter((line) => /error|failed|not found/i.test(line)), [], `${method}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, any>;
}

test("the MCP Inspector CLI lists the registry's tools, prompts and resources", async () => {
  const { tools } = await inspect("tools/list");
  assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ["get_item", "list_versions", "relations", "search", "skill_files"]);
  const { prompts } = await inspect("prompts/list");
  assert.ok(prompts.some((p: { name: string }) => p.name === "alice/flows/greet"), JSON.stringify(prompts));
  const { resources } = await inspect("resources/list");
  assert.deepEqual(resources.map((r: { uri: string }) => r.uri).sort(), ["rye://knowledge/alice/notes/style", "skill://alice/notes/SKILL.md"]);
});

test("the MCP Inspector CLI calls search", async () => {
  const result = await inspect("tools/call", ["--tool-name", "search", "--tool-arg", "query=greet"]);
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  assert.equal(result.structuredContent.results[0].item_id, "alice/flows/greet");
});
