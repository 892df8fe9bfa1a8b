/**
 * A large publish log for the transparency-log bench, written straight into an empty registry database: the entries
 * (hash chain included) and the Merkle tiles computed in memory with @rye/core's own tile functions, then inserted a
 * batch at a time (one multi-row INSERT … SELECT FROM unnest per table and batch), instead of one append per entry.
 * What it writes is exactly what `count` appends would have written (the test in tlog-log.test.ts checks it).
 */
import { leafHash, LOG_GENESIS_HASH, logEntryHash, nodeHash, sha256Hex, type TileId, tileAppendsFor, TILE_WIDTH, HASH_SIZE } from "@rye/core";
import type { Database } from "@rye/db";
import { entryLeaf } from "../src/services/log-tree.ts";

/** Entries per INSERT: a multiple of the tile width, so full tiles leave memory as they are written. */
export const GENERATE_BATCH = 40 * TILE_WIDTH;

export interface GeneratedLog {
  size: number;
  /** The root computed on the side from a frontier of subtree roots (not from the tiles written). */
  root: Uint8Array;
  headHash: string;
}

/** The payload of generated entry `i`: a publish of a public knowledge item, as the registry logs one. */
export function generatedPayload(i: number): Record<string, unknown> {
  return { kind: "item", item_type: "knowledge", id: `gen/notes/n${i}`, version: "1.0.0", content_hash: sha256Hex(`gen ${i}`), publisher: "gen" };
}

const tileKey = (t: TileId) => `${t.level}/${t.index}`;

/** The root of the leaves seen so far, kept as the roots of its perfect subtrees (largest first). */
class Frontier {
  private readonly stack: { size: number; hash: Uint8Array }[] = [];

  push(leaf: Uint8Array): void {
    let node = { size: 1, hash: leaf };
    while (this.stack.length > 0 && this.stack.at(-1)!.size === node.size) {
      const left = this.stack.pop()!;
      node = { size: left.size * 2, hash: nodeHash(left.hash, node.hash) };
    }
    this.stack.push(node);
  }

  root(): Uint8Array {
    let hash = this.stack.at(-1)!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) hash = nodeHash(this.stack[i]!.hash, hash);
    return hash;
  }
}

/**
 * Writes `count` entries (payloads from `payload`) and their tiles into `db`, whose log must be empty. `progress`
 * hears the size after each batch.
 */
export async function generateLog(db: Database, count: number, options: { payload?: (i: number) => Record<string, unknown>; progress?: (size: number) => void } = {}): Promise<GeneratedLog> {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`a generated log has at least one entry, not ${count}`);
  const payloadOf = options.payload ?? generatedPayload;
  const existing = await db.raw.query<{ n: string }>("SELECT (SELECT count(*) FROM publish_log_entries) + (SELECT count(*) FROM tlog_tiles) AS n");
  if (Number(existing.rows[0]!.n) !== 0) throw new Error("generateLog writes into an empty log only");
  const tiles = new Map<string, { tile: TileId; hashes: Uint8Array; width: number }>();
  const frontier = new Frontier();
  const completed = (t: TileId) => {
    const slot = tiles.get(tileKey(t));
    return slot?.hashes.subarray(0, slot.width * HASH_SIZE);
  };
  let prevHash = LOG_GENESIS_HASH;
  for (let start = 0; start < count; start += GENERATE_BATCH) {
    const end = Math.min(count, start + GENERATE_BATCH);
    const rows = { index: [] as number[], kind: [] as string[], payload: [] as string[], prev: [] as string[], hash: [] as string[] };
    for (let n = start; n < end; n++) {
      const kind = "publish";
      const payload = payloadOf(n);
      const entryHash = logEntryHash({ index: n, kind, payload, prev_hash: prevHash });
      rows.index.push(n);
      rows.kind.push(kind);
      rows.payload.push(JSON.stringify(payload));
      rows.prev.push(prevHash);
      rows.hash.push(entryHash);
      prevHash = entryHash;
      const leaf = leafHash(entryLeaf({ index: n, kind, payload }));
      frontier.push(leaf);
      for (const a of tileAppendsFor(n, leaf, completed)) {
        const k = tileKey(a.tile);
        let slot = tiles.get(k);
        if (!slot) tiles.set(k, (slot = { tile: a.tile, hashes: new Uint8Array(TILE_WIDTH * HASH_SIZE), width: 0 }));
        if (slot.width !== a.offset) throw new Error(`tile ${k} holds ${slot.width} hashes, expected ${a.offset}`);
        slot.hashes.set(a.hash, a.offset * HASH_SIZE);
        slot.width++;
      }
    }
    await db.raw.query(
      `INSERT INTO publish_log_entries ("index", kind, payload, prev_hash, entry_hash)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::bpchar[], $5::bpchar[])`,
      [rows.index, rows.kind, rows.payload, rows.prev, rows.hash],
    );
    // Full tiles are final: written once and dropped from memory. Partial ones wait for the last batch.
    const last = end === count;
    const ready = [...tiles.values()].filter((s) => last || s.width === TILE_WIDTH);
    if (ready.length > 0) {
      await db.raw.query(`INSERT INTO tlog_tiles (level, "index", hashes) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`, [
        ready.map((s) => s.tile.level),
        ready.map((s) => s.tile.index),
        ready.map((s) => Buffer.from(s.hashes.subarray(0, s.width * HASH_SIZE))),
      ]);
      for (const s of ready) tiles.delete(tileKey(s.tile));
    }
    options.progress?.(end);
  }
  // A log built by appends over months has its rows frozen, hinted and analyzed; a bulk load has none of that until
  // autovacuum passes, and its first readers would pay for it (hint-bit writes, plans without statistics).
  if (db.kind === "postgres") await db.raw.query("VACUUM (ANALYZE) publish_log_entries, tlog_tiles");
  return { size: count, root: frontier.root(), headHash: prevHash };
}
