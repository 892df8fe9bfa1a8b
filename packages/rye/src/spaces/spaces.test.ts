import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RyeError } from "@rye/core";
import { findItemFile, listItemFiles, resolveItem, resolveSpaces, type Space } from "./spaces.ts";

async function tree(): Promise<{ root: string; spaces: Space[] }> {
  const root = await mkdtemp(join(tmpdir(), "rye-spaces-"));
  const spaces = await resolveSpaces({ projectPath: join(root, "project"), env: { USER_SPACE: join(root, "home") }, systemRoot: join(root, "system/.ai") });
  return { root, spaces };
}

async function put(path: string, content = "x"): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, content);
}

test("resolution order is project > user > system with one id scheme", async () => {
  const { root, spaces } = await tree();
  assert.deepEqual(spaces.map((s) => s.name), ["project", "user", "system"]);
  await put(join(root, "system/.ai/tools/rye/x.py"));
  await put(join(root, "home/.ai/tools/rye/x.py"));
  assert.equal((await resolveItem(spaces, "tool", "rye/x"))!.space.name, "user");
  await put(join(root, "project/.ai/tools/rye/x.py"));
  assert.equal((await resolveItem(spaces, "tool", "rye/x"))!.space.name, "project");
  assert.equal((await resolveItem(spaces, "tool", "rye/x", "system"))!.path, join(root, "system/.ai/tools/rye/x.py"));
});

test("when several files share a stem the documented extension order decides, in find and list alike", async () => {
  const { root, spaces } = await tree();
  const project = spaces[0]!;
  for (const ext of [".sh", ".ts", ".yaml", ".py"]) await put(join(root, `project/.ai/tools/a/t${ext}`));
  assert.equal((await findItemFile(project, "tool", "a/t"))!.extension, ".py");
  const listed = await listItemFiles(project, "tool");
  assert.deepEqual(listed.map((f) => [f.itemId, f.extension]), [["a/t", ".py"]]);
  await put(join(root, "project/.ai/tools/b/u.yml"));
  await put(join(root, "project/.ai/tools/b/u.mjs"));
  assert.equal((await findItemFile(project, "tool", "b/u"))!.extension, ".yml");
  await put(join(root, "project/.ai/tools/b/_private.py"));
  await put(join(root, "project/.ai/tools/b/notes.txt"));
  assert.deepEqual((await listItemFiles(project, "tool")).map((f) => f.itemId), ["a/t", "b/u"]);
});

test("ids cannot escape their space: traversal, absolute paths, NUL and outward symlinks", async () => {
  const { root, spaces } = await tree();
  const project = spaces[0]!;
  await put(join(root, "secret.md"), "top secret");
  for (const bad of ["../secret", "../../secret", "/etc/passwd", "a/../../x", "a\u0000b", ".hidden", ""]) {
    await assert.rejects(findItemFile(project, "knowledge", bad), (e: unknown) => e instanceof RyeError && e.code === "INVALID_ITEM_ID", bad);
  }
  await mkdir(join(root, "project/.ai/knowledge"), { recursive: true });
  await symlink(join(root, "secret.md"), join(root, "project/.ai/knowledge/leak.md"));
  await assert.rejects(findItemFile(project, "knowledge", "leak"), (e: unknown) => e instanceof RyeError && e.code === "PATH_TRAVERSAL");
  assert.deepEqual(await listItemFiles(project, "knowledge"), [], "listing skips the outward symlink");
  await put(join(root, "project/.ai/knowledge/real.md"));
  await symlink(join(root, "project/.ai/knowledge/real.md"), join(root, "project/.ai/knowledge/alias.md"));
  assert.equal((await findItemFile(project, "knowledge", "alias"))!.itemId, "alias", "symlinks inside the space are fine");
});

test("a project inside the user's home that is the home itself is one space", async () => {
  const root = await mkdtemp(join(tmpdir(), "rye-spaces-"));
  const spaces = await resolveSpaces({ projectPath: root, env: { USER_SPACE: root }, systemRoot: join(root, "sys") });
  assert.deepEqual(spaces.map((s) => s.name), ["project", "system"]);
});
