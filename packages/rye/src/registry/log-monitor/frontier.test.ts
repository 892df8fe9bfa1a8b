/** The monitor's frontier builds exactly the RFC 6962 root, and restarts from a kept or tile-read frontier. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { leafHash, memoryNodeReader, perfectSubtrees, toBase64, treeHash, utf8Encode } from "@rye/core";
import { appendLeaf, emptyFrontier, frontierOf, frontierRoot } from "./frontier.ts";

const leaves = Array.from({ length: 300 }, (_, i) => leafHash(utf8Encode(`leaf ${i}`)));

test("the root after each append is the RFC 6962 tree hash of the leaves so far (sizes 0..300)", () => {
  const frontier = emptyFrontier();
  assert.equal(toBase64(frontierRoot(frontier)), toBase64(treeHash(0, memoryNodeReader([]))));
  for (let n = 1; n <= leaves.length; n++) {
    appendLeaf(frontier, leaves[n - 1]!);
    assert.equal(toBase64(frontierRoot(frontier)), toBase64(treeHash(n, memoryNodeReader(leaves.slice(0, n)))), `size ${n}`);
    assert.equal(frontier.size, n);
    assert.ok(frontier.nodes.length <= Math.ceil(Math.log2(n + 1)), "one subtree per level at most");
  }
});

test("a frontier made from subtree roots continues like the one built leaf by leaf; a wrong count is refused", () => {
  const read = memoryNodeReader(leaves);
  for (const start of [1, 5, 64, 255, 256, 257]) {
    const roots = perfectSubtrees({ lo: 0, hi: start }).map((n) => read(n.level, n.index));
    const frontier = frontierOf(start, roots)!;
    for (let i = start; i < leaves.length; i++) appendLeaf(frontier, leaves[i]!);
    assert.equal(toBase64(frontierRoot(frontier)), toBase64(treeHash(leaves.length, read)), `from ${start}`);
  }
  assert.equal(frontierOf(5, [leaves[0]!]), null);
});
