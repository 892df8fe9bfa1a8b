/**
 * Witness rounds on checkpoints (services/witnesses.ts, checkpoints.ts) against real `rye witness serve` processes and
 * stub witnesses that are down, hang or lie: cosignatures are collected with valid consistency proofs, a witness's
 * size is learnt from its 409, a bad witness never fails the checkpoint, and a split view (the same key signing two
 * trees) is cosigned on one side only.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, cosignerVerifierKey, generateKeyPair, RyeError, type KeyPair, noteVerifierKey, openNote, parseCosignerVerifierKey, parseNoteVerifierKey, verifiedCosignatures } from "@rye/core";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { runRye } from "../../../../packages/rye/test/cli.ts";
import { startWitnessProcess, type WitnessProcess } from "../../../../packages/rye/test/witness-process.ts";
import type { Logger } from "../logger.ts";
import { type CheckpointContext, currentCheckpointRow } from "./checkpoints.ts";
import { appendLogEntry } from "./publish-log.ts";
import { loadConfig } from "../config.ts";
import { MAX_WITNESSES, parseWitnessList, WitnessCollector, type WitnessEndpoint } from "./witnesses.ts";

const REGISTRY = "http://registry.test";
const ORIGIN = "registry.test/v1/tlog";
let home: string;
let key: KeyPair;
let w1: WitnessProcess;
let w1Key: string;
let stubs: Server[] = [];

async function witnessProcess(name: string): Promise<{ proc: WitnessProcess; vkey: string }> {
  const env = { ...process.env, USER_SPACE: home, RYE_NO_UPDATE_CHECK: "1" };
  const dir = join(home, name.replace(/\W/g, "_"));
  const made = await runRye(["witness", "keygen", "--name", name, "--dir", dir], { env });
  assert.equal(made.code, 0, made.stderr);
  return { proc: await startWitnessProcess(["--dir", dir, "--log", noteVerifierKey(ORIGIN, key.publicKey.raw)], env), vkey: made.stdout.trim() };
}

async function stub(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  stubs.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function endpoint(url: string, vkey: string): WitnessEndpoint {
  return parseWitnessList(`${url} ${vkey}`)[0]!;
}

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, log: (level, msg, fields) => lines.push(JSON.stringify({ level, msg, ...fields })) };
}

async function append(db: Database, n: number, tag = ""): Promise<void> {
  for (let i = 0; i < n; i++) await db.prisma.$transaction((tx) => appendLogEntry(tx, "publish", { n: i, tag }));
}

function context(db: Database, witnesses: WitnessCollector | null, policy: CheckpointContext["policy"] = { everyEntries: 1 }): CheckpointContext {
  return { db, signer: async () => key, registryUrl: REGISTRY, witnesses, policy };
}

async function cosignedBy(note: string, vkey: string): Promise<number> {
  return (await verifiedCosignatures(note, [parseCosignerVerifierKey(vkey)!])).length;
}

describe("witness rounds", () => {
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "rye-witness-rounds-"));
    key = await generateKeyPair();
    ({ proc: w1, vkey: w1Key } = await witnessProcess("w1.test/witness"));
  });
  after(async () => {
    await w1?.stop();
    for (const s of stubs) s.closeAllConnections(), s.close();
    await rm(home, { recursive: true, force: true });
  });

  test("collects a cosignature for each new checkpoint (with a consistency proof the witness accepts), stores it, serves it; a fresh process learns the witness's size from its 409", async () => {
    const db = await openTestDatabase("pglite");
    try {
      const logger = recorder();
      const collector = new WitnessCollector([endpoint(w1.url, w1Key)], 5000, db, logger);
      await append(db, 3);
      const first = await currentCheckpointRow(context(db, collector));
      assert.equal(Number(first.treeSize), 3);
      assert.equal(await cosignedBy(first.note, w1Key), 1);
      assert.ok((await openNote(first.note, [parseNoteVerifierKey(noteVerifierKey(ORIGIN, key.publicKey.raw))!])).ok, "the registry's own signature still opens the served note");
      const stored = await db.prisma.logCheckpoint.findUniqueOrThrow({ where: { treeSize: 3n } });
      assert.ok(stored.witnessedAt);
      assert.equal(stored.note + stored.cosignatures!, first.note);
      assert.equal((await currentCheckpointRow(context(db, collector))).note, first.note, "served again as stored, not re-asked");

      await append(db, 6);
      const second = await currentCheckpointRow(context(db, collector));
      assert.equal(Number(second.treeSize), 9);
      assert.equal(await cosignedBy(second.note, w1Key), 1, "the witness verified the proof from 3 to 9");

      await append(db, 4);
      const fresh = new WitnessCollector([endpoint(w1.url, w1Key)], 5000, db, logger); // a restarted registry: sizes unknown
      const third = await currentCheckpointRow(context(db, fresh));
      assert.equal(Number(third.treeSize), 13);
      assert.equal(await cosignedBy(third.note, w1Key), 1, "asked with old 0, told 9 (409), retried with the proof from 9");
      assert.deepEqual(logger.lines, [], "no witness trouble logged");
    } finally {
      await db.close();
    }
  });

  test("a witness that is down, hangs, refuses or lies costs at most its timeout and never fails the checkpoint; logs carry no credentials", async () => {
    const db = await openTestDatabase("pglite");
    const { proc: w8, vkey: w8Key } = await witnessProcess("w8.test/witness"); // its own: w1 saw another tree of this origin
    try {
      let seenAuthorization: string | undefined;
      const hanging = await stub((req) => void (seenAuthorization = req.headers.authorization)); // never answers
      const liar = await stub((_req, res) => res.end("— w3.test/liar AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"));
      const refusing = await stub((_req, res) => res.writeHead(403).end("no\n"));
      const down = await stub(() => {});
      stubs.at(-1)!.close(); // closed: connection refused
      const other = await generateKeyPair();
      const logger = recorder();
      const secretUrl = hanging.replace("http://", "http://operator:s3cret@");
      const collector = new WitnessCollector(
        [
          endpoint(w8.url, w8Key),
          endpoint(secretUrl, cosignerVerifierKey("w2.test/hang", other.publicKey.raw)),
          endpoint(liar, cosignerVerifierKey("w3.test/liar", other.publicKey.raw)),
          endpoint(refusing, cosignerVerifierKey("w4.test/refuse", other.publicKey.raw)),
          endpoint(down, cosignerVerifierKey("w5.test/down", other.publicKey.raw)),
        ],
        400,
        db,
        logger,
      );
      await append(db, 2, "b");
      const started = Date.now();
      const row = await currentCheckpointRow(context(db, collector));
      const took = Date.now() - started;
      assert.ok(took < 3000, `bounded by the 400 ms witness timeout (took ${took} ms)`);
      assert.equal(await cosignedBy(row.note, w8Key), 1);
      const lines = (row.note.split("\n\n")[1] ?? "").split("\n").filter(Boolean);
      assert.equal(lines.length, 2, "the registry's signature and w8's cosignature only");
      const msgs = logger.lines.map((l) => JSON.parse(l) as { msg: string; witness: string; error?: string });
      assert.deepEqual(msgs.map((m) => m.witness).sort(), ["w2.test/hang", "w3.test/liar", "w4.test/refuse", "w5.test/down"]);
      assert.match(msgs.find((m) => m.witness === "w2.test/hang")!.error!, /no answer within 400 ms/);
      assert.ok(!logger.lines.join("\n").includes("s3cret"), "a witness URL's credentials are never logged");
      assert.equal(seenAuthorization, `Basic ${Buffer.from("operator:s3cret").toString("base64")}`, "they are sent as Basic authorization");
    } finally {
      await w8.stop();
      await db.close();
    }
  });

  test("a cosignature dated beyond the clock-skew allowance is left out and logged; the witness's size is still learnt", async () => {
    const db = await openTestDatabase("pglite");
    try {
      const { proc, vkey } = await witnessProcess("w9.test/witness");
      try {
        const logger = recorder();
        // This server's clock an hour behind the witness's: the real witness's cosignature is dated an hour ahead.
        let skew = -3_600_000;
        const collector = new WitnessCollector([endpoint(proc.url, vkey)], 5000, db, logger, fetch, () => Date.now() + skew);
        await append(db, 2, "e");
        const ahead = await currentCheckpointRow(context(db, collector));
        assert.equal(await cosignedBy(ahead.note, vkey), 0, "served without it");
        const [line] = logger.lines.map((l) => JSON.parse(l) as { msg: string; witness: string; witness_time: number; server_time: number; allowed_skew_s: number });
        assert.match(line!.msg, /dated its cosignature in the future/);
        assert.equal(line!.witness, "w9.test/witness");
        assert.equal(line!.allowed_skew_s, COSIGNATURE_MAX_FUTURE_SKEW_SECONDS);
        assert.ok(line!.witness_time - line!.server_time > 3000, JSON.stringify(line));
        // Within the allowance (5 minutes behind), the next round's cosignature counts, proven from the size the witness recorded.
        skew = -300_000;
        await append(db, 3, "e");
        const within = await currentCheckpointRow(context(db, collector));
        assert.equal(await cosignedBy(within.note, vkey), 1);
        assert.equal(logger.lines.length, 1, "no 409 round trip, no other warning");
      } finally {
        await proc.stop();
      }
    } finally {
      await db.close();
    }
  });

  test("atLeast issues a checkpoint now, whatever the interval; without it the policy decides", async () => {
    const db = await openTestDatabase("pglite");
    try {
      const lazy = { everyEntries: 1000, intervalMs: 3_600_000 };
      await append(db, 3, "c");
      assert.equal(Number((await currentCheckpointRow(context(db, null, lazy))).treeSize), 3);
      await append(db, 2, "c");
      assert.equal(Number((await currentCheckpointRow(context(db, null, lazy))).treeSize), 3, "not due");
      assert.equal(Number((await currentCheckpointRow(context(db, null, lazy), { atLeast: 4 })).treeSize), 5);
      assert.equal(Number((await currentCheckpointRow(context(db, null, lazy), { atLeast: 5 })).treeSize), 5, "already large enough: not re-issued");
      assert.equal(await db.prisma.logCheckpoint.count(), 2);
    } finally {
      await db.close();
    }
  });

  test("concurrent callers: the issuer waits for its round; the others get a cosigned checkpoint too (at least atLeast when asked)", async () => {
    const db = await openTestDatabase("pglite");
    try {
      const { proc, vkey } = await witnessProcess("w6.test/witness");
      try {
        const collector = new WitnessCollector([endpoint(proc.url, vkey)], 5000, db, recorder());
        await append(db, 4, "d");
        await currentCheckpointRow(context(db, collector));
        await append(db, 3, "d");
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => currentCheckpointRow(context(db, collector), i % 2 ? { atLeast: 7 } : {})));
        for (const [i, a] of answers.entries()) {
          assert.equal(await cosignedBy(a.note, vkey), 1, `answer ${i} is cosigned`);
          if (i % 2) assert.equal(Number(a.treeSize), 7, `answer ${i} asked for at least 7`);
        }
      } finally {
        await proc.stop();
      }
    } finally {
      await db.close();
    }
  });

  test("a split view: the same registry key signs two different trees; the witness cosigns the first it sees and refuses the other", async () => {
    const [a, b] = [await openTestDatabase("pglite"), await openTestDatabase("pglite")];
    try {
      const { proc, vkey } = await witnessProcess("w7.test/witness");
      try {
        await append(a, 5, "honest");
        await append(b, 7, "forked");
        const logger = recorder();
        const honest = await currentCheckpointRow(context(a, new WitnessCollector([endpoint(proc.url, vkey)], 5000, a, logger)));
        const forked = await currentCheckpointRow(context(b, new WitnessCollector([endpoint(proc.url, vkey)], 5000, b, logger)));
        assert.equal(await cosignedBy(honest.note, vkey), 1);
        assert.equal(await cosignedBy(forked.note, vkey), 0, "the other tree is served without the witness");
        assert.ok((await openNote(forked.note, [parseNoteVerifierKey(noteVerifierKey(ORIGIN, key.publicKey.raw))!])).ok, "though the registry key signed it");
        assert.match(logger.lines.join("\n"), /witness refused the checkpoint.*"status":422/);
      } finally {
        await proc.stop();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});

test("RYE_WITNESSES parsing", async () => {
  const k = await generateKeyPair();
  const vkey = cosignerVerifierKey("w.test/1", k.publicKey.raw);
  assert.deepEqual(parseWitnessList(""), []);
  assert.equal(parseWitnessList(`https://w.test/x/ ${vkey},\n https://v.test ${cosignerVerifierKey("v.test", k.publicKey.raw)}`).length, 2);
  assert.equal(parseWitnessList(`https://w.test/x/ ${vkey}`)[0]!.url, "https://w.test/x");
  assert.throws(() => parseWitnessList(Array.from({ length: MAX_WITNESSES + 1 }, (_, i) => `https://w${i}.test ${cosignerVerifierKey(`w${i}.test`, k.publicKey.raw)}`).join(",")), /at most 32 witnesses/);
  assert.equal(parseWitnessList(Array.from({ length: MAX_WITNESSES }, (_, i) => `https://w${i}.test ${cosignerVerifierKey(`w${i}.test`, k.publicKey.raw)}`).join(",")).length, MAX_WITNESSES);
  const config = loadConfig({ RYE_WITNESSES: `https://w.test ${vkey}`, RYE_WITNESS_TIMEOUT_MS: "60000" });
  assert.deepEqual([config.witnesses.list.map((w) => w.verifier.name), config.witnesses.timeoutMs], [["w.test/1"], 60_000]);
  assert.equal(loadConfig({}).witnesses.timeoutMs, 5000);
  assert.throws(() => loadConfig({ RYE_WITNESS_TIMEOUT_MS: "60001" }), /at most 60000 ms/);
  assert.throws(() => loadConfig({ RYE_WITNESSES: "https://w.test nonsense" }), (e: RyeError) => e.code === "BAD_REQUEST" && /RYE_WITNESSES/.test(e.message));
  for (const bad of [`https://w.test`, `ftp://w.test ${vkey}`, `https://w.test ${noteVerifierKey("w.test/1", k.publicKey.raw)}`, `https://w.test ${vkey}, https://v.test ${vkey}`]) assert.throws(() => parseWitnessList(bad), Error, bad);
});
