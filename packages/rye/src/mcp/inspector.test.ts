/**
 * A client this project did not write: the official MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, a
 * dev dependency) starts `rye mcp` over stdio and lists its tools, prompts and resources without an error.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { before, test } from "node:test";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { createWorkspace, nodeTool, type Workspace } from "../../test/workspace.ts";

const BIN = fileURLToPath(new URL("../../bin/rye.mjs", import.meta.url));
const run = promisify(execFile);

/** The inspector's launcher (its `mcp-inspector` bin), from node_modules; MCP_INSPECTOR_DIR names another install. */
async function inspectorLauncher(): Promise<string> {
  const dir = process.env.MCP_INSPECTOR_DIR ?? dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json"));
  const launcher = join(dir, "clients/launcher/build/index.js");
  assert.ok(await stat(launcher).then(() => true, () => false), `no inspector launcher at ${launcher}: run npm install (it is a devDependency of packages/rye)`);
  return launcher;
}

let ws: Workspace;
let launcher: string;
let catalog: string;

before(async () => {
  launcher = await inspectorLauncher();
  ws = await createWorkspace();
  await ws.write("tool", "demo/add.mjs", nodeTool("demo", "export function main(p) { return { sum: p.a + p.b }; }", `{ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }`));
  // The inspector keeps a catalog of servers (default under HOME): a throwaway one.
  catalog = join(await mkdtemp(join(tmpdir(), "rye-inspector-")), "mcp.json");
});

async function inspect(method: string, extra: string[] = []): Promise<Record<string, any>> {
  const env = { ...ws.env, MCP_CATALOG_PATH: catalog, NO_COLOR: "1" } as Record<string, string>;
  // The inspector starts the server with a minimal environment of its own plus the -e pairs: the workspace's spaces.
  const serverEnv = ["USER_SPACE", "RYE_OFFLINE"].flatMap((name) => ["-e", `${name}=${ws.env[name]}`]);
  const args = [launcher, "--cli", "--cwd", ws.projectDir, ...serverEnv, "--method", method, ...extra, "--", process.execPath, BIN, "mcp"];
  const { stdout, stderr } = await run(process.execPath, args, { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`inspector ${method} failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  });
  // The inspector's own schema check: warnings are fine (open values such as a tool's `data` accept anything), errors are not.
  const portability = /Schema portability: (\d+) errors?/.exec(stderr);
  if (portability) assert.equal(portability[1], "0", stderr);
  const other = stderr.split("\n").filter((line) => line.trim() && !line.startsWith("Schema portability:"));
  assert.deepEqual(other.filter((line) => /error|failed|not found/i.test(line)), [], `${method}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, any>;
}

test("the MCP Inspector CLI lists rye's tools with their metadata", async () => {
  const { tools } = await inspect("tools/list");
  assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), ["execute", "load", "search", "sign"]);
  for (const tool of tools) {
    assert.ok(tool.annotations?.title, tool.name);
    assert.equal(tool.outputSchema?.type, "object", tool.name);
  }
});

test("the MCP Inspector CLI lists prompts (directives) and resources without errors", async () => {
  const { prompts } = await inspect("prompts/list");
  assert.ok(Array.isArray(prompts));
  assert.ok(prompts.some((p: { name: string }) => p.name === "rye/core/create_knowledge"), "the system bundle's directives are prompts");
  const { resources } = await inspect("resources/list");
  assert.ok(Array.isArray(resources));
});

test("the MCP Inspector CLI calls a tool", async () => {
  const result = await inspect("tools/call", ["--tool-name", "execute", "--tool-arg", "item_type=tool", "item_id=demo/add", 'parameters={"a":2,"b":40}']);
  assert.equal(result.isError ?? false, false, JSON.stringify(result));
  assert.deepEqual(result.structuredContent.data, { sum: 42 });
});
