/**
 * The stored search index (persist.ts): a later process starts from it, reads only what changed, gets
 * exactly the results of a search without it, rebuilds a damaged file instead of trusting it, and
 * stays whole when several processes write it at once.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";
import type { Space } from "../spaces/spaces.ts";
import { clearSearchIndexCache, searchIndexCounters, storedSpaceFile } from "./index.ts";
import { decodeSpace, encodeSpace, readStoredSpace, StoredIndexUnusable } from "./persist.ts";
import { INDEX_FIELDS } from "./fields.ts";
import type { StoredListing } from "./scan.ts";
import type { SearchOptions } from "./search.ts";
import { searchItems } from "./search.ts";
import { backdate, directiveFile, knowledgeFile, makeSpaces, pythonToolFile, removeTestSpaces, writeItem } from "./test-fixtures.ts";

const run = promisify(execFile);
const dirs: string[] = [];
after(async () => {
  await removeTestSpaces();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function indexDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "rye-search-index-"));
  dirs.push(dir);
  return dir;
}

type Counters = ReturnType<typeof searchIndexCounters>;

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; delta: Counters }> {
  const before = searchIndexCounters();
  const result = await work();
  const delta = searchIndexCounters();
  for (const key of Object.keys(delta) as (keyof Counters)[]) delta[key] -= before[key];
  return { result, delta };
}

const QUERIES: Omit<SearchOptions, "spaces">[] = [
  { query: "" },
  { query: "heron" },
  { query: "heron OR pelican" },
  { query: '"feed the pelican"' },
  { query: "name:tool_3" },
  { query: "pel*" },
  { query: "heorn~" },
  { query: "heron -draft" },
  { query: "tag:birds" },
  { query: "type:tool heron", limit: 3, offset: 1 },
  { query: "heron", categoryPrefix: "t" },
  { query: "pelcan", fuzzy: { enabled: true } },
];

/** Every query's whole answer, with verification, once through `dir` and once in memory only. */
async function answers(spaces: Space[], dir: string | null): Promise<unknown[]> {
  const verify: SearchOptions["verify"] = async (doc) => ({ signed: false, verified: doc.content.includes("heron"), code: "CHECKED" });
  const out: unknown[] = [];
  for (const options of QUERIES) out.push(await searchItems({ ...options, spaces, limit: options.limit ?? 50, verify, ...(dir ? { indexDir: dir } : {}) }));
  return out;
}

async function corpus() {
  const made = await makeSpaces();
  const { project, user } = made;
  for (let i = 0; i < 12; i++) {
    await writeItem(project, "tool", `t/tool_${i}`, pythonToolFile(`t/tool_${i}`, `Tool ${i} that counts herons${i % 3 === 0 ? " and pelicans" : ""}`));
    await writeItem(user, "knowledge", `k/note_${i}`, knowledgeFile(`k/note_${i}`, `Note ${i}`, `Feed the pelican, watch the heron ${i}.`, { tags: i % 2 ? ["birds"] : ["draft"] }));
  }
  await writeItem(project, "directive", "d/feed", directiveFile("d/feed", "Feed the pelican", "Then the heron."));
  // Shadowing across spaces.
  await writeItem(user, "tool", "t/tool_1", pythonToolFile("t/tool_1", "A user copy of the heron tool"));
  for (const space of [project, user]) for (const folder of ["tools", "knowledge", "directives"]) await backdate(join(space.root, folder)).catch(() => undefined);
  return made;
}

/**
 * The corpus, searched through a new index directory (with `backdated`, every file and folder dated back first:
 * nothing is racy, so later searches write no index), and the project space's stored file as written.
 */
async function storedCorpus(options: { backdated?: boolean } = {}) {
  const made = await corpus();
  if (options.backdated) {
    await backdateTree(made.project.root);
    await backdateTree(made.user.root);
  }
  const dir = await indexDir();
  await answers(made.spaces, dir);
  const file = storedSpaceFile(dir, made.project);
  return { ...made, dir, file, good: await readFile(file) };
}

