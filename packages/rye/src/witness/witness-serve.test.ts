/**
 * `rye witness serve` as a real process, fed checkpoints of an in-memory log: it cosigns only a tree that extends
 * the one it cosigned last (C2SP tlog-witness statuses), keeps that across a restart, and enforces its limits.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  consistencyProof,
  formatCheckpoint,
  generateKeyPair,
  type KeyPair,
  leafHash,
  memoryNodeReader,
  noteVerifierKey,
  parseCosignerVerifierKey,
  signNote,
  toBase64,
  treeHash,
  utf8Encode,
  verifiedCosignatures,
} from "@rye/core";
import { runRye } from "../../test/cli.ts";
import { startWitnessProcess, type WitnessProcess } from "../../test/witness-process.ts";
import { WITNESS_LIMITS } from "./add-checkpoint.ts";

const ORIGIN = "log.example/v1/tlog";
let home: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let logKey: KeyPair;
let witnessKey: string;
let witness: WitnessProcess;
let stateSize = 30;

const leaves = (n: number, salt = "") => Array.from({ length: n }, (_, i) => leafHash(utf8Encode(`entry ${i}${salt}`)));

async function checkpoint(hashes: Uint8Array[], key = logKey, origin = ORIGIN): Promise<string> {
  return signNote(formatCheckpoint({ origin, size: hashes.length, rootHash: treeHash(hashes.length, memoryNodeReader(hashes)) }), origin, [key]);
}

function body(old: number, proof: Uint8Array[], note: string): string {
  return `old ${old}\n${proof.map((p) => `${toBase64(p)}\n`).join("")}\n${note}`;
}

async function add(text: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${witness.url}/add-checkpoint`, { method: "POST", body: text });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

const start = () => startWitnessProcess(["--dir", dir, "--log", noteVerifierKey(ORIGIN, logKey.publicKey.raw)], env);

describe("rye witness serve", () => {
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "rye-witness-"));
    dir = join(home, "w");
    env = { ...process.env, USER_SPACE: home, RYE_NO_UPDATE_CHECK: "1" };
    logKey = await generateKeyPair();
    const made = await runRye(["witness", "keygen", "--name", "witness.test/w1", "--dir", dir], { env });
    assert.equal(made.code, 0, made.stderr);
    witnessKey = made.stdout.trim();
    assert.equal((await runRye(["witness", "key", "--dir", dir], { env })).stdout.trim(), witnessKey);
    assert.notEqual((await runRye(["witness", "keygen", "--name", "witness.test/w1", "--dir", dir], { env })).code, 0, "an existing key is never replaced without --force");
    witness = await start();
  });
  after(async () => {
    await witness?.stop();
    await rm(home, { recursive: true, force: true });
  });

  test("cosigns a first checkpoint, then only trees that extend it; answers 409 with its size to a wrong old size", async () => {
    const first = leaves(5);
    const note5 = await checkpoint(first);
    const ok = await add(body(0, [], note5));
    assert.equal(ok.status, 200, ok.text);
    const verifier = parseCosignerVerifierKey(witnessKey)!;
    assert.equal((await verifiedCosignatures(note5 + ok.text, [verifier])).length, 1, "a valid cosignature by the witness key");
    assert.match(ok.text, /^— witness\.test\/w1 \S+\n$/);

    const conflict = await add(body(0, [], note5));
    assert.deepEqual([conflict.status, conflict.type, conflict.text], [409, "text/x.tlog.size", "5\n"]);

    const grown = leaves(12);
    const proof = consistencyProof(5, 12, memoryNodeReader(grown));
    const note12 = await checkpoint(grown);
    assert.equal((await add(body(5, proof, note12))).status, 200);

    // A split view: another tree of size 20 that does not extend the 12 cosigned.
    const forked = [...grown.slice(0, 11), ...leaves(9, "fork")];
    const forkedProof = consistencyProof(12, 20, memoryNodeReader(forked));
    const refused = await add(body(12, forkedProof, await checkpoint(forked)));
    assert.equal(refused.status, 422, refused.text);
    // The same size with another root.
    const sameSize = [...grown.slice(0, 11), leafHash(utf8Encode("other"))];
    assert.equal((await add(body(12, [], await checkpoint(sameSize)))).status, 409);
    // A smaller tree: old 12 is larger than its size.
    assert.equal((await add(body(12, [], await checkpoint(grown.slice(0, 8))))).status, 400);
    // The same checkpoint again is cosigned again (it is still the largest it saw).
    assert.equal((await add(body(12, [], note12))).status, 200);
  });

  test("the state survives a restart: the forked tree is still refused, the real one still extends", async () => {
    await witness.stop();
    witness = await start();
    const conflict = await add(body(0, [], await checkpoint(leaves(3))));
    assert.deepEqual([conflict.status, conflict.text], [409, "12\n"]);
    const forked = [...leaves(11), ...leaves(9, "fork")];
    assert.equal((await add(body(12, consistencyProof(12, 20, memoryNodeReader(forked)), await checkpoint(forked)))).status, 422);
    const grown = leaves(30);
    assert.equal((await add(body(12, consistencyProof(12, 30, memoryNodeReader(grown)), await checkpoint(grown)))).status, 200);
  });

  test("concurrent requests from one old size: exactly one is cosigned, the others are told the new size (check and write are atomic)", async () => {
    const grown = leaves(60);
    const read = memoryNodeReader(grown);
    const sizes = Array.from({ length: 10 }, (_, i) => 31 + i);
    const notes = await Promise.all(sizes.map((n) => checkpoint(grown.slice(0, n))));
    const answers = await Promise.all(sizes.map((n, i) => add(body(30, consistencyProof(30, n, read), notes[i]!))));
    const won = answers.flatMap((a, i) => (a.status === 200 ? [sizes[i]!] : []));
    assert.equal(won.length, 1, `one winner (${answers.map((a) => a.status).join(",")})`);
    for (const a of answers.filter((x) => x.status !== 200)) assert.deepEqual([a.status, a.text], [409, `${won[0]}\n`]);
    // Back to 30 for the next tests is impossible (never smaller): the winner's size is the state now.
    const again = await add(body(0, [], notes[0]!));
    assert.deepEqual([again.status, again.text], [409, `${won[0]}\n`]);
    stateSize = won[0]!;
  });

  test("a second process on the same directory refuses to start", async () => {
    await assert.rejects(start(), /Another witness process/);
  });

  test("refuses what it cannot trust: unknown origin 404, a checkpoint not signed by the log 403, malformed 400", async () => {
    assert.equal((await add(body(0, [], await checkpoint(leaves(2), logKey, "other.example/v1/tlog")))).status, 404);
    const stranger = await generateKeyPair();
    assert.equal((await add(body(0, [], await checkpoint(leaves(40), stranger)))).status, 403);
    // Signed by the log's key, but the signature does not verify (the text was changed after signing).
    const tampered = (await checkpoint(leaves(70))).replace(/\n70\n/, "\n71\n");
    assert.equal((await add(body(stateSize, [], tampered))).status, 403);
    for (const bad of ["", "old 1\n", "old -1\n\nx\n\n— a AAAA\n", "old 01\n\n" + (await checkpoint(leaves(40))), `old ${stateSize}\nnot base64\n\n${await checkpoint(leaves(60))}`]) {
      assert.equal((await add(bad)).status, 400, JSON.stringify(bad.slice(0, 30)));
    }
    const get = await fetch(`${witness.url}/add-checkpoint`);
    assert.equal(get.status, 405);
    assert.equal((await fetch(`${witness.url}/elsewhere`, { method: "POST", body: "x" })).status, 404);
  });

  test("limits: body size (413), proof lines, line length", async () => {
    const big = await add("old 0\n\n" + "a".repeat(WITNESS_LIMITS.maxBodyBytes));
    assert.equal(big.status, 413);
    const grown = leaves(60);
    const note = await checkpoint(grown);
    const tooMany = Array.from({ length: WITNESS_LIMITS.maxProofLines + 1 }, () => new Uint8Array(32));
    const r = await add(body(stateSize, tooMany, note));
    assert.deepEqual([r.status, r.text.trim()], [400, `more than ${WITNESS_LIMITS.maxProofLines} consistency proof lines`]);
    const atLimit = await add(body(stateSize, tooMany.slice(1), note));
    assert.equal(atLimit.status, 422, "63 lines are read (and do not verify)");
    const longLine = await add(`old ${stateSize}\n\n${"x".repeat(WITNESS_LIMITS.maxLineBytes + 1)}\n1\nAAAA\n\n— x AAAA\n`);
    assert.deepEqual([longLine.status, longLine.text.trim()], [400, `a line is longer than ${WITNESS_LIMITS.maxLineBytes} bytes`]);
    // Nothing above moved the state.
    const still = await add(body(0, [], note));
    assert.deepEqual([still.status, still.text], [409, `${stateSize}\n`]);
  });
});
