/** The command table of main.ts: a run naming a command builds only its module, and the table matches what each module defines. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildProgram, COMMAND_MODULES, runCli } from "./main.ts";
import { CliContext } from "./context.ts";

const quietContext = () => {
  const out: string[] = [];
  return { ctx: new CliContext({ stdout: (s) => void out.push(s), stderr: (s) => void out.push(s) }, {}, process.cwd()), out };
};
const topLevel = async (argv?: string[]) => (await buildProgram(quietContext().ctx, argv)).commands.map((c) => c.name()).sort();

test("every module registers exactly the commands the table names, and the whole program is their union", async () => {
  for (const module of COMMAND_MODULES) assert.deepEqual(await topLevel([module.names[0]!]), [...module.names].sort(), module.names.join(", "));
  assert.deepEqual(await topLevel(), COMMAND_MODULES.flatMap((m) => m.names).sort());
  assert.deepEqual(await topLevel(["--help"]), await topLevel(), "help lists every command");
  assert.deepEqual(await topLevel(["serach"]), await topLevel(), "an unknown command gets the whole program (and its suggestions)");
});

test("an unknown command still gets the suggestion of the whole program", async () => {
  const { ctx, out } = quietContext();
  const code = await runCli(["serach", "x"], { io: ctx.io, env: {}, cwd: process.cwd() });
  assert.notEqual(code, 0);
  assert.match(out.join("\n"), /Did you mean search\?/);
});
