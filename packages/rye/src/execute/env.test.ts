import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { findOnPath, mergeChainEnv, parseDotEnv, resolveChainEnv, resolveEnvConfig } from "./env.ts";

async function executable(path: string): Promise<string> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, "#!/bin/sh\nexit 0\n");
  await chmod(path, 0o755);
  return path;
}

const tempDir = () => mkdtemp(join(tmpdir(), "rye-env-"));

test("parseDotEnv: comments, export, quotes, escapes, no interpolation", () => {
  const text = [
    "# comment",
    "",
    "PLAIN=value  # trailing comment",
    "export EXPORTED=yes",
    "SINGLE='its $(id) ${HOME}'",
    'DOUBLE="line1\\nline2 \\"q\\" #not-comment"',
    "HASH=a#b",
    "EMPTY=",
    "SPACED = padded ",
    "CMD=$(rm -rf /) `id` ${HOME}",
  ].join("\n");
  assert.deepEqual(parseDotEnv(text), {
    PLAIN: "value",
    EXPORTED: "yes",
    SINGLE: "its $(id) ${HOME}",
    DOUBLE: 'line1\nline2 "q" #not-comment',
    HASH: "a#b",
    EMPTY: "",
    SPACED: "padded",
    CMD: "$(rm -rf /) `id` ${HOME}",
  });
  for (const bad of ["NO_EQUALS", "1BAD=x", 'OPEN="never closed', "X='a' junk"]) {
    assert.throws(
      () => parseDotEnv(`OK=1\n${bad}`),
      (err: unknown) => err instanceof RyeError && err.code === "INPUT_INVALID" && err.message.startsWith(".env line 2") && !err.message.includes(bad),
    );
  }
});

test("resolveEnvConfig: .env under the base env, ordered ${VAR:-default} entries, only defined vars returned", async () => {
  const project = await tempDir();
  await writeFile(join(project, ".env"), "FROM_DOTENV=dot\nSHADOWED=dot\nexport API_TOKEN=\"t0k\"\n");
  const env = await resolveEnvConfig(
    {
      env: {
        A: "${FROM_DOTENV}-${SHADOWED}",
        B: "${A}/${MISSING:-fallback}/${EMPTY:-e}",
        C: "${B}!",
        LITERAL: "$${A} $(id)",
        NUM: 1,
      },
    },
    { baseEnv: { SHADOWED: "base", EMPTY: "", HOME: "/h", UNSET: undefined }, projectPath: project },
  );
  assert.deepEqual(env, {
    FROM_DOTENV: "dot",
    API_TOKEN: "t0k",
    A: "dot-base",
    B: "dot-base/fallback/e",
    C: "dot-base/fallback/e!",
    LITERAL: "${A} $(id)",
    NUM: "1",
  });
  assert.deepEqual(await resolveEnvConfig(undefined, { baseEnv: {}, projectPath: join(project, "no-such-dir") }), {});
});

