/** Templated argv reaches a real child process byte for byte, one element per argument; injections are refused. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { expandEnvVars, templateArgv } from "../templating.ts";
import { runSubprocess } from "./subprocess.ts";

const PRINT_ARGV = "process.stdout.write(JSON.stringify(process.argv.slice(1)))";

async function childArgv(args: string[]): Promise<unknown> {
  const result = await runSubprocess({ command: process.execPath, args });
  assert.equal(result.success, true, result.stderr);
  return result.data;
}

const HOSTILE_VALUES = [
  "$(rm -rf /)",
  "`rm -rf /`",
  "a; rm -rf /",
  "a | cat /etc/passwd",
  "a && b || c & d",
  "line1\nline2\r\n",
  "{tool_path}",
  "${HOME}",
  "$HOME",
  "a b  c",
  `'single' "double" \\back`,
  "*.txt ~ ?",
  "> /tmp/x < /etc/passwd",
  "",
  "ünï €",
];

test("hostile parameter values arrive as exactly one literal argument each", async () => {
  const parameters = Object.fromEntries(HOSTILE_VALUES.map((value, i) => [`p${i}`, value]));
  const vars = { ...parameters, tool_path: "/tools/t.mjs" };
  const templates = ["-e", PRINT_ARGV, ...HOSTILE_VALUES.map((_, i) => `{p${i}}`), "--value={p0}"];
  const argv = templateArgv(templates, vars);
  assert.deepEqual(await childArgv(argv), [...HOSTILE_VALUES, "--value=$(rm -rf /)"]);
});

test("the executor's order: env expansion on config only, then placeholders — parameters never see ${…}", async () => {
  const env = { HOME: "/home/rye", SECRET: "s3cr3t" };
  const configArgs = ["-e", PRINT_ARGV, "${HOME}/data", "{query}", "--", "{dash}"].map((a) => expandEnvVars(a, env));
  const argv = templateArgv(configArgs, { query: "${SECRET} {tool_path}", dash: "-rf", tool_path: "/t" });
  assert.deepEqual(await childArgv(argv), ["/home/rye/data", "${SECRET} {tool_path}", "--", "-rf"]);
});

test("option injection, NUL bytes and structured values are refused before anything runs", () => {
  const invalid = (err: unknown) => err instanceof RyeError && err.code === "INPUT_INVALID";
  for (const value of ["--exec=evil", "-rf", "-", "--"]) {
    assert.throws(() => templateArgv(["-e", PRINT_ARGV, "{v}"], { v: value }), invalid, value);
  }
  assert.throws(() => templateArgv(["{v}"], { v: "a\0b" }), invalid);
  assert.throws(() => templateArgv(["{v}"], { v: ["a", "b"] }), invalid, "an array never becomes several arguments");
  assert.throws(() => templateArgv(["{v}"], { v: { a: 1 } }), invalid);
});