test("a space's stored index keeps its file name (SHA-256 of its name and root): an upgrade reuses the file", () => {
  const space: Space = { name: "project", root: "/home/ana/proj/.ai" };
  const name = createHash("sha256").update("project\0/home/ana/proj/.ai").digest("hex").slice(0, 32);
  assert.equal(storedSpaceFile("/cache/rye/search-index", space), join("/cache/rye/search-index", `${name}.idx`));
});

test("a later process starts from the stored index, reads no file, and answers exactly as without it", async () => {
  const { spaces, project } = await corpus();
  const dir = await indexDir();
  const cold = await measure(() => answers(spaces, dir));
  assert.equal(cold.delta.storedIndexesWritten > 0, true, "the first search stores the index");
  assert.equal(cold.delta.documentsLoaded, 0);

  clearSearchIndexCache(); // what a new process starts with
  const warm = await measure(() => answers(spaces, dir));
  assert.equal(warm.delta.documentsLoaded, 26, "every document comes from the stored index");
  assert.equal(warm.delta.filesRead - warm.delta.verifyCalls, 0, "only the verified hits' files are read");
  assert.equal(warm.delta.storedIndexesWritten, 0, "nothing changed, nothing is written");

  clearSearchIndexCache();
  const nothing = await measure(() => searchItems({ query: "zzzz", spaces, indexDir: dir }));
  assert.equal(nothing.delta.documentsLoaded, 26);
  assert.equal(nothing.delta.documentsBuilt, 0, "an unchanged tree is checked against the stored numbers: no document is built");
  const one = await measure(() => searchItems({ query: "name:tool_3", spaces, indexDir: dir }));
  assert.deepEqual(one.result.results.map((h) => h.id), ["t/tool_3"]);
  assert.ok(one.delta.documentsBuilt <= 2, `only the candidates are built (${one.delta.documentsBuilt})`);

  clearSearchIndexCache();
  const toolsOnly = await measure(() => searchItems({ query: "heron", spaces, itemTypes: ["tool"], indexDir: dir }));
  assert.equal(toolsOnly.delta.documentsLoaded, 13, "a search of one type decodes only that type's documents");
  assert.equal(toolsOnly.delta.filesRead, 0);

  clearSearchIndexCache();
  assert.deepEqual(warm.result, await answers(spaces, null), "identical to a search without a stored index");
  assert.deepEqual(cold.result, warm.result);
  const files = await readdir(dir);
  assert.equal(files.length, spaces.length, "one file per space");
  assert.ok(files.includes(storedSpaceFile(dir, project).split("/").pop()!));
});

test("a later process lists no unchanged directory: the listings are stored with the index", async () => {
  const { spaces, project, user } = await corpus();
  for (const [space, folder] of [[project, "tools/t"], [project, "directives/d"], [user, "knowledge/k"], [user, "tools/t"]] as const) await backdate(join(space.root, folder));
  const dir = await indexDir();
  const cold = await measure(() => answers(spaces, dir));
  assert.ok(cold.delta.dirsListed > 0);

  clearSearchIndexCache();
  const warm = await measure(() => answers(spaces, dir));
  assert.equal(warm.delta.dirsListed, 0, "no directory is listed again");
  assert.ok(warm.delta.dirsStatted > 0 && warm.delta.filesStatted > 0, "directories and files are still stat-ed");

  // A new file changes its directory's mtime: that directory alone is listed again, and the file is found.
  await writeItem(project, "tool", "t/osprey", pythonToolFile("t/osprey", "An osprey tool"));
  clearSearchIndexCache();
  const added = await measure(() => searchItems({ query: "osprey", spaces, indexDir: dir }));
  assert.deepEqual(added.result.results.map((h) => h.id), ["t/osprey"]);
  assert.equal(added.delta.dirsListed, 1);
  assert.equal(added.delta.storedIndexesWritten, 1, "the new listing is stored");
});

