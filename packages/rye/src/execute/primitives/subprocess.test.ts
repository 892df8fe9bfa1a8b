/** The subprocess primitive against real child processes. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { RyeError } from "@rye/core";
import { resolveEnvConfig } from "../env.ts";
import { runSubprocess } from "./subprocess.ts";

const NODE = process.execPath;
const node = (script: string, extra: Partial<Parameters<typeof runSubprocess>[0]> = {}) => ({ command: NODE, args: ["-e", script], ...extra });

/** Alive = exists and is not a zombie (the container's init may never reap reparented children). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

function readIfExists(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(25);
  }
  return check();
}

function rejectsWith(code: string, extra: (err: RyeError) => void = () => {}) {
  return (err: unknown) => {
    assert.ok(err instanceof RyeError, `expected RyeError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    extra(err);
    return true;
  };
}

test("exit codes, JSON stdout and the success rule", async () => {
  const ok = await runSubprocess(node(`process.stdout.write(JSON.stringify({ value: 42 }))`));
  assert.equal(ok.success, true);
  assert.equal(ok.exitCode, 0);
  assert.equal(ok.signal, null);
  assert.deepEqual(ok.data, { value: 42 });
  assert.ok(ok.durationMs >= 0);

  const reportedFailure = await runSubprocess(node(`console.log(JSON.stringify({ success: false, error: "nope" }))`));
  assert.equal(reportedFailure.exitCode, 0);
  assert.equal(reportedFailure.success, false, "a JSON success:false wins over exit code 0");

  const failed = await runSubprocess(node(`console.error("boom"); process.exit(3)`));
  assert.deepEqual([failed.success, failed.exitCode, failed.stderr, failed.data], [false, 3, "boom\n", null]);

  const text = await runSubprocess(node(`console.log("plain text")`));
  assert.deepEqual([text.success, text.stdout, text.data], [true, "plain text\n", null]);

  const list = await runSubprocess(node(`console.log("[1,2]")`));
  assert.deepEqual([list.success, list.data], [true, [1, 2]]);

  const killed = await runSubprocess(node(`process.kill(process.pid, "SIGSEGV")`));
  assert.deepEqual([killed.success, killed.exitCode, killed.signal], [false, null, "SIGSEGV"]);
});

test("stdin: input_data is written then closed; a child that never reads does not break the run", async () => {
  const echo = await runSubprocess(node(`let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => process.stdout.write(JSON.stringify({ got: s })))`, { input_data: '{"a":"ü"}\n' }));
  assert.deepEqual(echo.data, { got: '{"a":"ü"}\n' });

  const noInput = await runSubprocess(node(`process.stdin.on("data", () => {}).on("end", () => console.log("eof"))`));
  assert.equal(noInput.stdout, "eof\n", "stdin is closed even without input_data");

  const ignores = await runSubprocess(node(`process.exit(0)`, { input_data: "x".repeat(8 * 1024 * 1024) }));
  assert.equal(ignores.success, true, "EPIPE on stdin is ignored");
});

test("env: config.env over baseEnv (process.env by default), including resolved env_config", async () => {
  const script = `process.stdout.write(JSON.stringify({ a: process.env.A, b: process.env.B, path: typeof process.env.PATH, venv: process.env.PROJECT_VENV_PYTHON }))`;
  const withBase = await runSubprocess(node(script, { env: { A: "config" } }), { baseEnv: { A: "base", B: "base", PATH: process.env.PATH } });
  assert.deepEqual(withBase.data, { a: "config", b: "base", path: "string" });

  const resolved = await resolveEnvConfig(
    { interpreter: { type: "venv_python", var: "RYE_PYTHON", fallback: "python3" }, env: { PROJECT_VENV_PYTHON: "${RYE_PYTHON}", B: "${MISSING:-dflt}" } },
    { baseEnv: process.env, projectPath: await mkdtemp(join(tmpdir(), "rye-sp-")) },
  );
  const fromProcessEnv = await runSubprocess(node(script, { env: resolved }));
  assert.deepEqual(fromProcessEnv.data, { b: "dflt", path: "string", venv: "python3" });
});

test("cwd: runs in the given directory; a missing one is PROCESS_FAILED, not a confusing ENOENT", async () => {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "rye-sp-")));
  const result = await runSubprocess(node(`process.stdout.write(process.cwd())`, { cwd: dir }));
  assert.equal(result.stdout, dir);
  await assert.rejects(runSubprocess(node("", { cwd: join(dir, "missing") })), rejectsWith("PROCESS_FAILED", (e) => assert.match(e.message, /Working directory/)));
});

test("timeout kills the whole process tree, including grandchildren, and reports partial output", async () => {
  const started = Date.now();
  let pids: number[] = [];
  await assert.rejects(
    runSubprocess({ command: "bash", args: ["-c", 'sleep 100 & echo "$! $$"; echo progress >&2; sleep 100'], timeout: 1 }),
    rejectsWith("TIMEOUT", (err) => {
      const details = err.details as { stdout: string; stderr: string; timeoutSeconds: number };
      assert.equal(details.timeoutSeconds, 1);
      assert.equal(details.stderr, "progress\n");
      pids = details.stdout.trim().split(" ").map(Number);
    }),
  );
  assert.ok(Date.now() - started < 5000, "the run ends at the timeout, not when the sleeps finish");
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.ok(await eventually(() => !isAlive(pid)), `process ${pid} survived the timeout`);
});

test("timeout: a child that ignores SIGTERM is SIGKILLed after the grace period", async () => {
  const started = Date.now();
  await assert.rejects(
    runSubprocess(node(`process.on("SIGTERM", () => {}); console.log(process.pid); setInterval(() => {}, 1000)`, { timeout: 0.5 }), { limits: { killGraceMs: 300 } }),
    rejectsWith("TIMEOUT", (err) => {
      const pid = Number((err.details as { stdout: string }).stdout.trim());
      assert.ok(!isAlive(pid));
    }),
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 750, `the grace period was honoured (${elapsed} ms)`);
  assert.ok(elapsed < 30_000, `the child was killed instead of running forever (${elapsed} ms)`);
});

test("processes left running after the main process exits are cleaned up", async () => {
  const started = Date.now();
  const result = await runSubprocess({ command: "bash", args: ["-c", "sleep 100 & echo $!"], timeout: 30 });
  assert.ok(Date.now() - started < 5000, "the background sleep does not hold the run open");
  assert.equal(result.success, true);
  const pid = Number(result.stdout.trim());
  assert.ok(await eventually(() => !isAlive(pid)), "the background sleep was killed");
});

test("output caps: too much stdout or stderr kills the group with OUTPUT_TOO_LARGE", async () => {
  await assert.rejects(
    runSubprocess(node(`setInterval(() => process.stdout.write("x".repeat(65536)), 1)`), { limits: { maxStdoutBytes: 100_000 } }),
    rejectsWith("OUTPUT_TOO_LARGE", (err) => {
      const details = err.details as { stream: string; limitBytes: number; stdout: string };
      assert.deepEqual([details.stream, details.limitBytes], ["stdout", 100_000]);
      assert.ok(details.stdout.length < 10_000, "details carry only a preview");
    }),
  );
  await assert.rejects(
    runSubprocess({ command: "bash", args: ["-c", "yes error >&2"] }, { limits: { maxStderrBytes: 1000 } }),
    rejectsWith("OUTPUT_TOO_LARGE", (err) => assert.equal((err.details as { stream: string }).stream, "stderr")),
  );
  const exact = await runSubprocess(node(`process.stdout.write("y".repeat(1000))`), { limits: { maxStdoutBytes: 1000 } });
  assert.equal(exact.stdout.length, 1000, "output exactly at the cap is fine");
});

test("spawn errors are PROCESS_FAILED with a hint naming the command", async () => {
  await assert.rejects(
    runSubprocess({ command: "definitely-not-a-rye-command" }),
    rejectsWith("PROCESS_FAILED", (err) => {
      assert.match(err.message, /ENOENT/);
      assert.match(err.hint, /"definitely-not-a-rye-command" was not found/);
    }),
  );
  const dir = await mkdtemp(join(tmpdir(), "rye-sp-"));
  const notExecutable = join(dir, "script.sh");
  await writeFile(notExecutable, "#!/bin/sh\necho hi\n");
  await chmod(notExecutable, 0o644);
  await assert.rejects(runSubprocess({ command: notExecutable }), rejectsWith("PROCESS_FAILED", (err) => assert.match(err.hint, /is not executable/)));
  await assert.rejects(runSubprocess({ command: dir }), rejectsWith("PROCESS_FAILED", (err) => assert.match(err.message, /EACCES/)));
});

test("abort signal kills the process group and rejects with the signal's reason", async () => {
  const controller = new AbortController();
  const reason = new Error("cancelled by caller");
  const pidFile = join(await mkdtemp(join(tmpdir(), "rye-sp-")), "pid");
  const run = runSubprocess({ command: "bash", args: ["-c", 'sleep 100 & echo $! > "$0"; sleep 100', pidFile] }, { signal: controller.signal });
  assert.ok(await eventually(() => readIfExists(pidFile).endsWith("\n")));
  controller.abort(reason);
  await assert.rejects(run, (err) => err === reason);
  const grandchild = Number(readIfExists(pidFile).trim());
  assert.ok(await eventually(() => !isAlive(grandchild)), "the grandchild was killed too");

  const already = AbortSignal.abort(reason);
  await assert.rejects(runSubprocess(node("console.log(1)"), { signal: already }), (err) => err === reason);
});

test("config validation: bad shapes are BAD_REQUEST, NUL bytes and excessive timeouts INPUT_INVALID", async () => {
  for (const bad of [{}, { command: "" }, { command: NODE, args: "x" }, { command: NODE, args: [1] }, { command: NODE, timeout: -1 }, { command: NODE, env: { A: 1 } }]) {
    await assert.rejects(runSubprocess(bad as never), rejectsWith("BAD_REQUEST"), JSON.stringify(bad));
  }
  await assert.rejects(runSubprocess({ command: NODE, args: ["a\0b"] }), rejectsWith("INPUT_INVALID"));
  await assert.rejects(runSubprocess({ command: NODE, env: { A: "x\0" } }), rejectsWith("INPUT_INVALID"));
  await assert.rejects(runSubprocess({ command: NODE, timeout: 3601 }), rejectsWith("INPUT_INVALID", (e) => assert.match(e.message, /3600/)));
  await assert.rejects(runSubprocess({ command: NODE, timeout: 11 }, { limits: { maxTimeoutSeconds: 10 } }), rejectsWith("INPUT_INVALID"));
});
