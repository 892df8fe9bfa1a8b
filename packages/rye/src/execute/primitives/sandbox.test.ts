import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { planSandbox } from "./sandbox.ts";

const dir = mkdtempSync(join(tmpdir(), "rye-sandbox-path-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const run = { command: "/bin/true", args: ["a b"], cwd: dir, projectPath: dir };
const linuxOnly = { skip: process.platform !== "linux" && "prlimit is looked up on Linux only" };

/** Runs `fn` with PATH set to `value`, restoring it after. */
function withPath<T>(value: string, fn: () => T): T {
  const saved = process.env.PATH;
  process.env.PATH = value;
  try {
    return fn();
  } finally {
    process.env.PATH = saved;
  }
}

test("prlimit is found on PATH without a shell: the first executable file of that name, relative entries skipped", linuxOnly, () => {
  // Before the executable one: a non-executable file and a folder of that name.
  const plain = join(dir, "plain");
  const folder = join(dir, "folder");
  const real = join(dir, "real");
  mkdirSync(plain);
  mkdirSync(join(folder, "prlimit"), { recursive: true });
  mkdirSync(real);
  writeFileSync(join(plain, "prlimit"), "#!/bin/sh\n");
  writeFileSync(join(real, "prlimit"), '#!/bin/sh\nexec "$@"\n');
  chmodSync(join(real, "prlimit"), 0o755);
  const plan = withPath(["relative-dir", plain, folder, real].join(":"), () => planSandbox({ cpu_seconds: 5, required: false }, run));
  assert.equal(plan.command, join(real, "prlimit"));
  assert.deepEqual(plan.args, ["--cpu=5:6", "--", "/bin/true", "a b"]);
  assert.deepEqual(plan.applied.via, ["prlimit"]);
});

test("no prlimit on PATH: the CPU limit is reported as not applied, nothing wraps the command", linuxOnly, () => {
  const empty = mkdtempSync(join(dir, "empty-"));
  const plan = withPath(empty, () => planSandbox({ cpu_seconds: 5, required: false }, run));
  assert.equal(plan.command, "/bin/true");
  assert.equal(plan.applied.cpu_seconds, null);
  assert.match(plan.missing.join("\n"), /prlimit \(util-linux\) is not installed/);
});