test("a stored listing naming anything outside its directory makes its segment unusable", () => {
  const key = { space: "project" as const, root: "/p/.ai" };
  const listing = (prefix: string, files: string[], subdirs: string[] = []) => [prefix, 1, 2, false, subdirs, files, []] as StoredListing;
  const file = (dirs: StoredListing[]) => encodeSpace(key, { tool: { docs: [], racy: [], dirs, postings: new Map(), fieldLengthTotals: new Array(INDEX_FIELDS.length).fill(0) } })!;
  assert.ok(decodeSpace(file([listing("", ["a.py"], ["t"]), listing("t/", ["b.py"])]), key)?.segment("tool"), "a sound listing decodes");
  for (const bad of [listing("", ["../x.py"]), listing("", [".."]), listing("../", ["x.py"]), listing("t", ["x.py"]), listing("", [], ["a/b"]), listing("/etc/", ["passwd"]), listing("", ["x\0.py"])]) {
    assert.equal(decodeSpace(file([bad]), key)?.segment("tool") ?? null, null, JSON.stringify(bad));
  }
});

test("edit, add, delete, rename and a same-size rewrite with the old mtime are all seen by the next process", async () => {
  const { spaces, project } = await corpus();
  const dir = await indexDir();
  await answers(spaces, dir);

  const tools = join(project.root, "tools", "t");
  // Edit (other size), add, delete, rename.
  await writeFile(join(tools, "tool_2.py"), pythonToolFile("t/tool_2", "Tool 2 now counts cormorants only"));
  await writeItem(project, "tool", "t/added", pythonToolFile("t/added", "An added cormorant tool"));
  await unlink(join(tools, "tool_4.py"));
  await rename(join(tools, "tool_5.py"), join(tools, "renamed_5.py"));
  // Same size, same mtime, other content: only the ctime (and here nothing else) tells.
  const same = join(tools, "tool_7.py");
  const before = await stat(same);
  const original = await readFile(same, "utf8");
  const replaced = original.replace("Tool 7 that counts herons", "Tool 7 that counts grebes");
  assert.equal(Buffer.byteLength(replaced), before.size);
  await writeFile(same, replaced);
  await utimes(same, before.atime, before.mtime);
  assert.equal((await stat(same)).mtimeMs, before.mtimeMs);

  clearSearchIndexCache();
  const after = await measure(() => searchItems({ query: "cormorant OR grebes OR renamed_5 OR tool_4 OR tool_5", spaces, limit: 50, indexDir: dir }));
  const ids = after.result.results.map((h) => h.id).sort();
  assert.deepEqual(ids, ["t/added", "t/renamed_5", "t/tool_2", "t/tool_7"]);
  assert.equal(after.delta.filesRead, 4, "only the edited, added, renamed and rewritten files are read");
  clearSearchIndexCache();
  assert.deepEqual(await answers(spaces, dir), (clearSearchIndexCache(), await answers(spaces, null)));
});

test("a damaged, truncated or foreign index file is rebuilt, never used", async () => {
  const { spaces, project, user, dir, file, good } = await storedCorpus();
  const expected = await answers(spaces, null);

  const damaged = Buffer.from(good);
  damaged[damaged.length - 5] = damaged[damaged.length - 5]! ^ 0xff; // inside the field data: found when a query first needs it
  const damagedHead = Buffer.from(good);
  damagedHead[40] = damagedHead[40]! ^ 0xff; // inside the header: found at load
  const truncated = good.subarray(0, good.length - 64);
  const foreign = await readFile(storedSpaceFile(dir, user)); // intact, but another space's index
  const lying = Buffer.from(good);
  lying.write("RYESIX99", 0, "latin1");

  for (const [label, bytes] of [["damaged field data", damaged], ["damaged head", damagedHead], ["truncated", truncated], ["foreign", foreign], ["other version", lying]] as const) {
    await writeFile(file, bytes);
    clearSearchIndexCache();
    const { result, delta } = await measure(() => answers(spaces, dir));
    assert.equal(delta.storedIndexesRejected, 1, `${label}: rejected`);
    assert.ok(delta.filesRead >= 13, `${label}: the project space is read from its files`);
    assert.deepEqual(result, expected, `${label}: results as without an index`);
    const rebuilt = decodeSpace(await readFile(file), { space: "project", root: project.root });
    assert.ok(rebuilt && rebuilt.types.every((type) => rebuilt.segment(type)), `${label}: a whole index was written in its place`);
  }
});

