import assert from "node:assert/strict";
import { test } from "node:test";
import type { PostingList } from "./postings.ts";
import { appendPosting, countInField, FIELD_BITS, postingEntry, Postings } from "./postings.ts";

/** A stored block in local term numbering: [term, n, ids…, masks…]…; every mask here is the id × 10. */
const block = (...entries: [number, number[]][]) => Int32Array.from(entries.flatMap(([term, ids]) => [term, ids.length, ...ids, ...ids.map((id) => id * 10)]));
const plain = (list: PostingList | undefined) => list && { ids: [...list.ids], masks: [...list.masks] };

test("stored lists are read on demand in this process's term numbering, and changes shadow them", () => {
  const globalOf = Int32Array.from([7, 3, 5]); // local term → global term
  const postings = Postings.fromBlock(block([0, [1, 2]], [1, [2]], [2, [1, 3]]), 3, globalOf, 3)!;
  assert.equal(postings.storedEntries, 5);
  assert.deepEqual(plain(postings.get(7)), { ids: [1, 2], masks: [10, 20] });
  assert.deepEqual(plain(postings.get(3)), { ids: [2], masks: [20] });
  assert.equal(postings.get(0), undefined);
  assert.equal(postings.get(99), undefined);
  postings.set(3, appendPosting(postings.get(3), 4, 1));
  postings.delete(5);
  assert.deepEqual(postings.get(3), { ids: [2, 4], masks: [20, 1] });
  assert.equal(postings.get(5), undefined);
  postings.set(11, appendPosting(undefined, 4, 2));
  const all = new Map([...postings].map(([term, list]) => [term, plain(list)]));
  assert.deepEqual(all, new Map([[7, { ids: [1, 2], masks: [10, 20] }], [3, { ids: [2, 4], masks: [20, 1] }], [11, { ids: [4], masks: [2] }]]));
});

test("a block numbered by a function asks it once for each of the block's terms and for no other", () => {
  const asked: number[] = [];
  const globalOf = (local: number) => (asked.push(local), 100 + local);
  const postings = Postings.fromBlock(block([1, [1]], [4, [1, 2]]), 6, globalOf, 3)!;
  assert.deepEqual(asked, [1, 4]);
  assert.deepEqual(plain(postings.get(104)), { ids: [1, 2], masks: [10, 20] });
  assert.deepEqual(plain(postings.get(101)), { ids: [1], masks: [10] });
  assert.equal(postings.get(100), undefined);
  assert.equal(Postings.fromBlock(block([1, [1]], [2, [2]]), 3, () => 7, 3), null, "two local terms, one process term");
  assert.equal(Postings.fromBlock(block([3, [1]]), 3, globalOf, 3), null, "a term out of range");
});

test("appending to a growable list works in place; a stored list is copied first", () => {
  const grown = appendPosting({ ids: [1], masks: [3] }, 2, 4);
  const again = appendPosting(grown, 5, 1);
  assert.equal(again, grown);
  assert.deepEqual(again, { ids: [1, 2, 5], masks: [3, 4, 1] });
  const stored = { ids: Int32Array.from([1]), masks: Int32Array.from([3]) };
  const copied = appendPosting(stored, 2, 4);
  assert.notEqual(copied, stored);
  assert.deepEqual(plain(copied), { ids: [1, 2], masks: [3, 4] });
  assert.deepEqual([...stored.ids], [1]);
});

test("a block with a term out of range, a list past its end or a term twice is refused whole", () => {
  assert.equal(Postings.fromBlock(block([0, [1]], [1, [2]]), 2, Int32Array.from([4, 4]), 5), null, "two local terms, one process term");
  assert.equal(Postings.fromBlock(block([3, [1]]), 3, null, 5), null);
  assert.equal(Postings.fromBlock(Int32Array.from([0, 2, 1, 2, 10]), 3, null, 5), null);
  assert.equal(Postings.fromBlock(block([0, [1]], [0, [2]]), 3, null, 5), null);
  assert.equal(Postings.fromBlock(Int32Array.from([0, 0]), 3, null, 5), null);
  assert.ok(Postings.fromBlock(new Int32Array(0), 3, null, 5));
});

test("a stored list out of order or naming a document past the segment is dropped, not merged", () => {
  const postings = Postings.fromBlock(block([0, [2, 1]], [1, [1, 9]], [2, [1, 2]]), 3, null, 3)!;
  assert.equal(postings.get(0), undefined);
  assert.equal(postings.get(1), undefined);
  assert.deepEqual(plain(postings.get(2)), { ids: [1, 2], masks: [10, 20] });
  assert.deepEqual([...postings].map(([term]) => term), [2]);
});

test("a posting entry carries the term's count in each of its fields while the counts fit, and none otherwise", () => {
  assert.equal(postingEntry(0b100, [7]), 0b100 | (7 << 12));
  assert.equal(postingEntry(0b100, [7]) & FIELD_BITS, 0b100);
  assert.equal(countInField(postingEntry(0b100, [7]), 2), 7);
  assert.equal(countInField(postingEntry(0b100, [7]), 0), 0, "a field the term is not in");
  assert.equal(countInField(postingEntry(1 << 11, [2 ** 20 - 1]), 11), 2 ** 20 - 1, "one field: 20 bits");
  assert.equal(postingEntry(1 << 11, [2 ** 20]), 1 << 11, "too large: looked up instead");
  // Two fields: 10 bits each.
  const two = postingEntry(0b1010, [3, 1023]);
  assert.deepEqual([countInField(two, 1), countInField(two, 3), countInField(two, 0)], [3, 1023, 0]);
  assert.equal(postingEntry(0b1010, [3, 1024]), 0b1010, "a count over its 10 bits: no counts at all");
  // Every field: one bit each, so only counts of 1 fit.
  assert.equal(countInField(postingEntry(FIELD_BITS, new Array(12).fill(1)), 7), 1);
  assert.equal(postingEntry(FIELD_BITS, [...new Array(11).fill(1), 2]), FIELD_BITS);
  // Random masks and counts: whatever is encoded decodes to the same counts, or to none.
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 2000; round++) {
    const fields = 1 + random(FIELD_BITS);
    const slots = [...Array(12).keys()].filter((f) => fields & (1 << f));
    const counts = slots.map(() => 1 + random(round % 2 === 0 ? 8 : 4000));
    const entry = postingEntry(fields, counts);
    assert.equal(entry | 0, entry, "fits an Int32Array element");
    assert.equal(entry & FIELD_BITS, fields);
    const decoded = slots.map((f) => countInField(entry, f));
    if (decoded.some((c) => c > 0)) assert.deepEqual(decoded, counts, `fields ${fields.toString(2)}`);
    else assert.ok(counts.some((c) => c >= 2 ** Math.floor(20 / slots.length)), "dropped only when a count does not fit");
  }
});
