import assert from "node:assert/strict";
import { test } from "node:test";
import { Postings } from "./postings.ts";

/** A stored block in local term numbering: [term, n, ids…]… */
const block = (...entries: [number, number[]][]) => Int32Array.from(entries.flatMap(([term, ids]) => [term, ids.length, ...ids]));
const identity = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

test("stored lists are read on demand in this process's term numbering, and changes shadow them", () => {
  const globalOf = Int32Array.from([7, 3, 5]); // local term → global term
  const postings = Postings.fromBlock(block([0, [1, 2]], [1, [2]], [2, [1, 3]]), globalOf, 3)!;
  assert.equal(postings.storedEntries, 5);
  assert.deepEqual([...postings.get(7)!], [1, 2]);
  assert.deepEqual([...postings.get(3)!], [2]);
  assert.equal(postings.get(0), undefined);
  assert.equal(postings.get(99), undefined);
  postings.set(3, [2, 4]);
  postings.delete(5);
  assert.deepEqual(postings.get(3), [2, 4]);
  assert.equal(postings.get(5), undefined);
  postings.set(11, [4]);
  const all = new Map([...postings].map(([term, list]) => [term, [...list]]));
  assert.deepEqual(all, new Map([[7, [1, 2]], [3, [2, 4]], [11, [4]]]));
});

test("a block with a term out of range, a list past its end or a term twice is refused whole", () => {
  assert.equal(Postings.fromBlock(block([3, [1]]), identity(3), 5), null);
  assert.equal(Postings.fromBlock(Int32Array.from([0, 4, 1, 2]), identity(3), 5), null);
  assert.equal(Postings.fromBlock(block([0, [1]], [0, [2]]), identity(3), 5), null);
  assert.equal(Postings.fromBlock(Int32Array.from([0, 0]), identity(3), 5), null);
  assert.ok(Postings.fromBlock(new Int32Array(0), identity(3), 5));
});

test("a stored list out of order or naming a document past the segment is dropped, not merged", () => {
  const postings = Postings.fromBlock(block([0, [2, 1]], [1, [1, 9]], [2, [1, 2]]), identity(3), 3)!;
  assert.equal(postings.get(0), undefined);
  assert.equal(postings.get(1), undefined);
  assert.deepEqual([...postings.get(2)!], [1, 2]);
  assert.deepEqual([...postings].map(([term]) => term), [2]);
});
