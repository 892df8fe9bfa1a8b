/** The system bundle's file-system and bash tools, run for real through their chains. */
import assert from "node:assert/strict";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { createWorkspace } from "../../test/workspace.ts";

test("fs_write, fs_read, fs_list, fs_glob and fs_grep work inside the project and refuse to leave it", async () => {
  const ws = await createWorkspace();
  const engine = await ws.engine();
  const run = async (id: string, parameters: Record<string, unknown>) => (await engine.execute({ item_type: "tool", item_id: `rye/file-system/${id}`, parameters })) as any;

  const written = await run("fs_write", { path: "notes/todo.txt", content: "alpha\nbeta\ngamma\n" });
  assert.equal(written.status, "success", JSON.stringify(written.data));
  assert.equal(await readFile(join(ws.projectDir, "notes/todo.txt"), "utf8"), "alpha\nbeta\ngamma\n");
  const appended = await run("fs_write", { path: "notes/todo.txt", content: "delta\n", mode: "append" });
  assert.equal(appended.data.bytes, 6);
  const again = await run("fs_write", { path: "notes/todo.txt", content: "x", mode: "create" });
  assert.equal(again.status, "error", "create refuses an existing file");

  const read = await run("fs_read", { path: "notes/todo.txt", offset: 2, limit: 2 });
  assert.equal(read.data.content, "beta\ngamma");
  assert.equal(read.data.total_lines, 5);

  const listed = await run("fs_list", { path: "notes" });
  assert.deepEqual(listed.data.entries.map((e: any) => e.name), ["todo.txt"]);

  await mkdir(join(ws.projectDir, "src/deep"), { recursive: true });
  await writeFile(join(ws.projectDir, "src/deep/a.ts"), "export const beta = 1;\n");
  const globbed = await run("fs_glob", { pattern: "**/*.ts" });
  assert.deepEqual(globbed.data.matches, ["src/deep/a.ts"]);
  const grep = await run("fs_grep", { pattern: "beta" });
  assert.deepEqual(grep.data.matches.map((m: any) => `${m.path}:${m.line}`).sort(), ["notes/todo.txt:2", "src/deep/a.ts:1"]);

  for (const [id, params] of [
    ["fs_read", { path: "../home/.ai/keys/private_key.pem" }],
    ["fs_read", { path: "/etc/passwd" }],
    ["fs_write", { path: "../escape.txt", content: "x" }],
    ["fs_list", { path: ".." }],
    ["fs_glob", { pattern: "../*" }],
  ] as const) {
    // Refused by the tool (outside the project), or before it runs by the security gate (a private key's path).
    const result = await run(id, params).catch((e: { code: string; message: string }) => ({ status: "error", data: { code: e.code, message: e.message } }));
    assert.equal(result.status, "error", `${id} ${JSON.stringify(params)}`);
    assert.match(JSON.stringify(result.data), /outside the project|may not contain|SECURITY_DENIED/);
  }
  await symlink(ws.root, join(ws.projectDir, "link"));
  const viaLink = await run("fs_read", { path: "link/home/.ai/keys/private_key.pem" }).catch((e: { code: string }) => ({ status: "error", code: e.code }));
  assert.equal(viaLink.status, "error", "a symlink out of the project is refused");
  const viaOtherLink = await run("fs_read", { path: "link/home/.ai/keys/public_key.pem" });
  assert.equal(viaOtherLink.status, "error", "a symlink out of the project is refused by the tool itself too");
  assert.match(JSON.stringify(viaOtherLink.data), /outside the project/);
  const unknown = await engine.execute({ item_type: "tool", item_id: "rye/file-system/fs_read", parameters: { path: "x", evil: true } }).catch((e) => e);
  assert.equal(unknown.code, "INPUT_INVALID", "additionalProperties are refused by the schema");
});

test("the bash tool runs a command in the project and reports its exit code", async () => {
  const ws = await createWorkspace();
  const engine = await ws.engine();
  const ok = (await engine.execute({ item_type: "tool", item_id: "rye/bash/bash", parameters: { command: "pwd; echo err >&2" } })) as any;
  assert.equal(ok.status, "success");
  assert.equal(ok.data.stdout.trim(), ws.projectDir);
  assert.equal(ok.data.stderr.trim(), "err");
  const failed = (await engine.execute({ item_type: "tool", item_id: "rye/bash/bash", parameters: { command: "exit 3" } })) as any;
  assert.equal(failed.status, "error");
  assert.equal(failed.data.exit_code, 3);
});
