/** Probes, request ids and graceful shutdown on a real HTTP server (the registry app on its test database). */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { createTestRegistry, type TestRegistry } from "../test/harness.ts";
import { drainServer, trackRequests } from "./graceful.ts";
import { silentLogger } from "./logger.ts";
import { requestIdFrom } from "./middleware/request-context.ts";
import { ReadinessCheck } from "./services/readiness.ts";

let reg: TestRegistry;
before(async () => {
  reg = await createTestRegistry();
});
after(() => reg.close());

test("GET /ready: 200 when the database answers and every migration is applied; 503 with the reason otherwise", async () => {
  const res = await reg.request("GET", "/ready");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ready" });
  assert.equal(res.headers.get("cache-control"), "no-store");

  const { mkdtemp, mkdir, writeFile } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { migrationsDir } = await import("@rye/db");
  const { readdirSync, cpSync } = await import("node:fs");
  // A newer release: one more migration than the database has.
  const newer = await mkdtemp(join(tmpdir(), "rye-migrations-"));
  for (const name of readdirSync(migrationsDir)) cpSync(join(migrationsDir, name), join(newer, name), { recursive: true });
  await mkdir(join(newer, "29991231000000_future"));
  await writeFile(join(newer, "29991231000000_future", "migration.sql"), "SELECT 1;\n");
  const ahead = await new ReadinessCheck(reg.db, { draining: false }, newer).check();
  assert.deepEqual(ahead, { ready: false, reason: "migrations not applied: 29991231000000_future" });

  const unreachable = { ...reg.db, raw: { ...reg.db.raw, query: () => Promise.reject(new Error("ECONNREFUSED")) } };
  assert.deepEqual(await new ReadinessCheck(unreachable, { draining: false }).check(), { ready: false, reason: "database unreachable" });
  assert.deepEqual(await new ReadinessCheck(reg.db, { draining: true }).check(), { ready: false, reason: "shutting down" });
});

test("GET /health is liveness: 200 with the database status even when the database is down", async () => {
  const res = await reg.request("GET", "/health");
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ["database", "database_kind", "status", "version"]);
});

test("a balancer's X-Request-Id is kept and returned; a missing or unsafe one is replaced", async () => {
  const kept = await reg.request("GET", "/health", { headers: { "x-request-id": "lb-7f3a.42" } });
  assert.equal(kept.headers.get("x-request-id"), "lb-7f3a.42");
  const fresh = await reg.request("GET", "/health");
  assert.match(fresh.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
  for (const bad of ["", "a b", "x".repeat(129), "id\u0000", "<script>"]) assert.notEqual(requestIdFrom(bad), bad, JSON.stringify(bad));
});

test("SIGTERM's drain: /ready turns 503 at once, in-flight requests finish, new connections are refused, then the server closes", async () => {
  const lifecycle = reg.deps.lifecycle;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const api = getRequestListener(reg.app.fetch);
  const tracked = trackRequests((req, res) => {
    if (req.url === "/slow") return void gate.then(() => res.end("done"));
    api(req, res);
  }, lifecycle);
  const server = createServer(tracked.listener);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const slow = fetch(`${base}/slow`).then((r) => r.text());
    while (tracked.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
    const drained = drainServer(server, tracked.inFlight, { lifecycle, logger: silentLogger, drainDelayMs: 300, timeoutMs: 10_000 });
    // During the drain delay the listener is still open: probes say not ready, requests are still served.
    const ready = await fetch(`${base}/ready`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: "not_ready", reason: "shutting down" });
    assert.equal(ready.headers.get("connection"), "close", "a connection used while draining is not kept alive");
    await new Promise((r) => setTimeout(r, 400));
    await assert.rejects(fetch(`${base}/health`), "after the delay, new connections are refused");
    let closed = false;
    void drained.then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(closed, false, "the server waits for the request in flight");
    release();
    assert.equal(await slow, "done", "the request in flight is answered");
    assert.deepEqual(await drained, { cut: false });
  } finally {
    lifecycle.draining = false;
    server.closeAllConnections();
  }
});

test("the drain deadline cuts connections still open", async () => {
  const lifecycle = { draining: false };
  const tracked = trackRequests(() => {}, lifecycle); // never answers
  const server = createServer(tracked.listener);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const hanging = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).catch((err: Error) => err);
  while (tracked.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(await drainServer(server, tracked.inFlight, { lifecycle, logger: silentLogger, drainDelayMs: 0, timeoutMs: 200 }), { cut: true });
  assert.ok((await hanging) instanceof Error);
});
