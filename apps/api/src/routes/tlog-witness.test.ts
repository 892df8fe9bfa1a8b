/**
 * Witnesses end to end: a registry process on PostgreSQL configured with RYE_WITNESSES (a real `rye witness serve`
 * process and one that is down) serves checkpoints cosigned by the live witness, across publishes and a witness
 * restart; a client's k-of-n policy accepts them, and refuses them (LOG_WITNESS_MISSING) when it needs the other.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { cosignerVerifierKey, generateKeyPair, type KeyPair, logOrigin, noteVerifierKey, openNote, parseCheckpoint, parseCosignerVerifierKey, parseNoteVerifierKey, privateKeyToPem, RyeError, verifiedCosignatures } from "@rye/core";
import { createScratchPostgresDatabase, postgresAvailable } from "@rye/db/testing";
import { runRye } from "../../../../packages/rye/test/cli.ts";
import { startWitnessProcess, type WitnessProcess } from "../../../../packages/rye/test/witness-process.ts";
import { checkWitnessed, witnessPolicyFor } from "../../../../packages/rye/src/registry/witness-policy.ts";
import { goPath, goSumdbMissing, programPath } from "../../../../scripts/test-requirements.ts";
import { freePort } from "../../test/free-port.ts";
import { type RegistryProcess, startRegistryProcess } from "../../test/registry-process.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const skip = postgresAvailable() ? false : "needs PostgreSQL (DATABASE_URL)";

let work: string;
let url: string;
let registryKey: KeyPair;
let registry: RegistryProcess;
let scratch: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
let witness: WitnessProcess;
let witnessArgs: string[];
let witnessKey: string;
let downKey: string;
let clientEnv: NodeJS.ProcessEnv;
let push: (name: string) => Promise<void>;

async function checkpoint(): Promise<string> {
  const res = await fetch(`${url}/v1/tlog/checkpoint`);
  assert.equal(res.status, 200);
  return res.text();
}

async function cosigned(note: string, vkey: string): Promise<boolean> {
  return (await verifiedCosignatures(note, [parseCosignerVerifierKey(vkey)!])).length === 1;
}

describe("a registry collects witness cosignatures and clients require them", { skip }, () => {
  before(async () => {
    work = await mkdtemp(join(tmpdir(), "rye-tlog-witness-"));
    registryKey = await generateKeyPair();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const witnessEnv = { ...process.env, USER_SPACE: join(work, "witness-home"), RYE_NO_UPDATE_CHECK: "1" };
    const made = await runRye(["witness", "keygen", "--name", "witness.test/w1", "--dir", join(work, "w1")], { env: witnessEnv });
    assert.equal(made.code, 0, made.stderr);
    witnessKey = made.stdout.trim();
    const witnessPort = await freePort();
    witnessArgs = ["--dir", join(work, "w1"), "--port", String(witnessPort), "--log", noteVerifierKey(logOrigin(url), registryKey.publicKey.raw)];
    witness = await startWitnessProcess(witnessArgs, witnessEnv);
    downKey = cosignerVerifierKey("witness.test/down", (await generateKeyPair()).publicKey.raw);
    const downPort = await freePort(); // nothing listens there

    scratch = await createScratchPostgresDatabase();
    registry = await startRegistryProcess(port, join(work, "data"), {
      DATABASE_URL: scratch.url,
      RYE_REGISTRY_PRIVATE_KEY: privateKeyToPem(registryKey.seed),
      RYE_CHECKPOINT_EVERY_ENTRIES: "1",
      RYE_WITNESSES: `${witness.url} ${witnessKey},\nhttp://127.0.0.1:${downPort} ${downKey}`,
      RYE_WITNESS_TIMEOUT_MS: "2000",
    });
    push = registry.push;
    clientEnv = { ...process.env, USER_SPACE: join(work, "client-home"), RYE_NO_UPDATE_CHECK: "1" };
  });

  after(async () => {
    await registry?.stop();
    await witness?.stop();
    await scratch?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("the served checkpoint carries the live witness's cosignature, across publishes and a witness restart; a down witness costs nothing", async () => {
    const logKey = parseNoteVerifierKey(noteVerifierKey(logOrigin(url), registryKey.publicKey.raw))!;
    let last = 0;
    for (const round of [["a", "b"], ["c"], ["d", "e"]]) {
      if (round[0] === "d") {
        await witness.stop();
        witness = await startWitnessProcess(witnessArgs, { ...process.env, USER_SPACE: join(work, "witness-home"), RYE_NO_UPDATE_CHECK: "1" });
      }
      for (const name of round) await push(name);
      const started = Date.now();
      const note = await checkpoint();
      const took = Date.now() - started;
      const opened = await openNote(note, [logKey]);
      assert.ok(opened.ok, "the registry's signature still opens it");
      const size = parseCheckpoint(opened.text)!.size;
      assert.ok(size > last, `the log grew (${last} → ${size})`);
      last = size;
      assert.ok(await cosigned(note, witnessKey), `cosigned at size ${size}`);
      assert.equal(await cosigned(note, downKey), false);
      assert.ok(took < 10_000, `answered within the witness timeout, not hung on the down witness (${took} ms)`);
    }
  });

  test("Go's sumdb/note still opens the cosigned checkpoint (tools/tlog-verify: other signers' lines are ignored)", { skip: goSumdbMissing() }, async () => {
    const run = promisify(execFile);
    const verifier = join(work, "tlog-verify");
    await run(programPath("go")!, ["build", "-o", verifier, "./tools/tlog-verify"], {
      cwd: ROOT,
      env: { ...process.env, GOPATH: goPath(), GO111MODULE: "off", GOFLAGS: "", GOCACHE: process.env.GOCACHE ?? join(tmpdir(), "rye-go-build-cache") },
      timeout: 300_000,
    });
    assert.ok(await cosigned(await checkpoint(), witnessKey));
    const { stdout } = await run(verifier, ["-registry", url, "-key", noteVerifierKey(logOrigin(url), registryKey.publicKey.raw)], { timeout: 120_000 });
    assert.ok((JSON.parse(stdout) as { verified: { tree_size: number } }).verified.tree_size > 0);
  });

  test("a client requiring 1 of its witnesses accepts the checkpoint; requiring 2 (the down one too) refuses it with LOG_WITNESS_MISSING", async () => {
    const rye = async (...args: string[]) => assert.equal((await runRye(args, { env: clientEnv, cwd: work })).code, 0, args.join(" "));
    await rye("trust", "witness", "add", "witness.test/w1", witnessKey, "--registry", url);
    await rye("trust", "witness", "require", "1", "--registry", url);
    const note = await checkpoint();
    const one = await witnessPolicyFor(url, { env: clientEnv });
    assert.deepEqual(await checkWitnessed(url, note, one), { cosignedBy: ["witness.test/w1"] });
    // The same genuine cosignature, seen by a client whose clock is an hour behind the witness's: dated in its future, refused.
    const behind = await checkWitnessed(url, note, one, { now: Date.now() - 3_600_000 }).then(() => null, (e: unknown) => e);
    assert.ok(behind instanceof RyeError);
    assert.equal(behind.code, "LOG_WITNESS_MISSING");
    assert.deepEqual((behind.details as { future_dated: { name: string }[] }).future_dated.map((d) => d.name), ["witness.test/w1"]);
    assert.deepEqual(await checkWitnessed(url, note, one, { now: Date.now() - 60_000 }), { cosignedBy: ["witness.test/w1"] }, "a minute behind: within the allowance");

    await rye("trust", "witness", "add", "witness.test/down", downKey);
    await rye("trust", "witness", "require", "2", "--registry", url);
    const two = await witnessPolicyFor(url, { env: clientEnv });
    const err = await checkWitnessed(url, note, two).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RyeError);
    assert.equal(err.code, "LOG_WITNESS_MISSING");
    assert.deepEqual((err.details as { required: number; cosigned_by: string[] }).cosigned_by, ["witness.test/w1"]);
    assert.equal((err.details as { required: number }).required, 2);
  });
});
