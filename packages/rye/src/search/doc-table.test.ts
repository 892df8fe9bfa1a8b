import assert from "node:assert/strict";
import { test } from "node:test";
import type { IndexedDocument } from "./document.ts";
import type { StoredDocs } from "./doc-table.ts";
import { DocTable } from "./doc-table.ts";

const fakeDoc = (docId: number, path: string): IndexedDocument => ({ docId, path, id: path, type: "tool", space: "project", mtimeMs: 1, size: 1, ctimeMs: 1, ino: 1, category: "", data: new Int32Array(0), display: { name: path, description: "", version: null, signed: false, preview: "" } });

function stored(count: number): StoredDocs & { builds: number } {
  const docs = {
    count,
    builds: 0,
    path: (n: number) => `/s/${n}`,
    id: (n: number) => `id${n}`,
    category: (n: number) => `c${n}`,
    data: (n: number) => Int32Array.of(n),
    fieldLength: (n: number, field: number) => 10 * n + field,
    describesAll: (paths: readonly string[]) => paths.every((path, i) => path === `/s/${i + 1}`),
    build(n: number) {
      docs.builds++;
      return fakeDoc(n, `/s/${n}`);
    },
  };
  return docs;
}

test("stored documents are built once, on first use; removals and additions keep ids ascending", () => {
  let built = 0;
  const table = new DocTable(() => built++);
  const source = stored(4);
  table.adopt(source);
  assert.equal(table.size, 4);
  assert.equal(table.pristineStored, source);
  assert.equal(source.builds, 0);
  assert.equal(table.pathOf(3), "/s/3");
  assert.equal(table.itemIdOf(3), "id3");
  assert.equal(table.categoryOf(3), "c3");
  assert.deepEqual([...table.dataOf(3)!], [3]);
  assert.equal(table.fieldLengthOf(3, 2), 32);
  assert.equal(source.builds, 0, "paths, ids, categories, field data and field lengths need no document");
  const three = table.get(3)!;
  assert.equal(table.get(3), three);
  assert.equal(source.builds, 1);
  assert.equal(built, 1);
  table.delete(2);
  table.delete(2);
  assert.equal(table.size, 3);
  assert.equal(table.pristineStored, null);
  assert.equal(table.get(2), undefined);
  assert.equal(table.has(2), false);
  assert.equal(table.pathOf(2), undefined);
  assert.equal(table.fieldLengthOf(2, 0), 0);
  table.add(fakeDoc(5, "/a/5"));
  table.add(fakeDoc(6, "/a/6"));
  table.delete(5);
  assert.deepEqual([...table.keys()], [1, 3, 4, 6]);
  assert.deepEqual([...table.values()].map((d) => d.path), ["/s/1", "/s/3", "/s/4", "/a/6"]);
  assert.equal(table.has(99), false);
  assert.equal(table.get(0), undefined);
});