interface SegmentShape {
  docCount: number;
  block: [offset: number, length: number, crc: number];
  stringBytes: number;
  displayBytes: number;
  coreWords: number;
  fieldLengths: [number, number];
}
type HeaderShape = { segments: Record<string, SegmentShape> };

/** Where a stored index's sections start (byte offsets in the file; persist.ts has the layout), and its header. */
function layoutOf(bytes: Buffer) {
  const headerEnd = 40 + bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString("utf8", 40, headerEnd)) as HeaderShape;
  const commonEnd = headerEnd + Math.ceil(bytes.readUInt32LE(12) / 8) * 8;
  const blockStart = (type: string) => commonEnd + header.segments[type]!.block[0];
  return { header, headerEnd, commonEnd, blockStart, headEnd: commonEnd + bytes.readUInt32LE(20), fieldWords: bytes.readUInt32LE(24) };
}

/**
 * `bytes` (a stored index) with its header and blocks changed by `change` (each block's numbers and core given as
 * views), and every checksum valid again: each block's, and the common head's.
 */
function rewritten(bytes: Buffer, change: (header: HeaderShape, blocks: Record<string, { numbers: Float64Array; core: Int32Array }>) => void): Buffer {
  const { header, headerEnd, commonEnd } = layoutOf(bytes);
  const copy = Buffer.from(bytes);
  const blocks: Record<string, { numbers: Float64Array; core: Int32Array }> = {};
  for (const [type, segment] of Object.entries(header.segments)) {
    const numbersStart = commonEnd + segment.block[0] + Math.ceil(segment.stringBytes / 8) * 8;
    const coreStart = numbersStart + segment.docCount * 64 + segment.displayBytes;
    blocks[type] = { numbers: new Float64Array(copy.buffer, copy.byteOffset + numbersStart, segment.docCount * 8), core: new Int32Array(copy.buffer, copy.byteOffset + coreStart, segment.coreWords) };
  }
  change(header, blocks);
  for (const segment of Object.values(header.segments)) {
    const start = commonEnd + segment.block[0];
    segment.block[2] = crc32(copy.subarray(start, start + segment.block[1]));
  }
  let json = Buffer.from(JSON.stringify(header), "utf8");
  if (json.length % 8 !== 0) json = Buffer.concat([json, Buffer.alloc(8 - (json.length % 8), " ")]);
  const out = Buffer.concat([copy.subarray(0, 40), json, copy.subarray(headerEnd)]);
  out.writeUInt32LE(json.length, 8);
  out.writeUInt32LE(crc32(out.subarray(40, 40 + json.length + (commonEnd - headerEnd))), 16);
  return out;
}

test("stored field lengths that do not cover every document once make the file unusable; a negative one, its reader", async () => {
  const { project, good } = await storedCorpus();
  const key = { space: "project" as const, root: project.root };
  assert.ok(decodeSpace(rewritten(good, () => undefined), key)?.segment("tool"), "rewritten unchanged, it decodes");
  const shorter = rewritten(good, (header) => (header.segments.tool!.fieldLengths[1] -= INDEX_FIELDS.length));
  assert.equal(decodeSpace(shorter, key)?.segment("tool") ?? null, null, "one document short");
  const outside = rewritten(good, (header) => (header.segments.tool!.fieldLengths[0] = 2 ** 30));
  assert.equal(decodeSpace(outside, key)?.segment("tool") ?? null, null, "outside the data");
  // Checked when read (a scored candidate's): document 1's fourth field. The search then goes back to the files.
  const negative = decodeSpace(rewritten(good, (header, blocks) => (blocks.tool!.core[header.segments.tool!.fieldLengths[0] + 3] = -1)), key)!.segment("tool")!;
  assert.throws(() => negative.docs.fieldLength(1, 3), StoredIndexUnusable, "a negative length");
  assert.equal(negative.docs.fieldLength(1, 2), decodeSpace(good, key)!.segment("tool")!.docs.fieldLength(1, 2), "its other lengths read as stored");
});

