/**
 * The independent verifier: tools/tlog-verify, built on Go's golang.org/x/mod/sumdb/{note,tlog}, checks a real
 * registry process's log (checkpoint signature, every tile and entry bundle, an inclusion proof, consistency with an
 * older checkpoint), and fails when the database was tampered with.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { createScratchPostgresDatabase, postgresAvailable } from "@rye/db/testing";
import { openDatabase, type Database } from "@rye/db";
import { goPath, goSumdbMissing, programPath, skipUnless } from "../../../../scripts/test-requirements.ts";
import { freePort } from "../../test/free-port.ts";
import { type RegistryProcess, startRegistryProcess } from "../../test/registry-process.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const skip = skipUnless(goSumdbMissing() || (postgresAvailable() ? false : "needs PostgreSQL (DATABASE_URL)"));

let work: string;
let verifier: string;
let url: string;
let key: string;
let registry: RegistryProcess;
let scratch: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
let db: Database;
let push: (name: string) => Promise<void>;

/** Runs the Go verifier; its exit code, its JSON answer (on success) and stderr. */
async function verify(...args: string[]): Promise<{ code: number; out: Record<string, any> | null; stderr: string }> {
  try {
    const { stdout, stderr } = await run(verifier, ["-registry", url, "-key", key, ...args], { timeout: 120_000 });
    return { code: 0, out: JSON.parse(stdout), stderr };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, out: null, stderr: e.stderr ?? String(err) };
  }
}

describe("Go's sumdb/tlog verifies the registry's transparency log", { skip }, () => {
  before(async () => {
    work = await mkdtemp(join(tmpdir(), "rye-tlog-verify-"));
    verifier = join(work, "tlog-verify");
    await run(programPath("go")!, ["build", "-o", verifier, "./tools/tlog-verify"], {
      cwd: ROOT,
      env: { ...process.env, GOPATH: goPath(), GO111MODULE: "off", GOFLAGS: "", GOCACHE: process.env.GOCACHE ?? join(tmpdir(), "rye-go-build-cache") },
      timeout: 300_000,
    });
    scratch = await createScratchPostgresDatabase();
    db = await openDatabase({ databaseUrl: scratch.url });
    registry = await startRegistryProcess(await freePort(), join(work, "data"), { DATABASE_URL: scratch.url, RYE_CHECKPOINT_EVERY_ENTRIES: "1" });
    url = registry.url;
    push = registry.push;
    key = ((await (await fetch(`${url}/v1/tlog/info`)).json()) as { verifier_keys: string[] }).verifier_keys[0]!;
  });

  after(async () => {
    await registry?.stop();
    await db?.close();
    await scratch?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("a checkpoint, then more publishes and a newer checkpoint that extends it; a tampered entry is caught", async () => {
    for (const name of ["a", "b", "c"]) await push(name);
    const first = await verify("-save", join(work, "cp1"));
    assert.equal(first.code, 0, first.stderr);
    const size1 = first.out!.verified.tree_size as number;
    assert.ok(size1 >= 3);
    assert.equal(first.out!.verified.entries_checked, size1, "every entry of the tree, read from the entry bundles");

    for (const name of ["d", "e", "f", "g"]) await push(name);
    const second = await verify("-old", join(work, "cp1"), "-index", "1");
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.out!.verified.tree_size, size1 + 4);
    assert.equal(second.out!.verified.consistency_from, size1);
    assert.equal(second.out!.verified.inclusion_index, 1);

    // An entry changed in the database (alice's "b" claims another content hash): the signed tree no longer holds it.
    const [row] = (await db.raw.query<{ index: bigint }>("SELECT index FROM publish_log_entries WHERE payload->>'id' = 'alice/notes/b'")).rows;
    await db.raw.query("UPDATE publish_log_entries SET payload = jsonb_set(payload, '{content_hash}', to_jsonb(repeat('0', 64))) WHERE index = $1", [row!.index]);
    const tampered = await verify("-old", join(work, "cp1"));
    assert.equal(tampered.code, 1);
    assert.match(tampered.stderr, new RegExp(`FAIL: entry ${row!.index}: its bytes do not hash to the leaf the signed tree holds`));

    // A hash of the tree changed under a signed checkpoint: the tiles no longer match the signed root.
    await db.raw.query("UPDATE publish_log_entries SET payload = jsonb_set(payload, '{content_hash}', to_jsonb($2::text)) WHERE index = $1", [row!.index, await originalHash(row!.index)]);
    assert.equal((await verify()).code, 0, "restored");
    await db.raw.query("UPDATE tlog_tiles SET hashes = overlay(hashes placing '\\x00'::bytea from 1 for 1) WHERE level = 0 AND index = 0");
    const forged = await verify();
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /FAIL: tiles: .*(downloaded inconsistent tile|malformed|inconsistent)/);

    // A key that did not sign the checkpoint.
    const other = key.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    const wrong = await run(verifier, ["-registry", url, "-key", other]).then(() => 0, (e: { code: number; stderr: string }) => (assert.match(e.stderr, /FAIL/), e.code));
    assert.equal(wrong, 1);
  });
});

/** The content hash alice's item was published with (its version row keeps it). */
async function originalHash(_index: bigint): Promise<string> {
  const [v] = (await db.raw.query<{ content_hash: string }>("SELECT v.content_hash FROM item_versions v JOIN items i ON i.id = v.item_id WHERE i.name = 'b' AND i.category = 'notes'")).rows;
  return v!.content_hash;
}
