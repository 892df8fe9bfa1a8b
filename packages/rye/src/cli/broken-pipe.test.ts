import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RYE_BIN } from "../../test/cli.ts";

test("a reader that closes the pipe early (`rye … | head`) ends the command quietly: no EPIPE stack trace", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-epipe-"));
  const child = spawn(process.execPath, [RYE_BIN, "--help"], { env: { ...process.env, HOME: home, USERPROFILE: home, RYE_USER_DIR: join(home, ".ai") }, cwd: home, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy(); // the reader is gone before the first line is written
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  assert.doesNotMatch(stderr, /EPIPE|Error|    at /, stderr);
  assert.equal(code, 0);
});