test("field data found malformed (with a valid checksum), or replaced under a running process, sends the search back to the files", async () => {
  const { spaces, dir, file, good } = await storedCorpus();
  const expected = await answers(spaces, null);

  // The first document's first field block says it runs past the document's data; the checksum is recomputed.
  const malformed = Buffer.from(good);
  const { headEnd, fieldWords } = layoutOf(good);
  const fieldData = new Int32Array(malformed.buffer, malformed.byteOffset + headEnd, fieldWords);
  fieldData[0] = 2 ** 30;
  malformed.writeUInt32LE(crc32(malformed.subarray(headEnd, headEnd + fieldWords * 4)), headEnd + fieldWords * 4);
  await writeFile(file, malformed);
  clearSearchIndexCache();
  const first = await measure(() => answers(spaces, dir));
  assert.deepEqual(first.result, expected, "malformed: results as without an index");
  assert.equal(first.delta.storedIndexesRejected, 1, "malformed: rejected once");
  assert.ok(first.delta.filesRead >= 13, "malformed: the project space is read from its files");

  // Every document's display said to run past the display section; the checksums are recomputed.
  const outOfRange = rewritten(good, (_, blocks) => {
    for (const { numbers } of Object.values(blocks)) for (let d = 0; d < numbers.length / 8; d++) numbers[d * 8 + 5] = 2 ** 40;
  });
  await writeFile(file, outOfRange);
  clearSearchIndexCache();
  const second = await measure(() => answers(spaces, dir));
  assert.deepEqual(second.result, expected, "numbers out of range: results as without an index");
  assert.equal(second.delta.storedIndexesRejected, 1, "numbers out of range: rejected once");

  // A process starts from the good file's head; another replaces the file before the field data is read.
  await writeFile(file, good);
  clearSearchIndexCache();
  // A word no project item holds: the project space's head is read, its field data not yet.
  const watch = await searchItems({ query: "watch", spaces, limit: 50, indexDir: dir });
  const replacement = `${file}.new`;
  await writeFile(replacement, good);
  await rename(replacement, file);
  const { result, delta } = await measure(() => searchItems({ query: '"feed the pelican"', spaces, limit: 50, indexDir: dir }));
  assert.deepEqual(result, await searchItems({ query: '"feed the pelican"', spaces, limit: 50 }), "replaced: the phrase is answered as without an index");
  assert.equal(delta.storedIndexesRejected, 1, "replaced: the head read before is not used with the new file's data");
  assert.ok(watch.total > 0);
});

/** Every file and folder under `root` dated a minute back: nothing a search lists or reads is racy, so it writes no index. */
async function backdateTree(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) await backdate(join(entry.parentPath, entry.name));
  await backdate(root);
}

test("a renamed folder is seen by the next process even though its files keep their inode, times and size", async () => {
  const { project, spaces } = await makeSpaces();
  const knowledge = join(project.root, "knowledge");
  for (let i = 0; i < 3; i++) await writeItem(project, "knowledge", `old/note_${i}`, knowledgeFile(`old/note_${i}`, `Note ${i}`, "A grebe on the lake."));
  await backdateTree(project.root);
  const dir = await indexDir();
  const search = () => searchItems({ query: "grebe", spaces, limit: 50, indexDir: dir });
  assert.deepEqual((await search()).results.map((h) => h.id).sort(), ["old/note_0", "old/note_1", "old/note_2"]);

  // The only folder of the type folder, renamed: same place in the walk, and every file's (mtime, size, ctime,
  // inode) unchanged, since renaming a folder does not touch the files in it. Only their paths tell.
  const before = await stat(join(knowledge, "old", "note_0.md"));
  await rename(join(knowledge, "old"), join(knowledge, "new"));
  const after = await stat(join(knowledge, "new", "note_0.md"));
  assert.deepEqual([after.ino, after.mtimeMs, after.ctimeMs, after.size], [before.ino, before.mtimeMs, before.ctimeMs, before.size]);
  clearSearchIndexCache();
  assert.deepEqual((await search()).results.map((h) => h.id).sort(), ["new/note_0", "new/note_1", "new/note_2"]);
});

