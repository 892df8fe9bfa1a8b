/**
 * The client against a hostile registry host (issue "Client hardening"), part 3: endless, huge, stalled
 * and trickling answers end within the configured deadline (measured at the server) with a bounded peak
 * RSS (measured against an honest run of the same client), for `rye pull`, `rye load`, `rye update` and
 * the MCP `load` tool; nothing is written. Set-up: test/hostile-lanes.ts.
 */
import "@rye/core/node";
import { after, before, describe, test } from "node:test";
import { refusedEverywhere, setUpLanes, tearDownLanes } from "../hostile-lanes.ts";

before(setUpLanes);
after(tearDownLanes);

describe("endless, huge and stalled answers end within the deadline with bounded memory", () => {
  test("an endless body", () => refusedEverywhere({ kind: "endless" }, "TOO_LARGE", { memory: true }));
  test("a body announced at 10 GB", () => refusedEverywhere({ kind: "huge" }, "TOO_LARGE", { memory: true }));
  test("headers, then silence", () => refusedEverywhere({ kind: "stall" }, "TIMEOUT", { memory: true }));
  test("one byte every 100 ms (slow retrieval)", () => refusedEverywhere({ kind: "trickle", everyMs: 100 }, "TIMEOUT", { memory: true }));
});

