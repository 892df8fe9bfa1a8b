#!/usr/bin/env node
// Calls one tool on an MCP server. Reads from stdin:
//   { "server": { "command", "args"?, "env"?, "cwd"? } | { "url", "headers"? },
//     "tool": "name", "arguments": {…}, "timeout_ms"?, "expect"?: { "schema_sha256" } }
// With `expect`, the tool's current input schema must have that digest (SHA-256 of its canonical JSON: keys sorted,
// no whitespace), or the call is refused with error type SchemaChanged before it is made.
// and prints { "success": !isError, "content", "structuredContent" } on stdout (exit 1 when the tool reports isError).
// Connection, protocol and input errors print { "success": false, "error": { "message", "type" } } and exit 1.
// A stdio server gets the SDK's safe default environment (PATH, HOME, …) plus `server.env`, not all of ours.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHash } from "node:crypto";

/** Canonical JSON (keys sorted by UTF-16 code units, no whitespace): the bytes rye's stubs pin. */
function canonicalJson(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
const schemaDigest = (schema) => createHash("sha256").update(canonicalJson(schema ?? {})).digest("hex");

class SchemaChanged extends Error {
  name = "SchemaChanged";
}

const resultOut = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);

function finish(value, exitCode) {
  resultOut(`${JSON.stringify(value)}\n`, () => process.exit(exitCode));
}

class InputError extends Error {
  name = "InputError";
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isStringRecord = (value) => isObject(value) && Object.values(value).every((v) => typeof v === "string");

async function readRequest() {
  let text = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin) text += chunk;
  let request;
  try {
    request = JSON.parse(text);
  } catch {
    throw new InputError("The request on stdin is not valid JSON");
  }
  if (!isObject(request)) throw new InputError("The request must be a JSON object");
  if (typeof request.tool !== "string" || !request.tool) throw new InputError("'tool' must be a non-empty string");
  if (request.arguments !== undefined && !isObject(request.arguments)) throw new InputError("'arguments' must be an object");
  if (request.timeout_ms !== undefined && !(Number.isFinite(request.timeout_ms) && request.timeout_ms > 0)) {
    throw new InputError("'timeout_ms' must be a positive number");
  }
  validateServer(request.server);
  return request;
}

function validateServer(server) {
  if (!isObject(server)) throw new InputError("'server' must be an object with either 'command' or 'url'");
  if (typeof server.command === "string" && server.command) {
    if (server.args !== undefined && !(Array.isArray(server.args) && server.args.every((a) => typeof a === "string"))) {
      throw new InputError("'server.args' must be an array of strings");
    }
    if (server.env !== undefined && !isStringRecord(server.env)) throw new InputError("'server.env' must map names to strings");
    if (server.cwd !== undefined && typeof server.cwd !== "string") throw new InputError("'server.cwd' must be a string");
    return;
  }
  if (typeof server.url === "string") {
    let url;
    try {
      url = new URL(server.url);
    } catch {
      throw new InputError("'server.url' is not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new InputError("'server.url' must use http: or https:");
    if (server.headers !== undefined && !isStringRecord(server.headers)) throw new InputError("'server.headers' must map names to strings");
    return;
  }
  throw new InputError("'server' needs a 'command' (stdio) or a 'url' (Streamable HTTP)");
}

function createTransport(server) {
  if (server.command) {
    return new StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      ...(server.env ? { env: server.env } : {}),
      ...(server.cwd ? { cwd: server.cwd } : {}),
      stderr: "inherit",
    });
  }
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } });
}

async function main() {
  const request = await readRequest();
  const requestOptions = request.timeout_ms ? { timeout: request.timeout_ms } : undefined;
  const client = new Client({ name: "rye-mcp-call", version: "0.1.0" });
  await client.connect(createTransport(request.server), requestOptions);
  try {
    const expected = isObject(request.expect) ? request.expect.schema_sha256 : undefined;
    if (typeof expected === "string") {
      const { tools } = await client.listTools(undefined, requestOptions);
      const tool = tools.find((t) => t.name === request.tool);
      if (!tool) throw new SchemaChanged(`The server no longer offers the tool ${JSON.stringify(request.tool)}: review it with rye mcp refresh <server>`);
      const actual = schemaDigest(tool.inputSchema);
      if (actual !== expected) throw new SchemaChanged(`The server changed the input schema of ${JSON.stringify(request.tool)} since its stub was signed (sha256 ${expected.slice(0, 12)}… → ${actual.slice(0, 12)}…): nothing was called; review the change with rye mcp refresh <server>`);
    }
    const result = await client.callTool({ name: request.tool, arguments: request.arguments ?? {} }, undefined, requestOptions);
    return { success: !result.isError, content: result.content ?? [], structuredContent: result.structuredContent ?? null };
  } finally {
    await client.close().catch(() => {});
  }
}

main().then(
  (output) => finish(output, output.success ? 0 : 1),
  (error) => {
    // Never print the request: server.env and server.headers may hold credentials.
    const message = error instanceof Error ? error.message : String(error);
    const type = error instanceof Error ? error.name : typeof error;
    finish({ success: false, error: { message, type } }, 1);
  },
);