test("a search of one item type reads that type's block only; a damaged block is noticed when its type is searched", async () => {
  const { spaces, project, dir, file, good } = await storedCorpus({ backdated: true });
  const { blockStart } = layoutOf(good);
  const damaged = Buffer.from(good);
  damaged[blockStart("tool") + 3] = damaged[blockStart("tool") + 3]! ^ 0xff; // in the tool block's strings
  await writeFile(file, damaged);
  clearSearchIndexCache();

  const directiveSearch = { query: "pelican", spaces, itemTypes: ["directive" as const], limit: 50 };
  const directives = await measure(() => searchItems({ ...directiveSearch, indexDir: dir }));
  assert.deepEqual(directives.result, await searchItems(directiveSearch));
  assert.equal(directives.result.total, 1);
  assert.equal(directives.delta.storedIndexesRejected, 0, "the tool block was not read");
  assert.equal(directives.delta.filesRead, 0, "the directive came from the stored index");

  const toolSearch = { query: "heron", spaces, itemTypes: ["tool" as const], limit: 50 };
  const tools = await measure(() => searchItems({ ...toolSearch, indexDir: dir }));
  assert.deepEqual(tools.result, await searchItems(toolSearch), "results as without an index");
  assert.equal(tools.delta.storedIndexesRejected, 1, "the damaged block is rejected");
  assert.ok(tools.delta.filesRead >= 12, "the project's tools are read from their files");
  const rewrittenFile = decodeSpace(await readFile(file), { space: "project", root: project.root });
  assert.ok(rewrittenFile?.segment("tool") && rewrittenFile.segment("directive"), "the file is written again whole");
});

test("a block read after its file was replaced throws, unless every block was read with the head (a long-lived process)", async () => {
  const { spaces, project, dir, file, good } = await storedCorpus({ backdated: true });
  const key = { space: "project" as const, root: project.root };
  const replace = async () => {
    await writeFile(`${file}.new`, good);
    await rename(`${file}.new`, file);
  };

  const lazy = readStoredSpace(file, key);
  assert.ok(lazy && lazy !== "invalid");
  assert.ok(lazy.segment("directive"), "read before the replacement");
  await replace();
  assert.throws(() => lazy.segment("tool"), StoredIndexUnusable);

  const eager = readStoredSpace(file, key, { allBlocks: true });
  assert.ok(eager && eager !== "invalid");
  await replace();
  assert.equal(eager.segment("tool")?.docs.count, 12, "the tool block came with the head");

  // Through the search: one type searched, the file replaced, then the other type in the same process.
  clearSearchIndexCache();
  const before = await stat(file);
  await searchItems({ query: "pelican", spaces, itemTypes: ["directive"], indexDir: dir });
  assert.equal((await stat(file)).ino, before.ino, "the directive search wrote no index (it would read the tool block to do so)");
  await replace();
  const toolSearch = { query: "heron", spaces, itemTypes: ["tool" as const], limit: 50 };
  const { result, delta } = await measure(() => searchItems({ ...toolSearch, indexDir: dir }));
  assert.deepEqual(result, await searchItems(toolSearch), "results as without an index");
  assert.equal(delta.storedIndexesRejected, 1);
});

test("non-ASCII paths, ids and categories come back from the stored index as written; a NUL in a category keeps that space out of it", async () => {
  const { project, user } = await makeSpaces();
  await writeItem(project, "knowledge", "notes/café_crème", knowledgeFile("notes/café_crème", "Café", "Heron by the café, naïve résumé."));
  await writeItem(project, "knowledge", "日本/鳥", knowledgeFile("日本/鳥", "鳥の本", "heron 鷺"));
  const withNul = knowledgeFile("k/odd", "Odd", "heron with an odd category").replace(/^category: .*$/m, 'category: "a\\0b"');
  await writeItem(user, "knowledge", "k/odd", withNul);
  const spaces = [project, user];
  const dir = await indexDir();
  const options = { query: "heron OR 鷺", spaces, limit: 50, indexDir: dir };
  const first = await measure(() => searchItems(options));
  assert.deepEqual(first.result.results.map((h) => `${h.space}:${h.id}:${h.category}`).sort(), ["project:notes/café_crème:notes", "project:日本/鳥:日本", "user:k/odd:a\0b"]);
  assert.ok(first.delta.storedIndexesWritten > 0);
  await stat(storedSpaceFile(dir, project));
  await assert.rejects(stat(storedSpaceFile(dir, user)), /ENOENT/, "the space with a NUL in a category is not stored");
  clearSearchIndexCache();
  const again = await measure(() => searchItems(options));
  assert.deepEqual(again.result, first.result, "same answer from the stored index");
  assert.equal(again.delta.storedIndexesRejected, 0);
  assert.equal(again.delta.filesRead, 1, "the project space comes from its index; the user space's one file is read again");
});

