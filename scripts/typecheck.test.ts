/**
 * `npm run typecheck` (scripts/typecheck.mjs): every TypeScript project of the repository is in its list, and a
 * project with a type error fails the run, named, with the compiler's message, while the other projects still run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const script = join(root, "scripts/typecheck.mjs");

function typecheck(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every tsconfig of ours (`*tsconfig*.json`), relative to the root. */
function tsconfigs(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", ".git", "dist", ".next", "test-results"].includes(entry.name)) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) tsconfigs(full, out);
    else if (/tsconfig.*\.json$/.test(entry.name)) out.push(relative(root, full));
  }
  return out;
}

test("the list holds every TypeScript project of the repository (tsconfig.base.json is only extended)", async () => {
  const listed = await typecheck(["--list"]);
  assert.equal(listed.code, 0);
  const projects = listed.stdout.trim().split("\n");
  assert.deepEqual([...projects].sort(), tsconfigs(root).filter((f) => f !== "tsconfig.base.json").sort());
});

test("a type error fails the run with the compiler's message and the project named; the other projects still run", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rye-typecheck-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const project = (name: string, source: string) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "main.ts"), source);
    writeFileSync(join(dir, name, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], lib: ["es2022"] }, files: ["main.ts"] }));
    return join(dir, name, "tsconfig.json");
  };
  const bad = project("bad", `export const n: number = "not a number";\n`);
  const good = project("good", `export const n: number = 1;\n`);
  const run = await typecheck([bad, good], { RYE_TYPECHECK_CONCURRENCY: "2" });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /main\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
  assert.ok(run.stderr.includes(`typecheck: ${bad} FAILED`), run.stderr);
  assert.ok(run.stderr.includes(`typecheck: ${good} ok`), run.stderr);
  assert.ok(run.stderr.endsWith(`typecheck: type errors in ${bad}\n`), run.stderr);
  const clean = await typecheck([good]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
});

test("a concurrency that is not a whole number of at least 1 is refused before anything runs", async () => {
  for (const value of ["0", "-1", "1.5", "two"]) {
    const run = await typecheck(["--no-such-project"], { RYE_TYPECHECK_CONCURRENCY: value });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^typecheck: RYE_TYPECHECK_CONCURRENCY must be a whole number of at least 1/);
  }
});
