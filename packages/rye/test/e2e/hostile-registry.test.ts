/**
 * The client against a hostile registry host (issue "Client hardening"), part 1: an honest pull is usable
 * at once; forged, mixed, stale and swapped answers are refused by `rye pull`, transparent `rye load`,
 * `rye update` and the MCP `load` tool with their exact codes, and nothing is written.
 * Set-up: test/hostile-lanes.ts.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runRye } from "../cli.ts";
import { GUIDE, hostile, lanes, refusedEverywhere, setUpLanes, tearDownLanes } from "../hostile-lanes.ts";

type Json = Record<string, any>;

before(setUpLanes);
after(tearDownLanes);

describe("an honest pull is usable at once", () => {
  test("rye pull pins the item; load, verify and execute --dry-run accept it with no `rye trust add`", async () => {
    const ws = lanes[0]!.ws;
    const env = lanes[0]!.env;
    const lock = JSON.parse(await readFile(join(ws.projectDir, ".ai", "rye.lock"), "utf8")) as { items: Json[] };
    const entry = lock.items.find((e) => e.id === GUIDE)!;
    assert.equal(entry.version, "1.1.0");
    assert.equal(entry.registry, hostile.url);
    const file = join(ws.projectDir, ".ai", "knowledge", "alice", "notes", "guide.md");
    assert.equal(entry.file_sha256, createHash("sha256").update(await readFile(file)).digest("hex"));

    const loaded = await runRye(["load", "knowledge", GUIDE, "--json"], { env, cwd: ws.projectDir });
    assert.equal(loaded.code, 0, loaded.stdout + loaded.stderr);
    const body = JSON.parse(loaded.stdout) as Json;
    assert.equal(body.source, "project");
    assert.equal(body.verification?.ok ?? body.verified, true, JSON.stringify(body.verification));
    assert.match(JSON.stringify(body), /Body of the guide, version 1\.1\.0/);
    const verified = await runRye(["verify", ".ai/knowledge/alice/notes/guide.md", "--json"], { env, cwd: ws.projectDir });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.equal((JSON.parse(verified.stdout) as Json).ok, true);
    const trusted = (await readdir(join(ws.userBase, ".ai", "trusted_keys"))).filter((n) => n.endsWith(".pem"));
    assert.deepEqual(trusted, [`${ws.key.publicKey.fingerprint}.pem`], "only the user's own key is in the trust store");

    const tool = await runRye(["pull", "alice/tools/hello", "--json"], { env, cwd: ws.projectDir });
    assert.equal(tool.code, 0, tool.stdout + tool.stderr);
    const dry = await runRye(["execute", "tool", "alice/tools/hello", "--dry-run", "--json"], { env: { ...env, RYE_OFFLINE: "1" }, cwd: ws.projectDir });
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    const ran = await runRye(["execute", "tool", "alice/tools/hello", "--json"], { env: { ...env, RYE_OFFLINE: "1" }, cwd: ws.projectDir });
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.match(ran.stdout, /"hello": "world"/);

    // An edit of the pulled file is no longer the pinned registry item.
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace("Body of", "BODY of"));
    const edited = await runRye(["verify", ".ai/knowledge/alice/notes/guide.md", "--json"], { env, cwd: ws.projectDir });
    assert.equal(edited.code, 1);
    assert.equal((JSON.parse(edited.stdout) as Json).code, "INTEGRITY_MISMATCH");
    await writeFile(file, text);
  });
});

describe("attacks on the pull are refused by every client, and nothing is written", () => {
  test("mix-and-match: 1.0.0's content relabelled as the version asked for, with 1.0.0's attestation", () =>
    refusedEverywhere({ kind: "relabel", version: "1.0.0", attestation: "keep" }, "INTEGRITY_MISMATCH"));
  test("mix-and-match without any attestation", () => refusedEverywhere({ kind: "relabel", version: "1.0.0", attestation: "drop" }, "MALFORMED_RESPONSE"));
  test("a stale answer: the genuine 1.0.0 served for another version", () => refusedEverywhere({ kind: "stale", version: "1.0.0" }, "INTEGRITY_MISMATCH"));
  test("one byte tampered", () => refusedEverywhere({ kind: "tamper" }, "INTEGRITY_MISMATCH"));
  test("the host swaps in a key of its own after the pin (no rotation statement)", () => refusedEverywhere({ kind: "key-swap" }, "UNTRUSTED_KEY"));
  test("another item's genuine answer", () => refusedEverywhere({ kind: "wrong-item", id: "alice/notes/other" }, "INTEGRITY_MISMATCH"));
});
