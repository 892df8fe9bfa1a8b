/** /v1/tlog: signed-note checkpoints, C2SP tiles and entry bundles, inclusion and consistency proofs, every limit. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  concatBytes,
  decodeEntryBundle,
  fromBase64,
  leafHash,
  logLeaf,
  memoryNodeReader,
  type NoteVerifier,
  openNote,
  parseCheckpoint,
  parseNoteVerifierKey,
  toBase64,
  treeHash,
  verifyConsistency,
  verifyInclusion,
} from "@rye/core";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";
import { rotateRegistryKey } from "../keys/keyring.ts";
import { appendLogEntry } from "../services/publish-log.ts";
import { FULL_TILE_CACHE, PARTIAL_TILE_CACHE } from "./tlog.ts";

type Json = Record<string, any>;
let reg: TestRegistry;
let verifiers: NoteVerifier[];

async function append(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await reg.db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { kind: "item", item_type: "knowledge", id: `alice/notes/n${i}`, version: "1.0.0", content_hash: "ab".repeat(32), publisher: "alice" }));
  }
}

async function get(path: string) {
  const res = await reg.request("GET", path);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return { res, status: res.status, bytes, text, json: () => JSON.parse(text) as Json };
}

/** The checkpoint as a client reads it: the note opened with the published verifier keys. */
async function checkpoint() {
  const r = await get("/v1/tlog/checkpoint");
  assert.equal(r.status, 200);
  assert.equal(r.res.headers.get("cache-control"), "no-cache");
  assert.match(r.res.headers.get("content-type") ?? "", /^text\/plain/);
  const opened = await openNote(r.text, verifiers);
  assert.ok(opened.ok, JSON.stringify(opened));
  return { note: r.text, ...parseCheckpoint(opened.text)! };
}

/** The leaves as the log's entries define them (what a monitor recomputes from /v1/log/entries). */
async function leaves() {
  const rows = await reg.db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
  return rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })));
}

before(async () => {
  reg = await createTestRegistry({ config: { checkpoints: { intervalMs: 60_000, everyEntries: 1 } } });
  const info = (await get("/v1/tlog/info")).json();
  assert.equal(info.origin, "registry.test/v1/tlog");
  verifiers = (info.verifier_keys as string[]).map((k) => parseNoteVerifierKey(k)!);
  assert.equal(verifiers.length, 1);
});
after(() => reg.close());

