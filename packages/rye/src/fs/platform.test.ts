/**
 * The Windows rules run here with node:path's win32 implementation (CI is Linux; the code paths are the same
 * functions the client calls with the current platform).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renameReplacing } from "./atomic.ts";
import { executableNames, expandHome, hasPathSeparator, isPathInside, pathCandidates, pathFromEnv, POSIX, toItemPath, venvPythonCandidates, WINDOWS } from "./platform.ts";

test("containment on Windows: other drives, .. steps and letter case", () => {
  assert.equal(isPathInside("C:\\proj\\.ai", "C:\\proj\\.ai\\tools\\x.mjs", WINDOWS), true);
  assert.equal(isPathInside("C:\\proj\\.ai", "c:\\PROJ\\.ai\\tools", WINDOWS), true, "NTFS compares case-insensitively");
  assert.equal(isPathInside("C:\\proj\\.ai", "C:\\proj\\.ai", WINDOWS), true);
  assert.equal(isPathInside("C:\\proj\\.ai", "D:\\proj\\.ai\\x", WINDOWS), false, "another drive is outside");
  assert.equal(isPathInside("C:\\proj\\.ai", "C:\\proj\\other", WINDOWS), false);
  assert.equal(isPathInside("C:\\proj\\.ai", "C:\\proj\\.ai\\..\\secret", WINDOWS), false);
  assert.equal(isPathInside("C:\\proj\\.ai", "\\\\server\\share\\x", WINDOWS), false, "a UNC path is outside");
  assert.equal(isPathInside("C:\\proj\\.ai", "C:\\proj\\.ai\\..foo", WINDOWS), true, "a name starting with .. is a name");
});

test("containment on POSIX", () => {
  assert.equal(isPathInside("/p/.ai", "/p/.ai/tools", POSIX), true);
  assert.equal(isPathInside("/p/.ai", "/p/.AI/tools", POSIX), false, "case matters");
  assert.equal(isPathInside("/p/.ai", "/p/.ai/../x", POSIX), false);
  assert.equal(isPathInside("/p/.ai", "/other", POSIX), false);
});

test("~ expansion accepts ~\\ on Windows only", () => {
  assert.equal(expandHome("~\\rye", "C:\\Users\\ann", WINDOWS), "C:\\Users\\ann\\rye");
  assert.equal(expandHome("~/rye", "C:\\Users\\ann", WINDOWS), "C:\\Users\\ann\\rye");
  assert.equal(expandHome("~", "C:\\Users\\ann", WINDOWS), "C:\\Users\\ann");
  assert.equal(expandHome("~/rye", "/home/ann", POSIX), "/home/ann/rye");
  assert.equal(expandHome("/srv/rye", "/home/ann", POSIX), "/srv/rye");
});

test("PATH lookup on Windows: Path in any case, PATHEXT extensions, backslash paths", () => {
  const env = { Path: "C:\\Program Files\\Git\\bin;relative\\dir;C:\\tools", PATHEXT: ".COM;.EXE;.BAT;.CMD" };
  assert.equal(pathFromEnv(env, WINDOWS), env.Path);
  assert.equal(pathFromEnv(env, POSIX), undefined, "POSIX env names are case-sensitive");
  assert.deepEqual(executableNames("bash", env, WINDOWS), ["bash.com", "bash.exe", "bash.bat", "bash.cmd", "bash"]);
  assert.deepEqual(executableNames("python.exe", env, WINDOWS), ["python.exe"]);
  assert.deepEqual(executableNames("bash", env, POSIX), ["bash"]);
  const candidates = pathCandidates("bash", env.Path, env, WINDOWS);
  assert.equal(candidates[1], "C:\\Program Files\\Git\\bin\\bash.exe");
  assert.ok(!candidates.some((c) => c.startsWith("relative")), "relative entries are skipped");
  assert.equal(candidates.length, 10);
  assert.deepEqual(pathCandidates("bash", "/usr/bin:/bin", {}, POSIX), ["/usr/bin/bash", "/bin/bash"]);
  assert.equal(hasPathSeparator("C:\\Git\\bin\\bash.exe", WINDOWS), true);
  assert.equal(hasPathSeparator("weird\\name", POSIX), false);
});

test("virtualenv interpreters and item ids", () => {
  assert.deepEqual(venvPythonCandidates("C:\\proj\\.venv", WINDOWS), ["C:\\proj\\.venv\\Scripts\\python.exe"]);
  assert.deepEqual(venvPythonCandidates("/p/.venv", POSIX), ["/p/.venv/bin/python", "/p/.venv/bin/python3"]);
  assert.equal(toItemPath("rye\\file-system\\fs_read.mjs", WINDOWS), "rye/file-system/fs_read.mjs");
  assert.equal(toItemPath("rye/file-system/fs_read.mjs", POSIX), "rye/file-system/fs_read.mjs");
});

test("an atomic replace retries while Windows reports the target busy, and only there", async () => {
  const busy = (code: string) => Object.assign(new Error(code), { code });
  let calls = 0;
  const slept: number[] = [];
  await renameReplacing("a.tmp", "a", WINDOWS, async () => {
    if (++calls < 3) throw busy("EPERM");
  }, async (ms) => void slept.push(ms));
  assert.equal(calls, 3);
  assert.deepEqual(slept, [20, 40]);

  calls = 0;
  await assert.rejects(renameReplacing("a.tmp", "a", POSIX, async () => void (calls++, (() => { throw busy("EPERM"); })())), /EPERM/);
  assert.equal(calls, 1, "POSIX never retries");
  await assert.rejects(renameReplacing("a.tmp", "a", WINDOWS, async () => { throw busy("ENOENT"); }, async () => {}), /ENOENT/, "other errors are not retried");
  let attempts = 0;
  await assert.rejects(renameReplacing("a.tmp", "a", WINDOWS, async () => { attempts++; throw busy("EBUSY"); }, async () => {}), /EBUSY/);
  assert.ok(attempts > 3 && attempts < 20, `gives up after about 2 s of backoff (${attempts} attempts)`);
});
