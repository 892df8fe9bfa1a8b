/** The cached index: what a search re-reads after files are edited, added or removed, and what it does not. */
import assert from "node:assert/strict";
import { mkdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import type { ItemType } from "@rye/core";
import { ITEM_TYPES, TYPE_FOLDERS } from "@rye/core";
import type { Space } from "../spaces/spaces.ts";
import { listItemFiles } from "../spaces/spaces.ts";
import { searchIndexCounters, setSearchFileReader } from "./index.ts";
import { isStoredListing, TypeDirScanner } from "./scan.ts";
import { searchItems } from "./search.ts";
import { backdate, directiveFile, knowledgeFile, makeSpaces, pythonToolFile, removeTestSpaces, writeItem, yamlToolFile } from "./test-fixtures.ts";

after(removeTestSpaces);

async function ids(query: string, spaces: Space[]): Promise<string[]> {
  return (await searchItems({ query, spaces, limit: 100 })).results.map((h) => h.id).sort();
}

type Counters = ReturnType<typeof searchIndexCounters>;

/** Counter deltas over `run`. */
async function measure(run: () => Promise<unknown>): Promise<Counters> {
  const before = searchIndexCounters();
  await run();
  const delta = searchIndexCounters();
  for (const key of Object.keys(delta) as (keyof Counters)[]) delta[key] -= before[key];
  return delta;
}

/** Moves directory mtimes a minute back: a directory listed right after a change is listed again once (see scan.ts). */
async function backdateDirs(...dirs: string[]): Promise<void> {
  for (const dir of dirs) await backdate(dir);
}

test("an unchanged tree is never read again, and unchanged directories are not re-listed", async () => {
  const { project, user, spaces } = await makeSpaces();
  for (let i = 0; i < 20; i++) {
    await writeItem(project, "tool", `t/tool_${i}`, pythonToolFile(`t/tool_${i}`, `Tool number ${i} for herons`));
    await writeItem(user, "knowledge", `k/note_${i}`, knowledgeFile(`k/note_${i}`, `Note ${i}`, "About herons."));
  }
  await backdateDirs(join(project.root, "tools", "t"), join(project.root, "tools"), join(user.root, "knowledge", "k"), join(user.root, "knowledge"));

  const cold = await measure(() => ids("herons", spaces));
  assert.equal(cold.filesRead, 40);
  for (let round = 0; round < 3; round++) {
    const warm = await measure(() => ids(round === 1 ? "tool_3" : "herons", spaces));
    assert.equal(warm.filesRead, 0, "no file content is read");
    assert.equal(warm.dirsListed, 0, "no directory is listed again");
    assert.equal(warm.filesStatted, 40, "every file is stat-ed: an in-place edit changes only the file's mtime");
  }
});

test("an injected reader sees exactly the reads of changed files", async () => {
  const { project } = await makeSpaces();
  const paths: string[] = [];
  for (let i = 0; i < 5; i++) paths.push(await writeItem(project, "tool", `t/x_${i}`, pythonToolFile(`t/x_${i}`, "Stork tool")));
  const reads: string[] = [];
  setSearchFileReader(async (path) => {
    reads.push(path);
    return readFile(path);
  });
  try {
    await ids("stork", [project]);
    assert.equal(reads.length, 5);
    await ids("stork", [project]);
    await ids("x_1", [project]);
    assert.equal(reads.length, 5);
    await writeFile(paths[2]!, pythonToolFile("t/x_2", "Crane tool"));
    assert.deepEqual(await ids("crane", [project]), ["t/x_2"]);
    assert.deepEqual(reads.slice(5), [paths[2]]);
  } finally {
    setSearchFileReader(null);
  }
});

test("edit, add, delete: the next search sees the change", async () => {
  const { project, user, spaces } = await makeSpaces();
  const edited = await writeItem(project, "directive", "d/alpha", directiveFile("d/alpha", "Feed the pelican"));
  const removed = await writeItem(user, "knowledge", "k/beta", knowledgeFile("k/beta", "Beta", "The pelican sleeps."));
  assert.deepEqual(await ids("pelican", spaces), ["d/alpha", "k/beta"]);

  // Edit in place: the directory's mtime does not change, only the file's.
  const dirMtime = (await stat(dirname(edited))).mtimeMs;
  await writeFile(edited, directiveFile("d/alpha", "Feed the flamingo"));
  assert.equal((await stat(dirname(edited))).mtimeMs, dirMtime);
  const afterEdit = await measure(async () => {
    assert.deepEqual(await ids("flamingo", spaces), ["d/alpha"]);
  });
  assert.equal(afterEdit.filesRead, 1, "only the edited file is read");
  assert.deepEqual(await ids("pelican", spaces), ["k/beta"], "the old content is gone");

  await rm(removed);
  assert.deepEqual(await ids("pelican", spaces), []);
  assert.deepEqual(await ids("", spaces), ["d/alpha"]);

  await writeItem(user, "tool", "deep/er/still/gamma", pythonToolFile("deep/er/still/gamma", "Count pelicans"));
  assert.deepEqual(await ids("pelican", spaces), ["deep/er/still/gamma"], "new files in new directories are found");

  await rm(join(user.root, "tools", "deep"), { recursive: true });
  assert.deepEqual(await ids("pelican", spaces), []);
  await rm(project.root, { recursive: true });
  assert.deepEqual(await ids("", spaces), [], "a vanished space is empty, not an error");
});

test("a file rewritten with the same size and the same mtime is still re-read when its first read was racy", async () => {
  const { project } = await makeSpaces();
  const path = await writeItem(project, "tool", "t/racy", pythonToolFile("t/racy", "Word aaaaaa"));
  // Simulate a coarse clock: two versions carrying the same mtime, the first read right after it.
  const stamp = new Date();
  await utimes(path, stamp, stamp);
  assert.deepEqual(await ids("aaaaaa", [project]), ["t/racy"]);
  await writeFile(path, pythonToolFile("t/racy", "Word bbbbbb"));
  await utimes(path, stamp, stamp);
  assert.deepEqual(await ids("bbbbbb", [project]), ["t/racy"]);
  assert.deepEqual(await ids("aaaaaa", [project]), []);
});

test("a file whose first read came long after its last change is not re-read", async () => {
  const { project } = await makeSpaces();
  await writeItem(project, "tool", "t/calm", pythonToolFile("t/calm", "Calm ibis"));
  await ids("ibis", [project]);
  const warm = await measure(() => ids("ibis", [project]));
  assert.equal(warm.filesRead, 0);
});

test("many removals keep the postings correct (lazy deletion and compaction)", async () => {
  const { project } = await makeSpaces();
  const paths: string[] = [];
  for (let i = 0; i < 150; i++) {
    paths.push(await writeItem(project, "knowledge", `k/n_${i}`, knowledgeFile(`k/n_${i}`, `Note ${i}`, `Shared words here and a unique token uniq${i}.`)));
  }
  assert.equal((await searchItems({ query: "shared", spaces: [project] })).total, 150);
  for (const path of paths.slice(0, 140)) await rm(path);
  assert.equal((await searchItems({ query: "shared", spaces: [project] })).total, 10);
  assert.deepEqual(await ids("uniq3 OR uniq145", [project]), ["k/n_145"]);
  await writeItem(project, "knowledge", "k/n_3", knowledgeFile("k/n_3", "Back", "Shared again uniq3."));
  assert.deepEqual(await ids("uniq3 OR uniq145", [project]), ["k/n_145", "k/n_3"]);
});

test("files too large, not UTF-8, or unparsable are indexed by what can be read", async () => {
  const { project } = await makeSpaces();
  await writeItem(project, "tool", "t/huge_blob", `__tool_description__ = "big"\n# ${"x ".repeat(600_000)}`);
  const notUtf8 = join(project.root, "knowledge", "k", "latin1_note.md");
  await mkdir(dirname(notUtf8), { recursive: true });
  await writeFile(notUtf8, Buffer.concat([Buffer.from("---\nid: latin1_note\n---\nCaf"), Buffer.from([0xe9]), Buffer.from(" gazelle\n")]));
  await writeItem(project, "tool", "t/bad_yaml", "description: [unclosed\n", ".yaml");

  const [huge] = (await searchItems({ query: "huge_blob", spaces: [project] })).results;
  assert.match(huge!.parseError!, /larger than/);
  const [latin] = (await searchItems({ query: "gazelle", spaces: [project] })).results;
  assert.equal(latin!.id, "k/latin1_note");
  assert.match(latin!.parseError!, /UTF-8/);
  const [yaml] = (await searchItems({ query: "unclosed", spaces: [project] })).results;
  assert.equal(yaml!.id, "t/bad_yaml");
  assert.match(yaml!.parseError!, /YAML/);
});

test("the scanner lists exactly what listItemFiles lists", async () => {
  const { base, project } = await makeSpaces();
  const tools = join(project.root, "tools");
  const put = async (rel: string, content = "x = 1\n"): Promise<void> => {
    await mkdir(dirname(join(tools, rel)), { recursive: true });
    await writeFile(join(tools, rel), content);
  };
  await put("a.py");
  await put("a.yaml", yamlToolFile("a", "A"));
  await put("b.yaml", yamlToolFile("b", "B"));
  await put("b.sh");
  await put("c.ts");
  await put("UPPER.PY");
  await put("_private.py");
  await put(".hidden.py");
  await put("readme.txt");
  await put("noext");
  await put("node_modules/dep.py");
  await put("lockfiles/x.py");
  await put("__pycache__/y.py");
  await put("dist/bundle.js");
  await put("build/out.py");
  await put("one/build/nested_out.py");
  await put("_skipped_dir/z.py");
  await put("one/two/three/deep.py");
  await put("one/two/sibling.yaml", yamlToolFile("one/two/sibling", "S"));
  await mkdir(join(base, "outside"), { recursive: true });
  await writeFile(join(base, "outside", "escape.py"), "x = 1\n");
  await symlink(join(base, "outside"), join(tools, "escape_dir"));
  await symlink(join(base, "outside", "escape.py"), join(tools, "escape_file.py"));
  await symlink(join(tools, "one", "two"), join(tools, "alias"));
  await symlink(join(tools, "c.ts"), join(tools, "c_link.mts"));
  await symlink(tools, join(tools, "one", "loop"));

  for (const type of ITEM_TYPES) {
    const expected = (await listItemFiles(project, type)).map((f) => `${f.itemId} ${f.path} ${f.extension}`);
    const scanner = new TypeDirScanner(project, type, { dirsListed: 0, dirsStatted: 0, filesStatted: 0 });
    const actual = scanner.scan().map((f) => `${f.itemId} ${f.path} ${f.extension}`);
    const withoutLoop = (list: string[]): string[] => list.filter((l) => !l.includes("/loop/")).sort();
    // listItemFiles follows the loop link down to its depth limit; the scanner refuses link cycles.
    assert.deepEqual(withoutLoop(actual), withoutLoop(expected), type);
    assert.ok(!actual.some((l) => l.includes("/loop/")));
    assert.deepEqual(scanner.scan().map((f) => f.itemId).sort(), actual.map((l) => l.split(" ")[0]).sort(), "a warm scan agrees with the cold one");
  }
  const toolIds = new TypeDirScanner(project, "tool", { dirsListed: 0, dirsStatted: 0, filesStatted: 0 }).scan().map((f) => `${f.itemId}${f.extension}`);
  assert.ok(toolIds.includes("a.py") && !toolIds.includes("a.yaml"), "extension order decides");
  assert.ok(toolIds.includes("alias/sibling.yaml"), "links inside the space are followed");
  assert.ok(!toolIds.some((id) => id.startsWith("escape")), "links leading outside are not");
});

test("a scanner seeded with stored listings finds what a cold one finds; stored names are checked", async () => {
  const { project } = await makeSpaces();
  const tools = join(project.root, "tools");
  await mkdir(join(tools, "sub"), { recursive: true });
  await writeFile(join(tools, "a.py"), pythonToolFile("a", "A"));
  await writeFile(join(tools, "a.yaml"), yamlToolFile("a", "A"));
  await writeFile(join(tools, "Upper.PY"), pythonToolFile("Upper", "U"));
  await writeFile(join(tools, "sub", "b.sh"), "echo b\n");
  await writeFile(join(tools, "notes.txt"), "not a tool\n");
  // Listed long after their last change: not racy, so a seeded scanner has no reason to list them again.
  await backdate(join(tools, "sub"));
  await backdate(tools);
  const counters = { dirsListed: 0, dirsStatted: 0, filesStatted: 0 };
  const cold = new TypeDirScanner(project, "tool", counters);
  const lines = (scanner: TypeDirScanner) => scanner.scan().map((f) => `${f.itemId} ${f.extension} ${f.path} ${f.size}`).sort();
  const expected = lines(cold);
  assert.deepEqual(expected.map((l) => l.split(" ").slice(0, 2).join(" ")), ["Upper .py", "a .py", "sub/b .sh"]);
  const stored = cold.storedListings();

  const seeded = new TypeDirScanner(project, "tool", counters);
  seeded.seedListings(stored);
  const listedBefore = counters.dirsListed;
  assert.deepEqual(lines(seeded), expected, "same files, ids and extensions");
  assert.equal(counters.dirsListed, listedBefore, "no directory listed again");

  // A stored name without one of the type's extensions is dropped; a listing with a path in a name is refused.
  const top = stored.find((l) => l[0] === "")!;
  const tampered = new TypeDirScanner(project, "tool", counters);
  tampered.seedListings(stored.map((l) => (l === top ? [l[0], l[1], l[2], l[3], l[4], [...l[5], "notes.txt"], l[6]] : l)));
  assert.deepEqual(lines(tampered), expected, "notes.txt is not a tool");
  assert.ok(isStoredListing(top));
  assert.ok(!isStoredListing([top[0], top[1], top[2], top[3], top[4], ["sub/b.sh"], top[6]]), "a slash in a name");
  assert.ok(!isStoredListing([top[0], top[1], top[2], top[3], top[4], ["a\\b.py"], top[6]]), "a backslash in a name");
  assert.ok(!isStoredListing([top[0], top[1], top[2], top[3], top[4], ["a\0.py"], top[6]]), "a NUL in a name");
  assert.ok(!isStoredListing([top[0], top[1], top[2], top[3], [".."], top[5], top[6]]), "a parent directory");
});

test("each type and space keeps its own index; types do not leak into each other", async () => {
  const { project, spaces } = await makeSpaces();
  const folders = Object.values(TYPE_FOLDERS);
  assert.equal(folders.length, 3);
  const writers: Record<ItemType, () => Promise<string>> = {
    directive: () => writeItem(project, "directive", "same_name", directiveFile("same_name", "Ocelot directive")),
    tool: () => writeItem(project, "tool", "same_name", pythonToolFile("same_name", "Ocelot tool")),
    knowledge: () => writeItem(project, "knowledge", "same_name", knowledgeFile("same_name", "Ocelot", "Ocelot knowledge")),
  };
  for (const type of ITEM_TYPES) await writers[type]();
  const result = await searchItems({ query: "ocelot", spaces });
  assert.deepEqual(result.results.map((h) => h.type).sort(), ["directive", "knowledge", "tool"]);
  assert.ok(result.results.every((h) => !h.shadowed), "shadowing is per type");
});
