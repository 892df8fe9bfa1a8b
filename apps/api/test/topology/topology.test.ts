/**
 * Issue #14 "Done when", the topology part: 2 API processes on one PostgreSQL and one S3 server (s3rver) behind a
 * real haproxy. Pushes through one are pulled through the other (bundle files through the shared bucket); rate limits hold across both; a key rotation made through
 * one is served by both; SIGTERM during a load run drops no request; SIGKILL mid-push loses nothing that was
 * acknowledged and leaves no partial row; one MCP client is served by both processes alternately (issue #31).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Database, openDatabase } from "@rye/db";
import { hashToken, TOKEN_PREFIX } from "../../src/auth/api-tokens.ts";
import { pushBundle, signUpPublisher } from "../bundle-publisher.ts";
import { startS3Server } from "../s3-server.ts";
import { skipUnless } from "../../../../scripts/test-requirements.ts";
import { DEFAULT_BATCHED_COUNTS, unconfirmedCap } from "../../src/services/batched-window-counters.ts";
import { adminEndpointOf, startTopology, type Topology, topologyUnavailable } from "./topology.ts";

const RATE_LIMIT_READS = 40;

type Json = Record<string, any>;

function knowledge(name: string, version: string): string {
  return `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\n# ${name}\n\nVersion ${version}: ${randomBytes(48).toString("base64")}\n`;
}

/** A fresh client address per anonymous request: the per-IP read limit must not get in the way of the load runs. */
const anyIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