test("a new process (its dictionary empty: it adopts the stored term table) answers every query as a process without the index", async () => {
  const { spaces } = await corpus();
  const dir = await indexDir();
  await answers(spaces, dir);
  const search = fileURLToPath(new URL("./search.ts", import.meta.url));
  const queries = JSON.stringify(QUERIES);
  const script = (withIndex: boolean) => `
    import { searchItems } from ${JSON.stringify(search)};
    const spaces = JSON.parse(process.env.SPACES);
    const out = [];
    for (const options of ${queries}) out.push(await searchItems({ ...options, spaces, limit: options.limit ?? 50${withIndex ? ", indexDir: process.env.INDEX_DIR" : ""} }));
    process.stdout.write(JSON.stringify(out));
  `;
  const child = async (withIndex: boolean) => JSON.parse((await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script(withIndex)], { env: { ...process.env, SPACES: JSON.stringify(spaces), INDEX_DIR: dir } })).stdout) as unknown;
  const [fromIndex, fromFiles] = await Promise.all([child(true), child(false)]);
  assert.deepEqual(fromIndex, fromFiles);
});

test("a second space's file maps into the process's dictionary only the terms of the blocks it decodes", async () => {
  const { project, user, dir } = await storedCorpus({ backdated: true });
  const modules = { persist: fileURLToPath(new URL("./persist.ts", import.meta.url)), dictionary: fileURLToPath(new URL("./dictionary.ts", import.meta.url)) };
  // A new process: the project's file is decoded first and lends its table; "copy" is a term of the user's tool only.
  const script = `
    import { readFileSync } from "node:fs";
    import { decodeSpace } from ${JSON.stringify(modules.persist)};
    import { lookupTermId } from ${JSON.stringify(modules.dictionary)};
    const file = (space) => decodeSpace(readFileSync(process.env[space.toUpperCase() + "_FILE"]), { space, root: process.env[space.toUpperCase() + "_ROOT"] });
    const project = file("project");
    project.segment("tool");
    const user = file("user");
    const seen = [lookupTermId("copy") !== undefined];
    const knowledge = user.segment("knowledge");
    seen.push(lookupTermId("copy") !== undefined, lookupTermId("pelican") !== undefined);
    const tool = user.segment("tool");
    seen.push(lookupTermId("copy") !== undefined, tool.postings.get(lookupTermId("copy")).ids.length, knowledge.docs.count);
    process.stdout.write(JSON.stringify(seen));
  `;
  const env = { ...process.env, PROJECT_FILE: storedSpaceFile(dir, project), PROJECT_ROOT: project.root, USER_FILE: storedSpaceFile(dir, user), USER_ROOT: user.root };
  const seen = JSON.parse((await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env })).stdout) as unknown[];
  assert.deepEqual(seen, [false, false, true, true, 1, 12], "the knowledge block maps its own terms, the tool block then its own");
});