test("resolveEnvConfig: interpreters are found without subprocesses, else the fallback", async () => {
  const project = await tempDir();
  const toolDir = join(project, ".ai/tools/demo");
  await mkdir(toolDir, { recursive: true });
  const binDir = join(project, "bin-on-path");
  const tool = await executable(join(binDir, "mytool"));
  await writeFile(join(project, "not-exec"), "x");
  const baseEnv = { PATH: ["relative-dir", "/nonexistent", binDir].join(":") };

  const sys = await resolveEnvConfig({ interpreter: { type: "system_binary", binary: "mytool", var: "TOOL", fallback: "x" } }, { baseEnv });
  assert.deepEqual(sys, { TOOL: tool });
  assert.equal(await findOnPath("not-exec", project), undefined, "non-executable files are skipped");
  assert.equal(await findOnPath("mytool", "bin-on-path"), undefined, "relative PATH entries are ignored");

  const missing = await resolveEnvConfig({ interpreter: { type: "system_binary", binary: "nope-rye-xyz", var: "TOOL", fallback: "nope" } }, { baseEnv });
  assert.deepEqual(missing, { TOOL: "nope" });
  await assert.rejects(
    resolveEnvConfig({ interpreter: { type: "system_binary", binary: "nope-rye-xyz", var: "TOOL" } }, { baseEnv }),
    (err: unknown) => err instanceof RyeError && err.code === "UNAVAILABLE",
  );

  const venvConfig = {
    interpreter: { type: "venv_python", var: "RYE_PYTHON", fallback: "python3" },
    env: { PROJECT_VENV_PYTHON: "${RYE_PYTHON}" },
  };
  assert.deepEqual(await resolveEnvConfig(venvConfig, { baseEnv, projectPath: project }), { RYE_PYTHON: "python3", PROJECT_VENV_PYTHON: "python3" });
  const python3 = await executable(join(project, ".venv/bin/python3"));
  assert.equal((await resolveEnvConfig(venvConfig, { baseEnv, projectPath: project })).RYE_PYTHON, python3);
  const python = await executable(join(project, ".venv/bin/python"));
  assert.equal((await resolveEnvConfig(venvConfig, { baseEnv, projectPath: project })).RYE_PYTHON, python, "bin/python before bin/python3");
  const custom = await executable(join(project, "envs/py/bin/python"));
  const customConfig = { interpreter: { type: "venv_python", venv_path: "envs/py", var: "PY" } };
  assert.equal((await resolveEnvConfig(customConfig, { baseEnv, projectPath: project })).PY, custom);

  const nodeConfig = { interpreter: { type: "node_modules", binary: "tsx", var: "RYE_NODE", fallback: "node" } };
  assert.deepEqual(await resolveEnvConfig(nodeConfig, { baseEnv, projectPath: project, toolDir }), { RYE_NODE: "node" });
  const projectTsx = await executable(join(project, "node_modules/.bin/tsx"));
  assert.equal((await resolveEnvConfig(nodeConfig, { baseEnv, projectPath: project, toolDir })).RYE_NODE, projectTsx);
  const toolTsx = await executable(join(toolDir, "node_modules/.bin/tsx"));
  assert.equal((await resolveEnvConfig(nodeConfig, { baseEnv, projectPath: project, toolDir })).RYE_NODE, toolTsx, "the tool's own install wins");
});

test("resolveEnvConfig: bad shapes are BAD_REQUEST", async () => {
  for (const bad of [
    { env: { "BAD-NAME": "x" } },
    { env: { A: { nested: 1 } } },
    { interpreter: { type: "version_manager", var: "X" } },
    { interpreter: { type: "system_binary", var: "X" } },
    "not an object",
  ]) {
    await assert.rejects(resolveEnvConfig(bad, { baseEnv: {} }), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST", JSON.stringify(bad));
  }
});

test("mergeChainEnv and resolveChainEnv: later layers win, layers see earlier ones, base env is not copied", async () => {
  assert.deepEqual(mergeChainEnv([{ A: "1", B: "1" }, undefined, { B: "2", C: undefined }, { C: "3" }]), { A: "1", B: "2", C: "3" });
  const baseEnv = { NODE_ENV: "production", PATH: "/usr/bin" };
  const merged = await resolveChainEnv(
    [
      { env: { PRIMITIVE: "p" } },
      { interpreter: { type: "system_binary", binary: "definitely-missing-rye", var: "RYE_PYTHON", fallback: "python3" }, env: { NODE_ENV: "development" } },
      { env: { TOOL: "${RYE_PYTHON}:${PRIMITIVE}:${NODE_ENV}" } },
    ],
    { baseEnv },
  );
  assert.deepEqual(merged, { PRIMITIVE: "p", RYE_PYTHON: "python3", NODE_ENV: "development", TOOL: "python3:p:development" });
});
