/**
 * The client against a hostile registry host (issue "Client hardening"), part 2: a rolled-back log and
 * answers that are not what a registry sends (a captive portal's page, malformed JSON, a redirect loop)
 * are refused by `rye pull`, `rye load`, `rye update` and the MCP `load` tool, nothing is written; an
 * unversioned pull never moves backwards; redirects never carry the token to another origin.
 * Set-up: test/hostile-lanes.ts.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startMirror } from "../hostile-registry.ts";
import { cli, GUIDE, hostile, lanes, oldCheckpoint, refusedEverywhere, registry, setUpLanes, snapshot, tearDownLanes } from "../hostile-lanes.ts";

before(setUpLanes);
after(tearDownLanes);

describe("a rolled-back log, and answers that are not a registry's, are refused by every client", () => {
  test("a rollback of the log: an older signed checkpoint", () => refusedEverywhere({ kind: "old-checkpoint", transparency: oldCheckpoint }, "LOG_ROLLBACK"));
  test("an answer without its log proof", () => refusedEverywhere({ kind: "strip-proof" }, "LOG_PROOF_MISSING"));
  test("the genuine log proof of another entry", () => refusedEverywhere({ kind: "other-proof", id: "alice/notes/other" }, "LOG_ENTRY_MISMATCH"));
  test("a captive portal's HTML page", () => refusedEverywhere({ kind: "not-json" }, "MALFORMED_RESPONSE"));
  test("JSON with missing and mistyped fields", () => refusedEverywhere({ kind: "malformed" }, "MALFORMED_RESPONSE"));
  test("a redirect loop", () => refusedEverywhere({ kind: "redirect-loop" }, "UNAVAILABLE"));
});

describe("versions and redirects", () => {
  test("an unversioned pull never moves backwards from the pin (a stale 'latest')", async () => {
    const lane = lanes[0]!;
    const before = await snapshot(lane.ws);
    hostile.attack = { kind: "stale", version: "1.0.0" };
    try {
      const outcome = await cli(lane.ws, lane.env, ["pull", GUIDE], (b) => b.error?.code ?? null);
      assert.equal(outcome.code, "VERSION_MISMATCH");
    } finally {
      hostile.attack = { kind: "pass" };
    }
    assert.deepEqual(await snapshot(lane.ws), before);
  });

  test("a redirect to another origin is followed without the token", async () => {
    const mirror = await startMirror(registry.url);
    const lane = lanes[0]!;
    hostile.requests.length = 0;
    hostile.attack = { kind: "redirect", origin: mirror.url };
    try {
      const outcome = await cli(lane.ws, lane.env, ["pull", `${GUIDE}@1.1.0`], (b) => b.error?.code ?? null);
      assert.equal(outcome.code, null, "the mirror's answer verifies");
    } finally {
      hostile.attack = { kind: "pass" };
      await mirror.close();
    }
    assert.ok(hostile.requests.some((r) => r.path.startsWith(`/v1/pull/knowledge/${GUIDE}`) && r.authorized), "the registry's own origin gets the token");
    assert.ok(mirror.requests.some((r) => r.path.startsWith(`/v1/pull/knowledge/${GUIDE}`)), "the redirect was followed");
    assert.deepEqual(mirror.requests.filter((r) => r.authorized), [], "no request to the other origin carries the token");
  });
});
