/**
 * The right edge of an RFC 6962 tree built leaf by leaf: the roots of the perfect subtrees the first `size` leaves
 * make (at most one per level, left to right, largest first). Appending a leaf merges equal-sized subtrees; the root
 * is their right fold. O(log size) hashes, so a monitor follows a log of any length in bounded memory.
 */
import { emptyTreeHash, nodeHash, perfectSubtrees } from "@rye/core";

export interface Frontier {
  size: number;
  /** Subtree roots with their levels (2^level leaves), left to right. */
  nodes: { level: number; hash: Uint8Array }[];
}

export function emptyFrontier(): Frontier {
  return { size: 0, nodes: [] };
}

/** The frontier of a tree of `size` leaves from its subtree roots (left to right); null when the count is wrong. */
export function frontierOf(size: number, hashes: readonly Uint8Array[]): Frontier | null {
  const levels = size === 0 ? [] : perfectSubtrees({ lo: 0, hi: size }).map((n) => n.level);
  if (levels.length !== hashes.length) return null;
  return { size, nodes: levels.map((level, i) => ({ level, hash: hashes[i]! })) };
}

export function appendLeaf(frontier: Frontier, leafHash: Uint8Array): void {
  let node = { level: 0, hash: leafHash };
  while (frontier.nodes.length > 0 && frontier.nodes.at(-1)!.level === node.level) {
    const left = frontier.nodes.pop()!;
    node = { level: node.level + 1, hash: nodeHash(left.hash, node.hash) };
  }
  frontier.nodes.push(node);
  frontier.size += 1;
}

/** MTH of the leaves so far (RFC 6962 §2.1). */
export function frontierRoot(frontier: Frontier): Uint8Array {
  if (frontier.nodes.length === 0) return emptyTreeHash();
  let root = frontier.nodes.at(-1)!.hash;
  for (let i = frontier.nodes.length - 2; i >= 0; i--) root = nodeHash(frontier.nodes[i]!.hash, root);
  return root;
}
