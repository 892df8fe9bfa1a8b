import assert from "node:assert/strict";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { expandEnvVars, expandPlaceholders, templateArgv } from "./templating.ts";

const isInputInvalid = (pattern: RegExp) => (err: unknown) => err instanceof RyeError && err.code === "INPUT_INVALID" && pattern.test(err.message);

test("expandEnvVars: ${VAR}, defaults, $$ and no nested or command evaluation", () => {
  const env = { HOME: "/home/a", EMPTY: "", NESTED: "${HOME}", CMD: "$(id)" };
  assert.equal(expandEnvVars("${HOME}/x", env), "/home/a/x");
  assert.equal(expandEnvVars("${MISSING}", env), "");
  assert.equal(expandEnvVars("${MISSING:-fallback}", env), "fallback");
  assert.equal(expandEnvVars("${EMPTY:-fallback}", env), "fallback");
  assert.equal(expandEnvVars("${HOME:-fallback}", env), "/home/a");
  assert.equal(expandEnvVars("${MISSING:-}", env), "");
  assert.equal(expandEnvVars("a$$b $${HOME}", env), "a$b ${HOME}");
  assert.equal(expandEnvVars("${NESTED}", env), "${HOME}", "a substituted value is never expanded again");
  assert.equal(expandEnvVars("${CMD} $(id) `id` $HOME", env), "$(id) $(id) `id` $HOME");
  assert.equal(expandEnvVars("${not-a-name} ${", env), "${not-a-name} ${");
  assert.equal(expandEnvVars("{HOME} stays", env), "{HOME} stays");
  assert.equal(expandEnvVars("${constructor}${__proto__}", {}), "", "only own variables");
});

test("expandPlaceholders: types kept for lone placeholders, JSON/String in text, unknown kept", () => {
  const vars = { n: 5, list: [1, "a"], obj: { a: { b: "deep" } }, s: "text", flag: false, nil: null };
  assert.deepEqual(
    expandPlaceholders({ a: "{n}", b: "{list}", c: "{obj}", d: ["{s}", "x{n}y"], e: 7, f: null }, vars),
    { a: 5, b: [1, "a"], c: { a: { b: "deep" } }, d: ["text", "x5y"], e: 7, f: null },
  );
  assert.equal(expandPlaceholders("{obj.a.b}!", vars), "deep!");
  assert.equal(expandPlaceholders("{list.1}", vars), "a");
  assert.equal(expandPlaceholders("L={list} O={obj} F={flag} N={nil}", vars), 'L=[1,"a"] O={"a":{"b":"deep"}} F=false N=null');
  assert.equal(expandPlaceholders("{unknown} {obj.zz} {s", vars), "{unknown} {obj.zz} {s");
  assert.equal(expandPlaceholders("{constructor} {s.length} {__proto__}", vars), "{constructor} {s.length} {__proto__}");
  assert.equal(expandPlaceholders('{"json": 1}', vars), '{"json": 1}');
  assert.equal(expandPlaceholders("${s}", vars), "${s}", "env syntax is left for expandEnvVars");
  // The executor's order (env first, then placeholders): `$${s}` is the escape for a literal `${s}`.
  assert.equal(expandPlaceholders(expandEnvVars("$${s}", {}), vars), "${s}");
});

test("expandPlaceholders: user parameters are never re-expanded", () => {
  const parameters = { query: "{tool_path}", env_ref: "${HOME}", nested: { p: "{secret}" } };
  const builtins = { tool_path: "/tools/t.py", secret: "s3cr3t" };
  const config = { via_config: "{query}", label: "run {query}" };
  const vars = { ...parameters, ...builtins };
  assert.equal(expandPlaceholders("{query}", vars), "{tool_path}");
  assert.equal(expandPlaceholders("q={query} e={env_ref}", vars), "q={tool_path} e=${HOME}");
  assert.deepEqual(expandPlaceholders("{nested}", vars), { p: "{secret}" });
  // Parameter text pulled in through a config template is still not expanded.
  assert.deepEqual(expandPlaceholders(["{via_config}", "{label}"], vars, { templateVars: config }), ["{tool_path}", "run {tool_path}"]);
});

