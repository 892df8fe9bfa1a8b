/**
 * The rule for tests that need more than Node.js (scripts/test-requirements.ts): skipped with a reason outside CI,
 * failing under CI. The last two tests run a real test file that needs haproxy, with haproxy made unavailable.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { findProgram, isCi, programMissing, RequirementMissingUnderCi, skipUnless, skipWithoutProgram } from "./test-requirements.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "rye-test-requirements-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a met requirement runs the test, in CI or not", () => {
  assert.equal(skipUnless(false, {}), false);
  assert.equal(skipUnless(false, { CI: "true" }), false);
});

test("a missing requirement skips with its reason outside CI and throws under CI", () => {
  const reason = skipUnless("needs haproxy: haproxy is not installed", {});
  assert.equal(typeof reason, "string");
  assert.match(reason as string, /^needs haproxy: haproxy is not installed; skipped outside CI/);
  for (const CI of ["true", "1", "yes"]) {
    assert.throws(() => skipUnless("needs haproxy: haproxy is not installed", { CI }), (error: unknown) => {
      assert.ok(error instanceof RequirementMissingUnderCi);
      assert.match(error.message, /^needs haproxy: haproxy is not installed: CI runs every test/);
      return true;
    });
  }
  assert.equal(isCi({ CI: "" }), false, "an empty CI is not CI");
});

test("programs are found on PATH only when executable; the reason names the package to install", () => {
  const mk = (name: string, mode: number) => {
    writeFileSync(join(dir, name), "#!/bin/sh\n");
    chmodSync(join(dir, name), mode);
  };
  mk("prlimit", 0o755);
  mk("script", 0o644);
  assert.equal(findProgram("prlimit", { PATH: dir }), join(dir, "prlimit"));
  assert.equal(findProgram("script", { PATH: dir }), undefined, "a file that is not executable is not the program");
  assert.equal(programMissing("prlimit", { PATH: dir }), false);
  assert.equal(programMissing("script", { PATH: dir }), "needs script: script is not installed (apt-get install bsdutils)");
  assert.equal(skipWithoutProgram("prlimit", { PATH: dir, CI: "true" }), false);
  assert.throws(() => skipWithoutProgram("script", { PATH: dir, CI: "true" }), RequirementMissingUnderCi);
  // haproxy's override wins over PATH, and one that is not executable makes haproxy missing.
  mk("haproxy", 0o755);
  assert.equal(programMissing("haproxy", { PATH: "", RYE_HAPROXY: join(dir, "haproxy") }), false);
  assert.equal(
    programMissing("haproxy", { PATH: dir, RYE_HAPROXY: join(dir, "nope") }),
    `needs haproxy: RYE_HAPROXY=${join(dir, "nope")} is not an executable (apt-get install haproxy, or set RYE_HAPROXY)`,
  );
});

/** Runs infra/test/haproxy.test.ts with haproxy unavailable (RYE_HAPROXY names nothing), CI as given. */
function haproxySuiteWithoutHaproxy(ci: string | undefined): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = { ...process.env, RYE_HAPROXY: join(dir, "no-haproxy-here") };
  delete env.CI;
  delete env.NODE_TEST_CONTEXT; // else the child reports to this runner instead of printing its own results
  if (ci !== undefined) env.CI = ci;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", "infra/test/haproxy.test.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => resolve({ code, output }));
  });
}

test("without haproxy, its test file passes by skipping, with the reason, outside CI", async () => {
  const { code, output } = await haproxySuiteWithoutHaproxy(undefined);
  assert.equal(code, 0, output);
  assert.match(output, /# SKIP needs haproxy: RYE_HAPROXY=\S+ is not an executable \(apt-get install haproxy, or set RYE_HAPROXY\); skipped outside CI/);
  assert.doesNotMatch(output, /ENOENT|uncaughtException/);
});

test("without haproxy, its test file fails under CI, saying why", async () => {
  const { code, output } = await haproxySuiteWithoutHaproxy("true");
  assert.notEqual(code, 0, output);
  assert.match(output, /RequirementMissingUnderCi: needs haproxy: .* CI runs every test/);
});
