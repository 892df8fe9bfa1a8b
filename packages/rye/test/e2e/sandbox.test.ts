/**
 * OS limits and isolation of subprocess tools (docs/security.md), with real processes through `rye execute`: a tool
 * that allocates without bound or spins is stopped by its memory / CPU limit with RESOURCE_LIMIT; isolated (Linux
 * with bubblewrap), a tool cannot write outside the project or open a socket, and still works inside; a signed
 * project policy imposes the sandbox on every call from a tier up. Without bubblewrap, isolation asked for is
 * refused (ISOLATION_UNAVAILABLE), never pretended.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signItem } from "@rye/core";
import { programMissing, skipUnless, skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { runRye } from "../cli.ts";
import type { Workspace } from "../workspace.ts";
import { createWorkspace } from "../workspace.ts";

const exists = (path: string) => stat(path).then(() => true, () => false);
const hasBwrap = (() => {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "true"], { stdio: "ignore" });
    return process.platform === "linux";
  } catch {
    return false;
  }
})();
// Without bubblewrap the isolation tests prove the refusal instead (their titles say which ran); CI installs it
// and must prove the isolation itself, so there a missing bwrap fails the file.
skipUnless(programMissing("bwrap"));

let ws: Workspace;
let server: ReturnType<typeof createServer>;
let port = 0;
let outside = "";

/** A bash tool with `sandbox` settings in its signed config (`# @config`). */
const shellTool = (category: string, sandbox: Record<string, unknown> | null, body: string) => `#!/usr/bin/env bash
# @version 1.0.0
# @tool_type shell
# @executor_id rye/core/runtimes/bash
# @category ${category}
# @description sandbox test tool
# @config ${JSON.stringify({ timeout: 60, ...(sandbox ? { sandbox } : {}) })}
${body}
`;

const rye = async (args: string[]) => {
  const run = await runRye([...args, "--json"], { env: ws.env as Record<string, string>, cwd: ws.projectDir });
  return { ...run, json: JSON.parse(run.stdout || "{}") as Record<string, any> };
};

before(async () => {
  ws = await createWorkspace();
  server = createServer((_req, res) => res.end("hello"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  // Outside the project and outside /tmp (the sandbox gives a tool a private /tmp of its own).
  outside = join("/var/tmp", `rye-sandbox-probe-${process.pid}-${Date.now()}`);
  const probe = `touch inside.txt && echo wrote-inside
if touch ${outside} 2>/dev/null; then echo wrote-outside; else echo no-outside; fi
if (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; then echo net-open; else echo net-closed; fi
echo '{"ok": true}'`;
  await ws.write("tool", "sandbox/tools/hog.sh", shellTool("sandbox/tools", { memory_mb: 256 }, `python3 -c "x = bytearray(1024 * 1024 * 1024); print(len(x))"`));
  await ws.write("tool", "sandbox/tools/spin.sh", shellTool("sandbox/tools", { cpu_seconds: 1 }, "while :; do :; done"));
  await ws.write("tool", "sandbox/tools/modest.sh", shellTool("sandbox/tools", { memory_mb: 256, cpu_seconds: 5 }, `python3 -c "x = bytearray(16 * 1024 * 1024); print('{\\"bytes\\": %d}' % len(x))"`));
  await ws.write("tool", "sandbox/tools/isolated.sh", shellTool("sandbox/tools", { network: false, filesystem: "project" }, probe));
  await ws.write("tool", "sandbox/tools/open.sh", shellTool("sandbox/tools", null, probe));
});
after(async () => {
  server?.close();
  await rm(outside, { force: true });
});

// The limits are prlimit's; the tools that test them are Python one-liners.
describe("limits", { skip: skipWithoutProgram("prlimit") || skipWithoutProgram("python3") }, () => {
  test("a tool that allocates without bound is stopped by its memory limit", async () => {
    const run = await rye(["execute", "tool", "sandbox/tools/hog"]);
    assert.equal(run.json.error?.code, "RESOURCE_LIMIT", run.stdout + run.stderr);
    assert.equal(run.json.error.details.limit, "memory");
    assert.match(run.json.error.message, /memory limit of 256 MiB/);
  });

  test("a tool that spins is stopped by its CPU limit", async () => {
    const started = Date.now();
    const run = await rye(["execute", "tool", "sandbox/tools/spin"]);
    assert.equal(run.json.error?.code, "RESOURCE_LIMIT", run.stdout + run.stderr);
    assert.equal(run.json.error.details.limit, "cpu");
    assert.ok(Date.now() - started < 30_000, "stopped long before its 60 s timeout");
  });

  test("within its limits a tool runs, and the result says which limits held", async () => {
    const run = await rye(["execute", "tool", "sandbox/tools/modest"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.json.data.bytes, 16 * 1024 * 1024);
    assert.deepEqual(run.json.metadata.sandbox.applied, { network: null, filesystem: null, memory_mb: 256, cpu_seconds: 5, via: ["prlimit"] });
  });
});

describe("isolation", () => {
  test(hasBwrap ? "isolated, a tool writes only inside the project and opens no socket" : "without bubblewrap, isolation asked for is refused", async () => {
    const open = await rye(["execute", "tool", "sandbox/tools/open"]);
    assert.match(JSON.stringify(open.json.data), /wrote-outside.*net-open/, "the same probe, not isolated, reaches both");
    await rm(outside, { force: true });
    await rm(join(ws.projectDir, "inside.txt"), { force: true });

    const isolated = await rye(["execute", "tool", "sandbox/tools/isolated"]);
    if (!hasBwrap) {
      assert.equal(isolated.json.error?.code, "ISOLATION_UNAVAILABLE", isolated.stdout);
      return;
    }
    assert.equal(isolated.code, 0, isolated.stdout + isolated.stderr);
    const output = JSON.stringify(isolated.json.data);
    assert.match(output, /wrote-inside/);
    assert.match(output, /no-outside/);
    assert.match(output, /net-closed/);
    assert.equal(await exists(outside), false);
    assert.equal(await exists(join(ws.projectDir, "inside.txt")), true);
    assert.deepEqual(isolated.json.metadata.sandbox.applied.via, ["bubblewrap"]);
  });

  test("a signed project policy imposes the sandbox from a tier up", async () => {
    const path = join(ws.projectDir, ".ai/config/security.yaml");
    await mkdir(join(ws.projectDir, ".ai/config"), { recursive: true });
    const policy = `version: "1.0.0"\ntool_type: config\nexecutor_id: null\ncategory: config\ndescription: "isolate shell tools"\nsandbox:\n  from_tier: T3\n  network: false\n  filesystem: project\n`;
    await writeFile(path, (await signItem(policy, "tool", ws.key)).content);
    try {
      const run = await rye(["execute", "tool", "sandbox/tools/open"]);
      if (!hasBwrap) {
        assert.equal(run.json.error?.code, "ISOLATION_UNAVAILABLE", run.stdout);
        return;
      }
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(JSON.stringify(run.json.data), /no-outside.*net-closed/s);
      const read = await rye(["execute", "tool", "rye/file-system/fs_read", "--params", JSON.stringify({ path: ".ai/config/security.yaml" })]);
      assert.equal(read.code, 0, "a T0 tool is below the policy's tier");
      assert.equal(read.json.metadata.sandbox, undefined);
    } finally {
      await rm(path, { force: true });
    }
  });
});
