/** The executor chain end to end: real files, real signatures, real child processes. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createWorkspace, nodeTool, strangerKey, yamlRuntime } from "../../test/workspace.ts";
import { skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { rejects } from "../../test/rejects.ts";


test("a JavaScript tool runs through node runtime → subprocess, validated, and a lockfile is written", async () => {
  const ws = await createWorkspace();
  await ws.write(
    "tool",
    "demo/greet.mjs",
    nodeTool("demo", "export function main(p, ctx) { return { greeting: `hi ${p.name}`, project: ctx.projectPath, pid: process.pid }; }", `{ type: "object", properties: { name: { type: "string" } }, required: ["name"] }`),
  );
  const engine = await ws.engine();
  const result = (await engine.execute({ item_type: "tool", item_id: "demo/greet", parameters: { name: "Ada" } })) as any;
  assert.equal(result.status, "success");
  assert.equal(result.data.greeting, "hi Ada");
  assert.equal(result.data.project, ws.projectDir);
  assert.notEqual(result.data.pid, process.pid, "ran in a child process");
  assert.deepEqual(result.chain.map((c: any) => [c.item_id, c.space]), [["demo/greet", "project"], ["rye/core/runtimes/node", "system"], ["rye/core/primitives/subprocess", "system"]]);
  assert.equal(result.metadata.lockfile_created, true);
  const lock = JSON.parse(await readFile(join(ws.projectDir, ".ai/lockfiles/demo/greet@1.0.0.lock.json"), "utf8"));
  assert.equal(lock.lockfile_version, 1);
  assert.equal(lock.resolved_chain.length, 3);
  const again = (await engine.execute({ item_type: "tool", item_id: "demo/greet", parameters: { name: "Bo" } })) as any;
  assert.equal(again.metadata.lockfile_used, true);

  await rejects(engine.execute({ item_type: "tool", item_id: "demo/greet", parameters: {} }), "INPUT_INVALID", /name is required/);
  await rejects(engine.execute({ item_type: "tool", item_id: "demo/greet", parameters: { name: 5 } }), "INPUT_INVALID");
});

test("a TypeScript tool and a bash tool run in real child processes", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "demo/count.ts", nodeTool("demo", "export function main(p: { text: string }): { words: number } { return { words: p.text.split(/\\s+/).filter(Boolean).length }; }"));
  await ws.write(
    "tool",
    "demo/echo.sh",
    `#!/usr/bin/env bash\n# @version 1.0.0\n# @tool_type bash\n# @executor_id rye/core/runtimes/bash\n# @category demo\n# @description Echo parameters\nset -euo pipefail\nstdin=$(cat)\nprintf '{"arg": %s, "stdin": %s, "project": "%s"}' "$1" "$stdin" "$2"\n`,
  );
  const engine = await ws.engine();
  const ts = (await engine.execute({ item_type: "tool", item_id: "demo/count", parameters: { text: "one two  three" } })) as any;
  assert.deepEqual(ts.data, { words: 3 });
  const sh = (await engine.execute({ item_type: "tool", item_id: "demo/echo", parameters: { x: 1 } })) as any;
  assert.equal(sh.status, "success");
  assert.deepEqual(sh.data.arg, { x: 1 });
  assert.deepEqual(sh.data.stdin, { x: 1 });
  assert.equal(sh.data.project, ws.projectDir);
});

test("python_script and python_function runtimes", { skip: skipWithoutProgram("python3") }, async () => {
  const ws = await createWorkspace();
  await ws.write(
    "tool",
    "py/script.py",
    `import json, sys\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script"\n__category__ = "py"\n__tool_description__ = "script"\nparams = json.loads(sys.argv[sys.argv.index("--params") + 1])\nprint(json.dumps({"double": params["n"] * 2, "project": sys.argv[sys.argv.index("--project-path") + 1]}))\n`,
  );
  await ws.write(
    "tool",
    "py/func.py",
    `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_function"\n__category__ = "py"\n__tool_description__ = "function"\nasync def execute(params, project_path):\n    return {"sum": sum(params["values"])}\n`,
  );
  const engine = await ws.engine();
  const script = (await engine.execute({ item_type: "tool", item_id: "py/script", parameters: { n: 21 } })) as any;
  assert.deepEqual(script.data, { double: 42, project: ws.projectDir });
  const fn = (await engine.execute({ item_type: "tool", item_id: "py/func", parameters: { values: [1, 2, 3] } })) as any;
  assert.deepEqual(fn.data, { sum: 6 });
});

test("tool → runtime → runtime → primitive: a project runtime on top of the system node runtime", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "team/strict_node.yaml", yamlRuntime("team", "rye/core/runtimes/node", "config:\n  timeout: 5\n"));
  await ws.write("tool", "team/slow.mjs", nodeTool("team", "export async function main() { await new Promise((r) => setTimeout(r, 60000)); return {}; }").replace("rye/core/runtimes/node", "team/strict_node"));
  await ws.write("tool", "team/quick.mjs", nodeTool("team", "export function main() { return { ok: true }; }").replace("rye/core/runtimes/node", "team/strict_node"));
  const engine = await ws.engine();
  const quick = (await engine.execute({ item_type: "tool", item_id: "team/quick", parameters: {} })) as any;
  assert.deepEqual(quick.chain.map((c: any) => c.item_id), ["team/quick", "team/strict_node", "rye/core/runtimes/node", "rye/core/primitives/subprocess"]);
  assert.deepEqual(quick.data, { ok: true });
  const started = Date.now();
  await rejects(engine.execute({ item_type: "tool", item_id: "team/slow", parameters: {} }), "TIMEOUT");
  assert.ok(Date.now() - started < 20_000, "the runtime's 5 s timeout applied");
});

test("cycles, chains deeper than 10, missing executors and non-primitive ends are refused before anything runs", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "loop/a.yaml", yamlRuntime("loop", "loop/b"));
  await ws.write("tool", "loop/b.yaml", yamlRuntime("loop", "loop/a"));
  // r0 … r8 then the subprocess primitive: exactly 10 elements. r_extra in front makes 11.
  for (let i = 0; i < 9; i++) await ws.write("tool", `deep/r${i}.yaml`, yamlRuntime("deep", i === 8 ? "rye/core/primitives/subprocess" : `deep/r${i + 1}`));
  await ws.write("tool", "deep/r_extra.yaml", yamlRuntime("deep", "deep/r0"));
  await ws.write("tool", "gone/t.yaml", yamlRuntime("gone", "gone/missing"));
  await ws.write("tool", "fake/end.yaml", yamlRuntime("fake", "null"));
  await ws.write("tool", "fake/t.yaml", yamlRuntime("fake", "fake/end"));
  const engine = await ws.engine();
  await rejects(engine.execute({ item_type: "tool", item_id: "loop/a", parameters: {} }), "CHAIN_CYCLE", /loop\/a → loop\/b → loop\/a/);
  const ten = (await engine.execute({ item_type: "tool", item_id: "deep/r0", parameters: {}, dry_run: true })) as any;
  assert.equal(ten.status, "validation_passed");
  assert.equal(ten.chain.length, 10);
  await rejects(engine.execute({ item_type: "tool", item_id: "deep/r_extra", parameters: {}, dry_run: true }), "CHAIN_TOO_DEEP");
  await rejects(engine.execute({ item_type: "tool", item_id: "gone/t", parameters: {} }), "EXECUTOR_NOT_FOUND", /gone\/missing/);
  await rejects(engine.execute({ item_type: "tool", item_id: "fake/t", parameters: {} }), "UNKNOWN_PRIMITIVE");
  await rejects(engine.execute({ item_type: "tool", item_id: "no/such", parameters: {} }), "ITEM_NOT_FOUND");
});

test("a user-space tool cannot use a project-space runtime (space precedence)", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "team/rt.yaml", yamlRuntime("team", "rye/core/runtimes/node"));
  await ws.write("tool", "mine/t.mjs", nodeTool("mine", "export function main() { return {}; }").replace("rye/core/runtimes/node", "team/rt"), { space: "user" });
  const engine = await ws.engine();
  await rejects(engine.execute({ item_type: "tool", item_id: "mine/t", parameters: {} }), "EXECUTOR_NOT_FOUND", /searched user, system/);
});

test("tampered chain elements, foreign keys and copies of system items are refused; nothing runs", async () => {
  const ws = await createWorkspace();
  const marker = join(ws.root, "ran");
  const body = `import { writeFileSync } from "node:fs"; export function main() { writeFileSync(${JSON.stringify(marker)}, "x"); return {}; }`;
  const rt = await ws.write("tool", "team/rt.yaml", yamlRuntime("team", "rye/core/runtimes/node"));
  await ws.write("tool", "team/t.mjs", nodeTool("team", body).replace("rye/core/runtimes/node", "team/rt"));
  const engine = await ws.engine();
  await writeFile(rt, (await readFile(rt, "utf8")).replace("test runtime", "evil runtime"));
  await rejects(engine.execute({ item_type: "tool", item_id: "team/t", parameters: {} }), "INTEGRITY_MISMATCH", /team\/rt/);
  await rejects(engine.execute({ item_type: "tool", item_id: "team/t", parameters: {}, dry_run: true }), "INTEGRITY_MISMATCH");

  await ws.write("tool", "team/foreign.mjs", nodeTool("team", body), { signer: await strangerKey() });
  await rejects(engine.execute({ item_type: "tool", item_id: "team/foreign", parameters: {} }), "UNTRUSTED_KEY");
  await ws.write("tool", "team/unsigned.mjs", nodeTool("team", body), { signer: null });
  await rejects(engine.execute({ item_type: "tool", item_id: "team/unsigned", parameters: {} }), "UNSIGNED");

  // The release key is trusted for the system space only: a copy in the project does not run until re-signed.
  await engine.load({ item_type: "tool", item_id: "rye/file-system/fs_list", destination: "project" });
  await rejects(engine.execute({ item_type: "tool", item_id: "rye/file-system/fs_list", parameters: {} }), "UNTRUSTED_KEY");
  assert.equal(existsSync(marker), false, "no tool ran");
});

test("a stale lockfile stops execution and names the changed element", async () => {
  const ws = await createWorkspace();
  await ws.write("tool", "demo/v.mjs", nodeTool("demo", "export function main() { return { v: 1 }; }"));
  const engine = await ws.engine();
  assert.equal(((await engine.execute({ item_type: "tool", item_id: "demo/v", parameters: {} })) as any).metadata.lockfile_created, true);
  await ws.write("tool", "demo/v.mjs", nodeTool("demo", "export function main() { return { v: 2 }; }"));
  const err = await rejects(engine.execute({ item_type: "tool", item_id: "demo/v", parameters: {} }), "LOCKFILE_MISMATCH", /tool itself changed/);
  assert.match(err.hint, /delete .*demo\/v@1\.0\.0\.lock\.json/);
  await writeFile(join(ws.projectDir, ".ai/lockfiles/demo/v@1.0.0.lock.json"), "{ not json");
  await rejects(engine.execute({ item_type: "tool", item_id: "demo/v", parameters: {} }), "LOCKFILE_MISMATCH", /not valid JSON/);
});

test("parameters can never inject shell syntax, extra arguments or flags", async () => {
  const ws = await createWorkspace();
  // A runtime that hands one parameter to a program as its own argv element.
  await ws.write(
    "tool",
    "probe/argv_rt.yaml",
    yamlRuntime("probe", "rye/core/primitives/subprocess", `config:
  command: "\${RYE_NODE:-node}"
  args: ["-e", "process.stdout.write(JSON.stringify({argv: process.argv.slice(1)}))", "{value}", "{tool_path}"]
`),
  );
  await ws.write("tool", "probe/argv.mjs", nodeTool("probe", "").replace("rye/core/runtimes/node", "probe/argv_rt"));
  const engine = await ws.engine();
  const pwned = join(ws.root, "pwned");
  for (const value of [`$(touch ${pwned})`, `\`touch ${pwned}\``, `x; touch ${pwned}`, `a | b && c`, "line1\nline2", "${HOME}", "{tool_path}", "two words", "' \" \\"]) {
    const result = (await engine.execute({ item_type: "tool", item_id: "probe/argv", parameters: { value } })) as any;
    assert.equal(result.status, "success", value);
    assert.deepEqual(result.data.argv[0], value, `${JSON.stringify(value)} arrives literally as one argument`);
    assert.equal(result.data.argv.length, 2);
    assert.match(result.data.argv[1], /probe\/argv\.mjs$/);
  }
  for (const value of ["--eval=evil", "-rf", "--"]) {
    await rejects(engine.execute({ item_type: "tool", item_id: "probe/argv", parameters: { value } }), "INPUT_INVALID", /option/);
  }
  // A parameter named like a built-in cannot redirect what runs.
  const redirected = (await engine.execute({ item_type: "tool", item_id: "probe/argv", parameters: { value: "ok", tool_path: "/etc/passwd" } })) as any;
  assert.match(redirected.data.argv[1], /probe\/argv\.mjs$/);
  assert.equal(existsSync(pwned), false);
});

test("dry_run resolves and verifies the chain without running anything", async () => {
  const ws = await createWorkspace();
  const marker = join(ws.root, "ran");
  await ws.write("tool", "demo/side.mjs", nodeTool("demo", `import { writeFileSync } from "node:fs"; export function main() { writeFileSync(${JSON.stringify(marker)}, "x"); return {}; }`));
  const engine = await ws.engine();
  const result = (await engine.execute({ item_type: "tool", item_id: "demo/side", parameters: {}, dry_run: true })) as any;
  assert.equal(result.status, "validation_passed");
  assert.equal(result.chain.length, 3);
  assert.equal(existsSync(marker), false);
  assert.equal(existsSync(join(ws.projectDir, ".ai/lockfiles/demo/side@1.0.0.lock.json")), false);
});

test("the system web fetch tool runs the http_client chain against a local server", async () => {
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ path: req.url, agent: req.headers["x-test"] ?? null }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  try {
    const ws = await createWorkspace();
    const engine = await ws.engine();
    const result = (await engine.execute({ item_type: "tool", item_id: "rye/web/fetch", parameters: { url: `http://127.0.0.1:${port}/hello?x=1`, headers: { "x-test": "yes" } } })) as any;
    assert.equal(result.status, "success");
    assert.equal(result.data.status_code, 200);
    assert.deepEqual(result.data.body, { path: "/hello?x=1", agent: "yes" });
    await rejects(engine.execute({ item_type: "tool", item_id: "rye/web/fetch", parameters: { url: "file:///etc/passwd" } }), "INPUT_INVALID");
  } finally {
    server.close();
  }
});

test("directives come back with inputs validated and interpolated; knowledge with its body", async () => {
  const ws = await createWorkspace();
  await ws.write(
    "directive",
    "demo/greet.md",
    `# Greet\n\n\`\`\`xml\n<directive name="greet" version="1.0.0">\n  <metadata>\n    <description>Greet</description>\n    <category>demo</category>\n    <author>me</author>\n  </metadata>\n  <inputs>\n    <input name="name" type="string" required="true">who</input>\n    <input name="times" type="integer" default="2">how often</input>\n  </inputs>\n  <process>\n    <step name="s">Say hi to {input:name} {input:times} times{input:suffix?}. Mood {input:mood:happy}.</step>\n    <execute item_type="tool" item_id="demo/{input:name}" />\n  </process>\n</directive>\n\`\`\`\n`,
  );
  await ws.write("knowledge", "demo/facts.md", "---\nid: facts\ntitle: Facts\nversion: 1.0.0\nentry_type: reference\ncategory: demo\n---\n\nThe sky is blue.\n");
  const engine = await ws.engine();
  const directive = (await engine.execute({ item_type: "directive", item_id: "demo/greet", parameters: { name: "Ada" } })) as any;
  assert.equal(directive.status, "success");
  assert.match(directive.data.content, /Say hi to Ada 2 times\. Mood happy\./);
  assert.equal(directive.data.actions[0].attrs.item_id, "demo/Ada");
  assert.deepEqual(directive.inputs, { name: "Ada", times: 2 });
  assert.match(directive.instructions, /Execute the directive/);
  await rejects(engine.execute({ item_type: "directive", item_id: "demo/greet", parameters: {} }), "MISSING_INPUTS", /name/);
  await rejects(engine.execute({ item_type: "directive", item_id: "demo/greet", parameters: { inputs: { name: "A", times: "x" } } }), "INPUT_INVALID", /times/);
  const knowledge = (await engine.execute({ item_type: "knowledge", item_id: "demo/facts" })) as any;
  assert.equal(knowledge.data.body, "The sky is blue.");
  assert.equal(knowledge.data.title, "Facts");
});

test("the mcp_stdio runtime calls a tool on an external MCP server", async () => {
  const ws = await createWorkspace();
  const server = new URL("../../runners/test/fixtures/mcp-stdio-server.mjs", import.meta.url).pathname;
  await ws.write(
    "tool",
    "ext/echo.yaml",
    `version: "1.0.0"\ntool_type: mcp\nexecutor_id: rye/core/runtimes/mcp_stdio\ncategory: ext\ndescription: "Echo through an MCP server"\nconfig_schema:\n  type: object\n  properties:\n    text:\n      type: string\n  required: [text]\nconfig:\n  server:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(server)}]\n  tool_name: echo\n`,
  );
  const engine = await ws.engine();
  const result = (await engine.execute({ item_type: "tool", item_id: "ext/echo", parameters: { text: "hello \"mcp\"" } })) as any;
  assert.equal(result.status, "success", JSON.stringify(result.data));
  assert.deepEqual(result.data.structuredContent, { echoed: 'hello "mcp"' });
  assert.deepEqual(result.chain.map((c: any) => c.item_id), ["ext/echo", "rye/core/runtimes/mcp_stdio", "rye/core/primitives/subprocess"]);
});

test("load copies between spaces keeping the folder path, and never overwrites silently", async () => {
  const ws = await createWorkspace();
  await ws.write("knowledge", "team/notes/facts.md", "---\nid: facts\ntitle: Facts\nversion: 1.0.0\nentry_type: reference\ncategory: team/notes\n---\n\nBody.\n", { space: "user" });
  const engine = await ws.engine();
  const copied = await engine.load({ item_type: "knowledge", item_id: "team/notes/facts", destination: "project" });
  assert.equal(copied.source, "user");
  assert.equal(copied.destination_path, join(ws.projectDir, ".ai/knowledge/team/notes/facts.md"));
  // The project copy now shadows the user item, and still verifies (same signer).
  assert.equal((await engine.load({ item_type: "knowledge", item_id: "team/notes/facts" })).source, "project");
  await rejects(engine.load({ item_type: "knowledge", item_id: "team/notes/facts", source: "user", destination: "project" }), "ITEM_EXISTS");
  const forced = await engine.load({ item_type: "knowledge", item_id: "team/notes/facts", source: "user", destination: "project", overwrite: true });
  assert.equal(forced.copied_to, "project");
  for (const bad of ["../x", "/etc/passwd", "a/../../b", "a\u0000b", ".hidden/x"]) {
    await rejects(engine.load({ item_type: "knowledge", item_id: bad }), "INVALID_ITEM_ID");
  }
});