describe("checkpoints, tiles and proofs", () => {
  test("the checkpoint is a signed note of the tree's root over the log's entries", async () => {
    const empty = await checkpoint();
    assert.equal(empty.origin, "registry.test/v1/tlog");
    assert.equal(empty.size, 0);
    await append(0, 100);
    const cp = await checkpoint();
    assert.equal(cp.size, 100);
    assert.equal(toBase64(cp.rootHash), toBase64(treeHash(100, memoryNodeReader(await leaves()))));
    assert.match(cp.note, /\n\n— registry\.test\/v1\/tlog [A-Za-z0-9+/=]+\n$/);
  });

  test("full tiles are immutable, partial ones short-lived; entry bundles hold the leaves; a tile not there yet is a 404", async () => {
    await append(100, 300);
    const cp = await checkpoint();
    assert.equal(cp.size, 300);
    const all = await leaves();
    const full = await get("/v1/tlog/tile/0/000");
    assert.equal(full.status, 200);
    assert.equal(full.res.headers.get("cache-control"), FULL_TILE_CACHE);
    assert.equal(full.res.headers.get("content-type"), "application/octet-stream");
    assert.deepEqual(full.bytes, concatBytes(...all.slice(0, 256)));
    const partial = await get("/v1/tlog/tile/0/001.p/44");
    assert.equal(partial.res.headers.get("cache-control"), PARTIAL_TILE_CACHE);
    assert.deepEqual(partial.bytes, concatBytes(...all.slice(256, 300)));
    assert.deepEqual((await get("/v1/tlog/tile/0/001.p/10")).bytes, concatBytes(...all.slice(256, 266)), "a narrower partial tile of a grown tree");
    assert.equal((await get("/v1/tlog/tile/1/000.p/1")).bytes.length, 32);
    const bundle = await get("/v1/tlog/tile/entries/001.p/44");
    assert.equal(bundle.status, 200);
    const entries = decodeEntryBundle(bundle.bytes)!;
    assert.equal(entries.length, 44);
    assert.deepEqual(entries.map(leafHash), all.slice(256, 300));
    assert.equal(JSON.parse(new TextDecoder().decode(entries[0])).index, 256);
    assert.equal(decodeEntryBundle((await get("/v1/tlog/tile/entries/000")).bytes)!.length, 256);
    for (const missing of ["0/001", "0/001.p/45", "1/000", "2/000.p/1", "0/x001/000", "entries/001", "entries/001.p/45", "entries/x009/x007/x199/x254/x740/990", "3/x009/x007/x199/x254/x740/990"]) {
      const r = await get(`/v1/tlog/tile/${missing}`);
      assert.equal(r.status, 404, missing);
      assert.equal(r.json().error.code, "NOT_FOUND");
    }
  });

  test("a full tile and a full entry bundle are served from memory once read; partial ones are read from the database", async () => {
    const before = await get("/v1/tlog/tile/0/000");
    const bundle = await get("/v1/tlog/tile/entries/000");
    const partial = await get("/v1/tlog/tile/0/001.p/44");
    const { rows } = await reg.db.raw.query<{ level: number; index: string; hashes: Uint8Array }>(`SELECT level, "index"::text, hashes FROM tlog_tiles WHERE level = 0`);
    const entry = await reg.db.prisma.publishLogEntry.findUniqueOrThrow({ where: { index: 3n } });
    try {
      await reg.db.raw.query(`UPDATE tlog_tiles SET hashes = decode(repeat('00', octet_length(hashes)), 'hex') WHERE level = 0`);
      await reg.db.prisma.publishLogEntry.update({ where: { index: 3n }, data: { payload: { changed: true } } });
      assert.deepEqual((await get("/v1/tlog/tile/0/000")).bytes, before.bytes, "a full tile never changes: the one read first is served");
      assert.deepEqual((await get("/v1/tlog/tile/entries/000")).bytes, bundle.bytes);
      assert.deepEqual((await get("/v1/tlog/tile/0/001.p/44")).bytes, new Uint8Array(partial.bytes.length), "a partial tile is read again");
    } finally {
      for (const r of rows) await reg.db.raw.query(`UPDATE tlog_tiles SET hashes = $1 WHERE level = 0 AND "index" = $2`, [Buffer.from(r.hashes), r.index]);
      await reg.db.prisma.publishLogEntry.update({ where: { index: 3n }, data: { payload: entry.payload as object } });
    }
  });

  test("malformed tile paths are 400s with the encoding as hint", async () => {
    for (const bad of ["8/000", "0/5", "0/0000", "0/x000/005", "0/000.p/256", "0/000.p/0", "0/000.p/x", "data/000", "0/000/", "-1/000", "0/x009/x007/x199/x254/x740/992"]) {
      const r = await get(`/v1/tlog/tile/${bad}`);
      assert.equal(r.status, 400, bad);
      const body = r.json();
      assert.equal(body.error.code, "BAD_REQUEST", bad);
      assert.match(body.error.hint, /x001\/x234\/067/);
    }
  });

  test("inclusion proofs verify against the signed root; consistency proofs link an older checkpoint to a newer", async () => {
    const old = { size: 100, root: treeHash(100, memoryNodeReader(await leaves())) };
    const cp = await checkpoint();
    for (const index of [0, 1, 99, 255, 256, 299]) {
      const r = await get(`/v1/tlog/proof/inclusion?index=${index}&tree_size=${cp.size}`);
      assert.equal(r.status, 200);
      const body = r.json();
      const leaf = fromBase64(body.leaf);
      assert.equal(JSON.parse(new TextDecoder().decode(leaf)).payload.id, `alice/notes/n${index}`);
      assert.ok(verifyInclusion(index, cp.size, leafHash(leaf), body.proof.map(fromBase64), cp.rootHash), `entry ${index}`);
    }
    const consistency = (await get(`/v1/tlog/proof/consistency?from=100&to=${cp.size}`)).json();
    assert.ok(verifyConsistency(100, cp.size, consistency.proof.map(fromBase64), old.root, cp.rootHash));
    assert.deepEqual((await get(`/v1/tlog/proof/consistency?from=${cp.size}&to=${cp.size}`)).json().proof, []);
  });

  test("proof parameters out of range are 400s", async () => {
    const size = (await checkpoint()).size;
    for (const query of [
      `inclusion?index=${size}&tree_size=${size}`,
      `inclusion?index=0&tree_size=${size + 1}`,
      "inclusion?index=-1&tree_size=3",
      "inclusion?index=1.5&tree_size=3",
      "inclusion?tree_size=3",
      `inclusion?index=0&tree_size=${2 ** 53}`,
      "consistency?from=5&to=4",
      `consistency?from=1&to=${size + 1}`,
      "consistency?from=abc&to=4",
    ]) {
      const r = await get(`/v1/tlog/proof/${query}`);
      assert.equal(r.status, 400, query);
      const body = r.json();
      assert.equal(body.error.code, "BAD_REQUEST", query);
      assert.ok(body.error.hint, query);
    }
  });
});