test("several processes searching and writing one index at once leave a whole, correct index", async () => {
  const { spaces, project } = await corpus();
  const dir = await indexDir();
  const search = fileURLToPath(new URL("./search.ts", import.meta.url));
  const script = `
    import { searchItems } from ${JSON.stringify(search)};
    const spaces = JSON.parse(process.env.SPACES);
    for (let i = 0; i < 5; i++) await searchItems({ query: "heron OR cormorant", spaces, indexDir: process.env.INDEX_DIR, limit: 50 });
  `;
  const child = () => run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: { ...process.env, SPACES: JSON.stringify(spaces), INDEX_DIR: dir } });
  const edits = (async () => {
    for (let i = 0; i < 6; i++) {
      await writeItem(project, "tool", `t/busy_${i}`, pythonToolFile(`t/busy_${i}`, `Cormorant ${i}`));
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  await Promise.all([child(), child(), child(), child(), edits]);

  const file = storedSpaceFile(dir, project);
  const stored = decodeSpace(await readFile(file), { space: "project", root: project.root });
  assert.ok(stored && stored.types.length > 0 && stored.types.every((type) => stored.segment(type)), "the stored file is whole");
  assert.deepEqual((await readdir(dir)).filter((f) => f.endsWith(".tmp")), [], "no temporary file is left behind");
  clearSearchIndexCache();
  const fromIndex = await answers(spaces, dir);
  clearSearchIndexCache();
  assert.deepEqual(fromIndex, await answers(spaces, null));
  assert.equal((await searchItems({ query: "cormorant", spaces, indexDir: dir, limit: 50 })).total, 6);
});

test("watch mode (the MCP server) skips the scan of unchanged spaces and still sees an edit made just before a search", async () => {
  const { spaces, project } = await corpus();
  const options = { spaces, limit: 50, watch: true } as const;
  await searchItems({ query: "heron", ...options });
  await new Promise((r) => setTimeout(r, 700)); // past the watchers' settling time
  await searchItems({ query: "heron", ...options }); // the first scan a settled watcher vouches for
  const quiet = await measure(() => searchItems({ query: "heron", ...options }));
  assert.equal(quiet.delta.filesStatted, 0, "no file is stat-ed when nothing changed");
  assert.ok(quiet.delta.scansSkipped > 0);

  const path = join(project.root, "tools", "t", "tool_3.py");
  await writeFile(path, pythonToolFile("t/tool_3", "Tool 3 now counts kingfishers"));
  assert.deepEqual((await searchItems({ query: "kingfishers", ...options })).results.map((h) => h.id), ["t/tool_3"]);
  await unlink(path);
  assert.equal((await searchItems({ query: "kingfishers", ...options })).total, 0);
  await writeItem(project, "knowledge", "k/new", knowledgeFile("k/new", "New", "About kingfishers."));
  assert.deepEqual((await searchItems({ query: "kingfishers", ...options })).results.map((h) => h.id), ["k/new"]);
  clearSearchIndexCache(); // closes the watchers
});

test("watch mode (one watch per directory): a type folder created later, an in-place edit deep down and a folder removed and created again are all seen", async () => {
  const { project } = await makeSpaces();
  await rm(join(project.root, "knowledge"), { recursive: true, force: true });
  const options = { spaces: [project], limit: 50, watch: true as const };
  assert.equal((await searchItems({ query: "grebe", ...options })).total, 0);
  await searchItems({ query: "grebe", ...options });
  await writeItem(project, "knowledge", "a/b/grebe", knowledgeFile("a/b/grebe", "Grebe", "About grebes."));
  assert.deepEqual((await searchItems({ query: "grebe", ...options })).results.map((h) => h.id), ["a/b/grebe"]);
  await new Promise((r) => setTimeout(r, 150)); // past the window in which a just-written file is read again
  await searchItems({ query: "grebe", ...options });
  const quiet = await measure(() => searchItems({ query: "grebe", ...options }));
  assert.ok(quiet.delta.scansSkipped > 0, "the folders are watched now");
  // A file edited in place in the deepest folder (no directory entry changes) is seen.
  await writeFile(join(project.root, "knowledge", "a", "b", "grebe.md"), knowledgeFile("a/b/grebe", "Grebe", "About herons now."));
  assert.deepEqual((await searchItems({ query: "herons", ...options })).results.map((h) => h.id), ["a/b/grebe"]);
  // The type folder removed, searched without, then created again.
  await rm(join(project.root, "knowledge"), { recursive: true, force: true });
  assert.equal((await searchItems({ query: "herons", ...options })).total, 0);
  await new Promise((r) => setTimeout(r, 150));
  assert.equal((await searchItems({ query: "herons", ...options })).total, 0);
  await writeItem(project, "knowledge", "c/heron", knowledgeFile("c/heron", "Heron", "About herons again."));
  assert.deepEqual((await searchItems({ query: "herons", ...options })).results.map((h) => h.id), ["c/heron"]);
  clearSearchIndexCache();
});
