/** The space watcher on real folders: what it reports, folders appearing later, and its folder limit. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { Space } from "../spaces/spaces.ts";
import type { SpaceChange } from "./space-watcher.ts";
import { MAX_WATCHED_FOLDERS, SpaceWatcher } from "./space-watcher.ts";

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function spaces(): Promise<{ root: string; project: Space; user: Space }> {
  const root = await mkdtemp(join(tmpdir(), "rye-watch-"));
  const project = { name: "project" as const, root: join(root, "project", ".ai") };
  const user = { name: "user" as const, root: join(root, "home", ".ai") };
  await mkdir(join(project.root, "knowledge", "a", "b"), { recursive: true });
  await mkdir(join(root, "home"), { recursive: true });
  return { root, project, user };
}

test("reports the item type of a changed file, a lock change, and folders and spaces that appear later", async () => {
  const { root, project, user } = await spaces();
  const changes: SpaceChange[] = [];
  const watcher = new SpaceWatcher([project, user], (c) => void changes.push(c));
  try {
    await watcher.start();
    await writeFile(join(project.root, "knowledge", "a", "b", "x.md"), "x");
    const first = await until(() => changes.find((c) => c.types.has("knowledge")), "knowledge change");
    assert.deepEqual([first.keys, first.lock], [false, false]);

    await writeFile(join(project.root, "rye.lock"), "{}");
    const lock = await until(() => changes.find((c) => c.lock), "lock change");
    assert.equal(lock.keys, false);

    // The trust store appearing, then a key added to it (its folder is watched once it exists).
    await mkdir(join(project.root, "trusted_keys"));
    await until(() => changes.find((c) => c.keys), "trusted_keys appearing");
    await until(() => (watcher.watchedFolders >= 6 ? true : undefined), "trusted_keys watched");
    const k = changes.length;
    await writeFile(join(project.root, "trusted_keys", "abc.pem"), "pem");
    await until(() => changes.slice(k).find((c) => c.keys), "a key added");

    // A type folder created after start, with a nested folder and a file written at once (before any watch on it
    // can exist): reported once the new folders are watched.
    await mkdir(join(project.root, "directives", "deep", "er"), { recursive: true });
    await writeFile(join(project.root, "directives", "deep", "er", "d.md"), "d");
    await until(() => changes.find((c) => c.types.has("directive")), "directives folder");
    // Once reported, the new folders are watched: a later change in them is seen.
    await until(() => (watcher.watchedFolders >= 9 ? true : undefined), "the new folders watched");
    let n = changes.length;
    await writeFile(join(project.root, "directives", "deep", "er", "d.md"), "d2");
    await until(() => changes.slice(n).find((c) => c.types.has("directive")), "a file in a folder created later");

    // The user space had no .ai at start.
    n = changes.length;
    await mkdir(join(user.root, "tools", "t"), { recursive: true });
    await until(() => changes.slice(n).find((c) => c.types.has("tool")), "user space appearing");
    await until(() => (watcher.watchedFolders >= 12 ? true : undefined), "the user space's folders watched");
    n = changes.length;
    await writeFile(join(user.root, "tools", "t", "t.py"), "t");
    await until(() => changes.slice(n).find((c) => c.types.has("tool")), "a file in the new user space");
  } finally {
    watcher.close();
    await rm(root, { recursive: true, force: true });
  }
});

test(`watches at most maxFolders folders (default ${MAX_WATCHED_FOLDERS}) and says so`, async () => {
  const { root, project, user } = await spaces();
  for (let i = 0; i < 20; i++) await mkdir(join(project.root, "tools", `f${i}`), { recursive: true });
  const watcher = new SpaceWatcher([project, user], () => undefined, { maxFolders: 8 });
  try {
    await watcher.start();
    assert.equal(watcher.watchedFolders, 8);
    assert.equal(watcher.truncated, true);
  } finally {
    watcher.close();
  }
  const roomy = new SpaceWatcher([project, user], () => undefined);
  try {
    await roomy.start();
    assert.equal(roomy.truncated, false);
    // .ai, knowledge, knowledge/a, knowledge/a/b, tools, 20 tool folders, and the user space's parent (no .ai yet).
    assert.equal(roomy.watchedFolders, 26);
  } finally {
    roomy.close();
    await rm(root, { recursive: true, force: true });
  }
});
