/** The runners as the runtimes start them: real child processes through the subprocess primitive. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, realpath } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { runSubprocess, type SubprocessResult } from "../../src/execute/primitives/subprocess.ts";
import { registerTestTools } from "./fixtures/mcp-test-tools.mjs";

const RUNNERS = fileURLToPath(new URL("..", import.meta.url));
const FIXTURES = fileURLToPath(new URL("fixtures/", import.meta.url));
const NODE_RUNNER = join(RUNNERS, "node-runner.mjs");
const PYTHON_RUNNER = join(RUNNERS, "python_function.py");
const MCP_CALL = join(RUNNERS, "mcp-call.mjs");
const MCP_STDIO_SERVER = join(FIXTURES, "mcp-stdio-server.mjs");

function run(command: string, args: string[], input: unknown, env: Record<string, string> = {}): Promise<SubprocessResult> {
  return runSubprocess({ command, args, input_data: typeof input === "string" ? input : JSON.stringify(input), env, timeout: 60 });
}

const runNodeTool = (tool: string, params: unknown, env?: Record<string, string>) => run(process.execPath, [NODE_RUNNER, join(FIXTURES, "tools", tool)], params, env);

function errorOf(result: SubprocessResult): { message: string; type: string } {
  assert.equal(result.exitCode, 1, result.stderr);
  assert.equal(result.success, false);
  return (result.data as { error: { message: string; type: string } }).error;
}

describe("node-runner", () => {
  test("calls main(params, context) and prints only the JSON result on stdout", async () => {
    const result = await runNodeTool("echo.mjs", { q: "ü", n: [1] }, { RYE_PROJECT_PATH: "/projects/demo" });
    assert.equal(result.success, true, result.stderr);
    assert.deepEqual(result.data, { params: { q: "ü", n: [1] }, context: { projectPath: "/projects/demo", toolPath: join(FIXTURES, "tools/echo.mjs") } });
    assert.match(result.stderr, /noise from the tool/);
  });

  test("default export, TypeScript via tsx, and undefined results", async () => {
    assert.deepEqual((await runNodeTool("default-export.mjs", { a: 2, b: 3 })).data, { sum: 5 });
    const typed = await runNodeTool("typed.ts", { n: 21 });
    assert.deepEqual(typed.data, { doubled: 42, file: "typed.ts" }, typed.stderr);
    const started = Date.now();
    const leftTimer = await runNodeTool("leaves-timer.mjs", "");
    assert.deepEqual([leftTimer.success, leftTimer.data], [true, {}]);
    assert.ok(Date.now() - started < 10_000, "an open timer does not keep the runner alive");
  });

  test("errors: thrown, no entry point, bad stdin, missing file, no argument", async () => {
    assert.deepEqual(errorOf(await runNodeTool("throws.mjs", {})), { message: "kaput", type: "TypeError" });
    assert.match(errorOf(await runNodeTool("no-entry.mjs", {})).message, /exports neither a main function nor a default function/);
    assert.match(errorOf(await runNodeTool("echo.mjs", "{not json")).message, /not valid JSON/);
    assert.match(errorOf(await runNodeTool("missing.mjs", {})).message, /Cannot find module|ERR_MODULE_NOT_FOUND/);
    assert.match(errorOf(await run(process.execPath, [NODE_RUNNER], {})).message, /Usage/);
  });
});

describe("zod without its JIT in rye's short-lived processes", () => {
  test("node-runner turns zod's code generation off before the tool (or the SDK) loads zod", async () => {
    const result = await runNodeTool("zod-config.mjs", {});
    assert.equal(result.success, true, result.stderr);
    assert.deepEqual(result.data, { jitless: true, generated: 0 });
  });

  test("zod adopts the configuration set before it loads; a choice made before is kept", async () => {
    const helper = JSON.stringify(pathToFileURL(join(RUNNERS, "zod-jitless.mjs")).href);
    const zod = JSON.stringify(import.meta.resolve("zod"));
    const probe = (before: string) =>
      execFileSync(process.execPath, ["--input-type=module", "-e", `${before}; (await import(${helper})).preferJitlessZod(); const { z } = await import(${zod}); process.stdout.write(JSON.stringify(z.config().jitless ?? null))`], { encoding: "utf8" });
    assert.equal(probe(""), "true");
    assert.equal(probe("globalThis.__zod_globalConfig = { jitless: false }"), "false");
  });
});

describe("python_function runner", { skip: skipWithoutProgram("python3") }, () => {
  const runPythonTool = (tool: string, params: unknown) => run("python3", [PYTHON_RUNNER, join(FIXTURES, "python", tool), "/projects/demo"], params);

  test("calls execute(params, project_path); the tool's directory is importable; prints go to stderr", async () => {
    const result = await runPythonTool("tool.py", { word: "hey" });
    assert.equal(result.success, true, result.stderr);
    assert.deepEqual(result.data, { echo: "HEY!", project_path: "/projects/demo" });
    assert.match(result.stderr, /noise from the tool/);
  });

  test("coroutines are awaited; None gives {}", async () => {
    assert.deepEqual((await runPythonTool("async_tool.py", { n: 41 })).data, [42]);
    assert.deepEqual((await runPythonTool("returns_none.py", "")).data, {});
  });

  test("exceptions, sys.exit and a missing execute give JSON errors with exit code 1", async () => {
    assert.deepEqual(errorOf(await runPythonTool("raises.py", {})), { message: "'missing-thing'", type: "KeyError" });
    assert.deepEqual(errorOf(await runPythonTool("exits.py", {})), { message: "The tool called sys.exit(3)", type: "SystemExit" });
    assert.match(errorOf(await runPythonTool("no_execute.py", {})).message, /has no execute/);
    assert.match(errorOf(await runPythonTool("tool.py", "[broken")).message, /not valid JSON/);
  });
});

interface McpOutput {
  success: boolean;
  content?: Array<{ type: string; text: string }>;
  structuredContent?: unknown;
  error?: { message: string; type: string };
}

const callMcp = async (request: unknown) => {
  const result = await run(process.execPath, [MCP_CALL], request);
  return { result, output: result.data as McpOutput };
};

describe("mcp-call over stdio", () => {
  const server = { command: process.execPath, args: [MCP_STDIO_SERVER] };

  test("calls a tool and prints content and structuredContent", async () => {
    const { result, output } = await callMcp({ server, tool: "echo", arguments: { text: "hello" }, timeout_ms: 20_000 });
    assert.equal(result.exitCode, 0, result.stderr);
    assert.deepEqual(output, { success: true, content: [{ type: "text", text: "hello" }], structuredContent: { echoed: "hello" } });
  });

  test("server env and cwd are passed to the server", async () => {
    const cwd = await realpath(await mkdtemp(join(tmpdir(), "rye-mcp-")));
    const { output } = await callMcp({ server: { ...server, env: { MCP_TEST_VALUE: "from-config" }, cwd }, tool: "environment" });
    assert.deepEqual(JSON.parse(output.content?.[0]?.text ?? "null"), { value: "from-config", cwd });
  });

  test("tool errors, unknown tools, bad requests and unstartable servers exit 1", async () => {
    const failed = await callMcp({ server, tool: "fail" });
    assert.equal(failed.result.exitCode, 1);
    assert.deepEqual(failed.output, { success: false, content: [{ type: "text", text: "it failed" }], structuredContent: null });

    const unknown = await callMcp({ server, tool: "no-such-tool" });
    assert.deepEqual([unknown.result.exitCode, unknown.output.success], [1, false]);

    const badArgs = await callMcp({ server, tool: "echo", arguments: { text: 5 } });
    assert.deepEqual([badArgs.result.exitCode, badArgs.output.success], [1, false]);

    for (const request of [{ tool: "echo" }, { server: {}, tool: "echo" }, { server, tool: "" }, { server: { url: "file:///x" }, tool: "echo" }]) {
      const { result, output } = await callMcp(request);
      assert.equal(result.exitCode, 1, JSON.stringify(request));
      assert.equal(output.error?.type, "InputError", JSON.stringify(request));
    }

    const unstartable = await callMcp({ server: { command: "definitely-not-an-mcp-server", env: { SECRET: "do-not-print" } }, tool: "echo" });
    assert.equal(unstartable.result.exitCode, 1);
    assert.match(unstartable.output.error?.message ?? "", /ENOENT/);
    assert.ok(!unstartable.result.stdout.includes("do-not-print"));
  });
});

describe("mcp-call over Streamable HTTP", () => {
  let httpServer: Server;
  let url: string;

  before(async () => {
    httpServer = createServer(async (req, res) => {
      // Stateless mode: a fresh server and transport per request.
      const mcp = new McpServer({ name: "rye-test-http", version: "1.0.0" });
      registerTestTools(mcp);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  });

  after(() => {
    httpServer.closeAllConnections();
    httpServer.close();
  });

  test("calls a tool with the configured headers", async () => {
    const echo = await callMcp({ server: { url }, tool: "echo", arguments: { text: "over http" } });
    assert.equal(echo.result.exitCode, 0, echo.result.stderr);
    assert.deepEqual(echo.output, { success: true, content: [{ type: "text", text: "over http" }], structuredContent: { echoed: "over http" } });

    const header = await callMcp({ server: { url, headers: { "X-Test-Token": "t-123" } }, tool: "request-header" });
    assert.equal(header.output.content?.[0]?.text, "t-123");
  });

  test("an unreachable server exits 1 with a JSON error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { result, output } = await callMcp({ server: { url: `http://127.0.0.1:${port}/mcp` }, tool: "echo", arguments: { text: "x" } });
    assert.deepEqual([result.exitCode, output.success, typeof output.error?.message], [1, false, "string"]);
  });
});