describe("two API processes behind haproxy on one PostgreSQL", { skip: skipUnless(topologyUnavailable()) }, () => {
  let topo: Topology;
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let db: Database;
  let token: string;

  async function createPublisher(username: string): Promise<string> {
    const user = await db.prisma.user.create({ data: { username, email: `${username}@example.test` } });
    await db.prisma.namespace.create({ data: { name: username, userId: user.id } });
    const secret = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await db.prisma.apiToken.create({ data: { userId: user.id, name: "topology", tokenHash: hashToken(secret), scopes: ["items:read", "items:write"] } });
    return secret;
  }

  /** A request through the balancer; `through` pins the process that serves it. */
  async function call(method: string, path: string, o: { through?: string; token?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json; servedBy: string | null; headers: Headers }> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.through) headers["x-rye-target"] = o.through;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    else headers["x-forwarded-for"] ??= anyIp();
    if (o.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${topo.url}${path}`, { method, headers, ...(o.json !== undefined ? { body: JSON.stringify(o.json) } : {}) });
    const text = await res.text();
    let body: Json = {};
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = { text };
    }
    return { status: res.status, body, servedBy: res.headers.get("x-served-by"), headers: res.headers };
  }
  const push = (id: string, version: string, through?: string) =>
    call("POST", "/v1/push", { token, ...(through ? { through } : {}), json: { item_type: "knowledge", item_id: id, content: knowledge(id.split("/").at(-1)!, version), version } });

  before(async () => {
    s3 = await startS3Server();
    topo = await startTopology({ processes: 2, env: { ...s3.env, RYE_RATE_LIMIT_READS: String(RATE_LIMIT_READS), RYE_RATE_LIMIT_WINDOW_SECONDS: "300" } });
    db = await openDatabase({ databaseUrl: topo.databaseUrl, migrate: false });
    token = await createPublisher("alice");
  });
  after(async () => {
    await db?.close();
    await topo?.stop();
    await s3?.close();
  });

  test("a push through A is pulled through B; the balancer's request id is answered and logged by the process that served it", async () => {
    const pushed = await push("alice/notes/shared", "1.0.0", "a");
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    assert.equal(pushed.servedBy, "a");
    const pulled = await call("GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0", { through: "b" });
    assert.equal(pulled.status, 200, JSON.stringify(pulled.body));
    assert.equal(pulled.servedBy, "b");
    assert.equal(pulled.body.content_hash, pushed.body.content_hash ?? pulled.body.content_hash);
    assert.match(pulled.body.content, /Version 1\.0\.0/);

    // B cached the latest answer; a new version pushed through A is what B answers next (read generation).
    assert.equal((await call("GET", "/v1/pull/knowledge/alice/notes/shared", { through: "b" })).body.version, "1.0.0");
    assert.equal((await push("alice/notes/shared", "1.1.0", "a")).status, 201);
    assert.equal((await call("GET", "/v1/pull/knowledge/alice/notes/shared", { through: "b" })).body.version, "1.1.0");

    const requestId = `lb-${randomBytes(6).toString("hex")}`;
    const traced = await call("GET", "/v1/keys", { through: "b", headers: { "x-request-id": requestId } });
    assert.equal(traced.headers.get("x-request-id"), requestId);
    const b = topo.processes.find((p) => p.name === "b")!;
    // The access log is written at the end of the event-loop turn that answered (logger.ts): moments after the answer.
    let line: string | undefined;
    for (let waited = 0; !line && waited < 5_000; waited += 20) {
      line = b.stdout().split("\n").find((l) => l.includes(requestId));
      if (!line) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(line, "B logged the request under the balancer's id");
    const entry = JSON.parse(line!) as Json;
    assert.equal(entry.requestId, requestId);
    assert.equal(entry.path, "/v1/keys");
    assert.equal(entry.pid, b.child.pid);
  });

  test("bundle files pushed through the balancer live in the shared bucket, not the table, and both processes serve them", async () => {
    const publisher = await signUpPublisher(topo.url, "stella");
    const files = { ".ai/knowledge/stella/kit/notes.md": new TextEncoder().encode("---\nid: notes\ntitle: Notes\nversion: 1.0.0\nentry_type: reference\n---\n\nShared.\n"), ".ai/knowledge/stella/kit/data.bin": new Uint8Array(randomBytes(32 * 1024)) };
    const pushed = await pushBundle(topo.url, publisher, "stella/kit", "1.0.0", files);
    assert.equal(pushed.file_count, 2);
    assert.equal(await db.prisma.blob.count(), 0, "no file went to the blobs table");
    for (const through of ["a", "b"]) {
      const pulled = await call("GET", "/v1/bundle/pull/stella/kit?version=1.0.0", { through });
      assert.equal(pulled.status, 200, JSON.stringify(pulled.body));
      assert.equal(pulled.servedBy, through);
      for (const [path, bytes] of Object.entries(files)) assert.deepEqual(new Uint8Array(Buffer.from(pulled.body.files[path].content_base64, "base64")), bytes, `${path} through ${through}`);
    }
  });

  test("rate limits hold across both: over-limit requests split across the processes are refused within the stated bound", async () => {
    const reader = await createPublisher("reader");
    // Each process counts hits in memory and writes them in batches: across 2 processes a caller gets at most
    // limit + (2 − 1) × the limit's cap through (services/batched-window-counters.ts): 40 + 5.
    const bound = RATE_LIMIT_READS + unconfirmedCap(DEFAULT_BATCHED_COUNTS.maxUnconfirmed, RATE_LIMIT_READS);
    const extra = 20;
    const statuses: number[] = [];
    for (let i = 0; i < bound + extra; i++) {
      const res = await call("GET", "/v1/keys", { token: reader, through: i % 2 === 0 ? "a" : "b" });
      statuses.push(res.status);
    }
    const served = statuses.filter((s) => s === 200).length;
    assert.ok(served >= RATE_LIMIT_READS && served <= bound, `${served} served: at least the limit, at most ${bound}`);
    assert.deepEqual(statuses.slice(bound), Array(extra).fill(429), "every request past the bound is refused, whichever process gets it");
  });

  test("a key rotation made through A is served by both", async () => {
    const before = await call("GET", "/v1/keys", { through: "b" });
    const a = topo.processes.find((p) => p.name === "a")!;
    const admin = await adminEndpointOf(a);
    const rotated = await fetch(`${admin.url}/v1/admin/keys/rotate`, { method: "POST", headers: { "x-rye-admin-secret": admin.secret, "content-type": "application/json" }, body: "{}" });
    assert.equal(rotated.status, 200);
    const { previous, next } = (await rotated.json()) as { previous: string; next: string };
    assert.equal(previous, before.body.active);
    for (const through of ["a", "b"]) {
      const keys = await call("GET", "/v1/keys", { through });
      assert.equal(keys.body.active, next, `${through} names the new key active`);
      const checkpoint = await call("GET", "/v1/log/checkpoint", { through });
      assert.equal(checkpoint.status, 200);
      assert.equal(checkpoint.body.key_fingerprint, next, `${through} serves a checkpoint signed by the new key`);
      const pushed = await push(`alice/notes/after-rotation-${through}`, "1.0.0", through);
      assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
      const pulled = await call("GET", `/v1/pull/knowledge/alice/notes/after-rotation-${through}?version=1.0.0`, { through: through === "a" ? "b" : "a" });
      assert.equal(pulled.body.signature.fingerprint, next, `a version published through ${through} is signed with the new key`);
    }
  });

  test("one MCP client served alternately by both processes (stateless /mcp): initialize on A, every later call on the other", async () => {
    const pushed = await push("alice/notes/mcp-shared", "1.0.0", "a");
    assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
    // Each HTTP request of the client is pinned to the other process than the one before. The SDK may have two
    // requests in flight (its GET for a stream beside a POST), so each answer is matched to its own request's target.
    const served: { target: string; by: string }[] = [];
    let next = 0;
    const alternating: typeof fetch = async (input, init) => {
      const target = next++ % 2 === 0 ? "a" : "b";
      const headers = new Headers(init?.headers);
      headers.set("x-rye-target", target);
      headers.set("authorization", `Bearer ${token}`);
      const res = await fetch(input, { ...init, headers });
      served.push({ target, by: res.headers.get("x-served-by") ?? "?" });
      return res;
    };
    const client = new Client({ name: "topology", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${topo.url}/mcp`), { fetch: alternating }));
    try {
      for (let i = 0; i < 3; i++) {
        const found = await client.callTool({ name: "search", arguments: { query: "mcp-shared" } });
        assert.equal(found.isError, undefined, JSON.stringify(found.content));
        assert.equal((found.structuredContent as Json).results[0].item_id, "alice/notes/mcp-shared");
        const got = await client.callTool({ name: "get_item", arguments: { item_type: "knowledge", item_id: "alice/notes/mcp-shared" } });
        assert.equal((got.structuredContent as Json).item.version, "1.0.0");
      }
    } finally {
      await client.close();
    }
    assert.ok(served.length >= 7, JSON.stringify(served));
    assert.deepEqual(served.filter((s) => s.by !== s.target), [], "every request was served by the process it was pinned to");
    assert.deepEqual(new Set(served.map((s) => s.by)), new Set(["a", "b"]));
  });

  test("SIGKILL of A in the middle of pushes: every acknowledged push is there, nothing partial is left", async (t) => {
    const a = topo.processes.find((p) => p.name === "a")!;
    const versions = Array.from({ length: 24 }, (_, i) => `2.0.${i}`);
    // Acknowledged by A before it dies.
    const before: { version: string; status: number; body: Json; servedBy: string | null }[] = [];
    for (const version of versions.slice(0, 4)) {
      const res = await push("alice/notes/crash", version, "a");
      assert.equal(res.servedBy, "a");
      before.push({ version, ...res });
    }
    // In flight when it dies: half through the balancer (pinned to A: haproxy may retry them on B), half straight
    // to A's port (nothing retries them: the client sees the connection drop).
    const direct = async (version: string) => {
      const res = await fetch(`${a.url}/v1/push`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ item_type: "knowledge", item_id: "alice/notes/crash", content: knowledge("crash", version), version }),
      });
      return { status: res.status, body: (await res.json()) as Json, servedBy: "a(direct)" };
    };
    const inFlight = Promise.all(
      versions.slice(4).map(async (version, i) => ({
        version,
        ...(await (i % 2 === 0 ? push("alice/notes/crash", version, "a") : direct(version)).catch((err: Error) => ({ status: 0, body: { error: err.message }, servedBy: null }))),
      })),
    );
    await new Promise((r) => setTimeout(r, 40));
    a.child.kill("SIGKILL");
    const results = [...before, ...(await inFlight)];
    await a.exited;
    const acknowledged = results.filter((r) => r.status === 201).map((r) => r.version);
    t.diagnostic(`push answers around the kill: ${results.map((r) => `${r.version}=${r.status}@${r.servedBy ?? "-"}`).join(" ")}`);
    assert.ok(acknowledged.length >= 4, "the pushes before the kill were acknowledged");
    for (const version of acknowledged) {
      const pulled = await call("GET", `/v1/pull/knowledge/alice/notes/crash?version=${version}`, { through: "b" });
      assert.equal(pulled.status, 200, `acknowledged ${version} is served by B`);
    }
    // Nothing partial: every stored version is whole (log entry, attestation), the log is gapless, and an item row
    // never exists without a version.
    const q = async (sql: string) => Number((await db.raw.query<{ n: number }>(sql)).rows[0]!.n);
    assert.equal(await q(`SELECT count(*)::int AS n FROM items i WHERE NOT EXISTS (SELECT 1 FROM item_versions v WHERE v.item_id = i.id)`), 0);
    assert.equal(await q(`SELECT count(*)::int AS n FROM item_versions WHERE status = 'published' AND log_index IS NULL`), 0);
    assert.equal(await q(`SELECT (count(*) - COALESCE(max(index) + 1, 0))::int AS n FROM publish_log_entries`), 0);
    // A client retrying the pushes that got no answer through the balancer now reaches B: each lands once.
    for (const r of results.filter((x) => x.status !== 201)) {
      const retried = await push("alice/notes/crash", r.version);
      assert.ok(retried.status === 201 || retried.status === 409, `${r.version}: ${retried.status} ${JSON.stringify(retried.body)}`);
    }
    const stored = await db.prisma.itemVersion.count({ where: { item: { name: "crash" } } });
    assert.equal(stored, versions.length, "every version stored exactly once");
    for (const version of versions) {
      const pulled = await call("GET", `/v1/pull/knowledge/alice/notes/crash?version=${version}`, { through: "b" });
      assert.equal(pulled.status, 200, version);
      assert.match(pulled.body.content, new RegExp(`Version ${version.replaceAll(".", "\\.")}:`), `${version} is whole`);
    }
    await topo.restart("a");
  });

  test("SIGTERM to B during a load run: no request fails, B drains and exits 0", async (t) => {
    const b = topo.processes.find((p) => p.name === "b")!;
    let stop = false;
    const failures: string[] = [];
    let served = 0;
    const servedBy = new Set<string>();
    const worker = async () => {
      while (!stop) {
        const res = await call("GET", "/v1/pull/knowledge/alice/notes/shared?version=1.0.0").catch((err: Error) => ({ status: 0, body: { error: err.message }, servedBy: null }));
        if (res.status === 200) {
          served++;
          if (res.servedBy) servedBy.add(res.servedBy);
        } else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    await new Promise((r) => setTimeout(r, 700));
    b.child.kill("SIGTERM");
    const code = await b.exited;
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(workers);
    t.diagnostic(`${served} pulls served during the run`);
    assert.deepEqual(failures, [], "no request failed");
    assert.ok(served > 50, `the load ran (${served} requests)`);
    assert.deepEqual([...servedBy].sort(), ["a", "b"], "both processes served before B stopped");
    assert.equal(code, 0, b.stderr());
    assert.match(b.stdout(), /"msg":"shutting down: draining"/);
    assert.match(b.stdout(), /"msg":"stopped"/);
  });
});