test("expandPlaceholders: config templates resolve through each other, at most 3 levels deep", () => {
  const vars = { tool_path: "/t/tool.py", runners_dir: "/r" };
  const templateVars = {
    script: "{runners_dir}/run.mjs",
    command_line: "{script} {tool_path}",
    l1: "{l2}",
    l2: "{l3}",
    l3: "{l4}",
    l4: "{tool_path}",
    loop_a: "{loop_b}",
    loop_b: "{loop_a}",
    typed: "{count}",
    count: 3,
    tool_path: "config loses to vars",
  };
  const out = expandPlaceholders(["{command_line}", "{l1}", "{l2}", "{typed}", "{tool_path}"], vars, { templateVars }) as unknown[];
  assert.deepEqual(out.slice(0, 1), ["/r/run.mjs /t/tool.py"]);
  assert.equal(out[1], "{tool_path}", "l1→l2→l3→l4 needs a fourth round");
  assert.equal(out[2], "/t/tool.py");
  assert.equal(out[3], 3);
  assert.equal(out[4], "/t/tool.py");
  // Cycles stop after the round limit instead of looping.
  assert.match(String(expandPlaceholders("{loop_a}", {}, { templateVars })), /^\{loop_[ab]\}$/);
});

test("templateArgv: one element per argument, literal bytes, flags and NUL rejected", () => {
  const vars = { tool_path: "/t/tool.py", n: 3, ok: true, q: "$(rm -rf /)", obj: { a: 1 }, list: [1], dash: "-rf", nul: "a\0b", nil: null };
  assert.deepEqual(templateArgv(["{tool_path}", "--count={n}", "{n}", "{ok}", 4, "-v", "{q}", "--data={obj}", "{missing}"], vars), [
    "/t/tool.py",
    "--count=3",
    "3",
    "true",
    "4",
    "-v",
    "$(rm -rf /)",
    '--data={"a":1}',
    "{missing}",
  ]);
  assert.throws(() => templateArgv(["{dash}"], vars), isInputInvalid(/argv\[0\].*starting with "-"/));
  assert.throws(() => templateArgv(["x", "{n}{dash}"], { ...vars, n: "" }), isInputInvalid(/argv\[1\]/));
  assert.throws(() => templateArgv(["{obj}"], vars), isInputInvalid(/an object/));
  assert.throws(() => templateArgv(["{list}"], vars), isInputInvalid(/an array/));
  assert.throws(() => templateArgv(["{nil}"], vars), isInputInvalid(/null/));
  assert.throws(() => templateArgv([{ a: 1 }], vars), isInputInvalid(/arguments must be/));
  assert.throws(() => templateArgv(["{nul}"], vars), isInputInvalid(/NUL/));
  assert.throws(() => templateArgv(["a\0"], vars), isInputInvalid(/NUL/));
  // Explicit allow-list, "--name={value}" and the "--" end-of-options marker permit dash values.
  assert.deepEqual(templateArgv(["{dash}"], vars, { allowLeadingDash: ["{dash}"] }), ["-rf"]);
  assert.deepEqual(templateArgv(["--opt={dash}", "--", "{dash}"], vars), ["--opt=-rf", "--", "-rf"]);
  assert.deepEqual(templateArgv(["-{n}"], vars), ["-3"]);
});

test("options.env: env references and placeholders in one pass, neither value is rescanned", () => {
  const env = { HOME: "/home/a", TRICKY: "{tool_path}" };
  const vars = { tool_path: "/t/tool.py", p: "${HOME}" };
  assert.equal(expandPlaceholders("${HOME}/{p} ${TRICKY} $${HOME} ${NONE:-d}", vars, { env }), "/home/a/${HOME} {tool_path} ${HOME} d");
  assert.deepEqual(expandPlaceholders({ a: ["${HOME}", "{tool_path}"] }, vars, { env, templateVars: { c: "${TRICKY}" } }), { a: ["/home/a", "/t/tool.py"] });
  assert.equal(expandPlaceholders("{c}", vars, { env, templateVars: { c: "${TRICKY}|{p}" } }), "{tool_path}|${HOME}");
  assert.deepEqual(templateArgv(["${HOME}/{p}", "{p}"], vars, { env }), ["/home/a/${HOME}", "${HOME}"]);
});