test("during a key rotation's overlap the checkpoint carries both keys' signatures; each key alone opens it", async () => {
  const before = await checkpoint();
  await new Promise((r) => setTimeout(r, 5)); // the keyring notices a new key file by its mtime
  await rotateRegistryKey({ db: reg.db, keyDir: reg.keyDir, registryUrl: "http://registry.test" });
  const info = (await get("/v1/tlog/info")).json();
  const [next, previous] = (info.verifier_keys as string[]).map((k) => parseNoteVerifierKey(k)!);
  assert.ok(next && previous);
  assert.deepEqual(previous, verifiers[0], "the retired key still cosigns, after the active one");
  const note = (await get("/v1/tlog/checkpoint")).text;
  assert.equal(note.split("\n— ").length - 1, 2, "two signature lines");
  for (const keys of [[next], [previous]]) {
    const opened = await openNote(note, keys);
    assert.ok(opened.ok);
    assert.equal(parseCheckpoint(opened.text)!.size, before.size + 1, "the rotation's own entry is covered");
  }
});

test("a checkpoint stored before the Merkle tree existed (no signed note) is signed anew when asked for", async () => {
  const latest = await reg.db.prisma.logCheckpoint.findFirstOrThrow({ orderBy: { treeSize: "desc" } });
  await reg.db.prisma.logCheckpoint.update({ where: { id: latest.id }, data: { note: null, rootHash: null } });
  const r = await get("/v1/tlog/checkpoint");
  assert.equal(r.status, 200);
  const keys = ((await get("/v1/tlog/info")).json().verifier_keys as string[]).map((k) => parseNoteVerifierKey(k)!);
  const opened = await openNote(r.text, keys);
  assert.ok(opened.ok);
  assert.equal(parseCheckpoint(opened.text)!.size, Number(latest.treeSize));
  assert.ok((await reg.db.prisma.logCheckpoint.findUniqueOrThrow({ where: { id: latest.id } })).rootHash);
});

test("the embedded database (PGlite) keeps the same tree: tiles, checkpoint and proofs", async () => {
  const embedded = await createTestRegistry({ kind: "pglite", config: { checkpoints: { intervalMs: 60_000, everyEntries: 1 } } });
  try {
    for (let i = 0; i < 3; i++) await embedded.db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { kind: "item", id: `alice/notes/n${i}`, version: "1.0.0" }));
    const rows = await embedded.db.prisma.publishLogEntry.findMany({ orderBy: { index: "asc" } });
    const expected = rows.map((r) => leafHash(logLeaf({ index: Number(r.index), kind: r.kind, payload: r.payload })));
    const keys = (((await (await embedded.request("GET", "/v1/tlog/info")).json()) as Json).verifier_keys as string[]).map((k) => parseNoteVerifierKey(k)!);
    const opened = await openNote(await (await embedded.request("GET", "/v1/tlog/checkpoint")).text(), keys);
    assert.ok(opened.ok);
    const cp = parseCheckpoint(opened.text)!;
    assert.equal(cp.size, 3);
    assert.equal(toBase64(cp.rootHash), toBase64(treeHash(3, memoryNodeReader(expected))));
    assert.deepEqual(new Uint8Array(await (await embedded.request("GET", "/v1/tlog/tile/0/000.p/3")).arrayBuffer()), concatBytes(...expected));
    const proof = (await (await embedded.request("GET", "/v1/tlog/proof/inclusion?index=1&tree_size=3")).json()) as Json;
    assert.ok(verifyInclusion(1, 3, expected[1]!, proof.proof.map(fromBase64), cp.rootHash));
  } finally {
    await embedded.close();
  }
});
