/** The k-of-n witness policy: `rye trust witness …` (real CLI), its merge of user and project files, and checkWitnessed. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { COSIGNATURE_MAX_FUTURE_SKEW_SECONDS, cosignerVerifierKey, formatCheckpoint, parseCosignerVerifierKey, generateKeyPair, type KeyPair, RyeError, signCosignature, signNote } from "@rye/core";
import { runRye } from "../../test/cli.ts";
import { checkWitnessed, projectWitnessPolicyPath, userWitnessPolicyPath, witnessPolicyFor } from "./witness-policy.ts";

const REGISTRY = "https://registry.example";
const ORIGIN = "registry.example/v1/tlog";
const TEXT = formatCheckpoint({ origin: ORIGIN, size: 7, rootHash: new Uint8Array(32).fill(7) });
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let keys: Record<"a" | "b" | "c" | "log", KeyPair>;
let vkeys: Record<"a" | "b" | "c", string>;
let note: string;

const rye = async (...args: string[]) => {
  const r = await runRye(args, { env, cwd: project });
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  return r;
};
const NOW_S = Math.floor(Date.now() / 1000);
const cosign = (who: "a" | "b" | "c", text = TEXT, at = NOW_S - 60) => signCosignature(text, `${who}.witness.test`, keys[who], at);

async function refusal(p: Promise<unknown>): Promise<RyeError> {
  const err = await p.then(() => null, (e: unknown) => e);
  assert.ok(err instanceof RyeError, `expected a RyeError, got ${String(err)}`);
  return err;
}

describe("witness policy", () => {
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "rye-witness-policy-"));
    project = join(home, "project");
    await mkdir(project);
    env = { ...process.env, USER_SPACE: join(home, "user"), RYE_NO_UPDATE_CHECK: "1" };
    keys = { a: await generateKeyPair(), b: await generateKeyPair(), c: await generateKeyPair(), log: await generateKeyPair() };
    vkeys = { a: cosignerVerifierKey("a.witness.test", keys.a.publicKey.raw), b: cosignerVerifierKey("b.witness.test", keys.b.publicKey.raw), c: cosignerVerifierKey("c.witness.test", keys.c.publicKey.raw) };
    note = await signNote(TEXT, ORIGIN, [keys.log]);
  });
  after(() => rm(home, { recursive: true, force: true }));

  test("no policy: nothing required, every checkpoint passes", async () => {
    assert.equal(await witnessPolicyFor(REGISTRY, { env, projectPath: project }), null);
    assert.deepEqual(await checkWitnessed(REGISTRY, note, null), { cosignedBy: [] });
  });

  test("rye trust witness add/require/list/remove write the user file atomically; k of n named witnesses must cosign", async () => {
    await rye("trust", "witness", "add", "a.witness.test", vkeys.a);
    await rye("trust", "witness", "add", "b.witness.test", vkeys.b, "--registry", `${REGISTRY}/`);
    await rye("trust", "witness", "add", "c.witness.test", vkeys.c, "--registry", "https://elsewhere.example");
    const req = await rye("trust", "witness", "require", "2", "--registry", REGISTRY);
    assert.equal(req.stderr, "", "two witnesses count for it: no warning");
    const file = JSON.parse(await readFile(userWitnessPolicyPath(env), "utf8")) as { witnesses: unknown[]; required: Record<string, number> };
    assert.equal(file.witnesses.length, 3);
    assert.deepEqual(file.required, { [REGISTRY]: 2 });

    const policy = (await witnessPolicyFor(REGISTRY, { env, projectPath: project }))!;
    assert.equal(policy.required, 2);
    assert.deepEqual(policy.witnesses.map((w) => w.name).sort(), ["a.witness.test", "b.witness.test"], "c counts for another registry only");

    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await cosign("a")) + (await cosign("b")), policy), { cosignedBy: ["a.witness.test", "b.witness.test"] });
    const one = await refusal(checkWitnessed(REGISTRY, note + (await cosign("a")), policy));
    assert.equal(one.code, "LOG_WITNESS_MISSING");
    assert.deepEqual(one.details, { required: 2, cosigned_by: ["a.witness.test"], registry: REGISTRY, witnesses: ["a.witness.test", "b.witness.test"], future_dated: [] });
    // c cosigned, but c is not a witness of this registry; a forged line under b's name does not verify.
    const forgedB = (await cosign("c")).replace("c.witness.test", "b.witness.test");
    const e = await refusal(checkWitnessed(REGISTRY, note + (await cosign("a")) + (await cosign("c")) + forgedB, policy));
    assert.deepEqual((e.details as { cosigned_by: string[] }).cosigned_by, ["a.witness.test"]);
    // b's cosignature of another checkpoint (the other side of a split view) does not count for this one.
    const other = formatCheckpoint({ origin: ORIGIN, size: 8, rootHash: new Uint8Array(32).fill(8) });
    assert.equal((await refusal(checkWitnessed(REGISTRY, note + (await cosign("a")) + (await cosign("b", other)), policy))).code, "LOG_WITNESS_MISSING");

    const listed = JSON.parse((await rye("trust", "witness", "list", "--json")).stdout) as { witnesses: { name: string; origin: string }[] };
    assert.deepEqual(listed.witnesses.map((w) => w.name).sort(), ["a.witness.test", "b.witness.test", "c.witness.test"]);
    await rye("trust", "witness", "remove", "b.witness.test");
    assert.equal((await runRye(["trust", "witness", "remove", "b.witness.test"], { env, cwd: project })).code, 1, "already gone");
    const warned = await rye("trust", "witness", "require", "2", "--registry", REGISTRY);
    assert.match(warned.stderr, /only 1 witness is listed/);
  });

  test("bad input is refused with a code: a key of another name, a log key, a damaged file", async () => {
    const wrongName = await runRye(["trust", "witness", "add", "x.witness.test", vkeys.a], { env, cwd: project });
    assert.notEqual(wrongName.code, 0);
    assert.match(wrongName.stderr, /INVALID_KEY/);
    const { noteVerifierKey } = await import("@rye/core");
    assert.match((await runRye(["trust", "witness", "add", "a.witness.test", noteVerifierKey("a.witness.test", keys.a.publicKey.raw)], { env, cwd: project })).stderr, /INVALID_KEY/);
    assert.match((await runRye(["trust", "witness", "require", "-1"], { env, cwd: project })).stderr, /BAD_REQUEST/);
    const damaged = join(home, "damaged");
    await mkdir(join(damaged, ".ai", "config"), { recursive: true });
    await writeFile(projectWitnessPolicyPath(damaged), JSON.stringify({ witnesses: [{ name: "a.witness.test", key: vkeys.b }] }));
    assert.equal((await refusal(witnessPolicyFor(REGISTRY, { env, projectPath: damaged }))).code, "VALIDATION_FAILED");
  });

  test("a project's committed policy adds witnesses and raises k, never lowers the user's", async () => {
    // user: a (every registry), c (elsewhere); requires 2 of REGISTRY.
    await rye("trust", "witness", "add", "b.witness.test", vkeys.b, "--project");
    await rye("trust", "witness", "require", "1", "--project");
    assert.ok(JSON.parse(await readFile(projectWitnessPolicyPath(project), "utf8")));
    const policy = (await witnessPolicyFor(REGISTRY, { env, projectPath: project }))!;
    assert.equal(policy.required, 2, "the project's 1 does not lower the user's 2");
    assert.deepEqual(policy.witnesses.map((w) => [w.name, w.origin]).sort(), [["a.witness.test", "user"], ["b.witness.test", "project"]]);
    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await cosign("a")) + (await cosign("b")), policy), { cosignedBy: ["a.witness.test", "b.witness.test"] });

    await rye("trust", "witness", "require", "0", "--registry", REGISTRY); // the user drops their requirement
    const projectOnly = (await witnessPolicyFor(REGISTRY, { env, projectPath: project }))!;
    assert.equal(projectOnly.required, 1, "the project's requirement holds on its own");
    assert.equal(await witnessPolicyFor(REGISTRY, { env }), null, "outside the project: the user's policy alone, now none");
  });

  test("one key under two names counts once (an Ed25519 cosignature does not commit to its name)", async () => {
    const twin = cosignerVerifierKey("twin.witness.test", keys.a.publicKey.raw);
    const real = { registry: REGISTRY, required: 2, witnesses: [vkeys.a, twin].map((key) => ({ name: key.split("+")[0]!, key, origin: "user" as const, verifier: parseCosignerVerifierKey(key)! })) };
    const twinLine = await signCosignature(TEXT, "twin.witness.test", keys.a, NOW_S);
    const err = await refusal(checkWitnessed(REGISTRY, note + (await cosign("a")) + twinLine, real));
    assert.deepEqual((err.details as { cosigned_by: string[] }).cosigned_by, ["a.witness.test"]);
  });

  test("cosignature times: one dated beyond the clock-skew allowance does not count; within it, or old, it does", async () => {
    const policy = { registry: REGISTRY, required: 1, witnesses: [{ name: "a.witness.test", key: vkeys.a, origin: "user" as const, verifier: parseCosignerVerifierKey(vkeys.a)! }] };
    const now = Date.now();
    const at = (deltaS: number) => cosign("a", TEXT, Math.floor(now / 1000) + deltaS);
    // Within the allowance (a witness clock a little ahead), and a year old: both count.
    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await at(COSIGNATURE_MAX_FUTURE_SKEW_SECONDS)), policy, { now }), { cosignedBy: ["a.witness.test"] });
    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await at(-365 * 86_400)), policy, { now }), { cosignedBy: ["a.witness.test"] });
    // One second beyond it: refused, naming the witness and its time, and pointing at the clocks.
    const ahead = Math.floor(now / 1000) + COSIGNATURE_MAX_FUTURE_SKEW_SECONDS + 1;
    const err = await refusal(checkWitnessed(REGISTRY, note + (await cosign("a", TEXT, ahead)), policy, { now }));
    assert.equal(err.code, "LOG_WITNESS_MISSING");
    assert.deepEqual(err.details, { required: 1, cosigned_by: [], registry: REGISTRY, witnesses: ["a.witness.test"], future_dated: [{ name: "a.witness.test", timestamp: ahead }] });
    assert.match(err.message, /dated later than this computer's clock allows \(10 minutes of skew\): a\.witness\.test at .*Check this computer's clock/);
    // The same line counts once this clock has caught up; and a future-dated line does not hide a valid one of the same witness.
    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await cosign("a", TEXT, ahead)), policy, { now: now + 2000 }), { cosignedBy: ["a.witness.test"] });
    assert.deepEqual(await checkWitnessed(REGISTRY, note + (await cosign("a", TEXT, ahead)) + (await at(0)), policy, { now }), { cosignedBy: ["a.witness.test"] });
    // Without `now`, this machine's clock: an hour ahead is refused.
    assert.equal((await refusal(checkWitnessed(REGISTRY, note + (await at(3600)), policy))).code, "LOG_WITNESS_MISSING");
  });
});
