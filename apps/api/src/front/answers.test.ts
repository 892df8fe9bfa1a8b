/**
 * The front path (front/answers.ts) over real HTTP: it answers /health and a cached public pull exactly as the
 * app does (status, body, headers, the download, the access line, the request id, the rate limit), never a stale,
 * private or mirrored answer, and leaves to the app every request it could answer differently.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { signItem } from "@rye/core";
import { generateKeyPair } from "@rye/core";
import { createApp } from "../app.ts";
import type { Logger } from "../logger.ts";
import { createTestRegistry, type TestRegistry, type TestUser } from "../../test/harness.ts";
import { FrontAnswers, plainPullTarget } from "./answers.ts";

type Line = { msg: string; fields: Record<string, unknown> };

const READS = 40;
let reg: TestRegistry;
let server: Server;
let base: string;
let front: FrontAnswers;
let alice: TestUser;
let aliceToken: string;
const lines: Line[] = [];

const knowledge = (name: string, version: string) => `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\n# ${name}\n\nKeep it short.\n`;

before(async () => {
  reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: READS, writes: 1000 } } });
  const logger: Logger = { log: (level, msg, fields) => void (level === "info" && msg === "request" && lines.push({ msg, fields: { ...fields } })) };
  const deps = { ...reg.deps, logger };
  front = new FrontAnswers(deps);
  server = createServer(front.listener(getRequestListener(createApp(deps).fetch)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  alice = await reg.createUser("alice");
  aliceToken = await reg.token(alice);
  const key = await generateKeyPair();
  await reg.db.prisma.userKey.create({ data: { userId: alice.id, fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
  for (const [id, version, visibility] of [
    ["alice/notes/open", "1.0.0", undefined],
    ["alice/notes/open", "1.1.0", undefined],
    ["alice/notes/secret", "1.0.0", "private"],
  ] as const) {
    const content = (await signItem(knowledge(id.split("/")[2]!, version), "knowledge", key)).content;
    const res = await reg.request("POST", "/v1/push", { token: aliceToken, json: { item_type: "knowledge", item_id: id, content, version, ...(visibility ? { metadata: { visibility } } : {}) } });
    assert.equal(res.status, 201, await res.text());
  }
});
after(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await reg?.close();
});

/** One request over HTTP (all from 127.0.0.1: one read budget, spent by the last test). */
async function pull(path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await fetch(`${base}${path}`, { method, headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

/** The headers that are the same for two answers of the same pull (not the per-request ones). */
function stableHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (!["date", "x-request-id", "ratelimit-remaining", "ratelimit-reset", "keep-alive", "connection"].includes(k)) out[k] = v;
  });
  return out;
}

const downloadsOf = async (version: string) => {
  await reg.deps.reads.downloads.flush();
  const rows = await reg.db.prisma.downloadDay.findMany({ where: { version, item: { name: "open" } } });
  return rows.reduce((n, r) => n + r.count, 0);
};

describe("plainPullTarget", () => {
  test("names the pulls written in unreserved characters only, with no query or exactly version=", () => {
    assert.deepEqual(plainPullTarget("/v1/pull/knowledge/alice/notes/open?version=1.0.0"), { path: "/v1/pull/knowledge/alice/notes/open", type: "knowledge", id: "alice/notes/open", version: "1.0.0" });
    assert.deepEqual(plainPullTarget("/v1/pull/tool/a/b"), { path: "/v1/pull/tool/a/b", type: "tool", id: "a/b", version: undefined });
    for (const url of [
      "/v1/pull/knowledge/alice/notes/op%65n",
      "/v1/pull/knowledge/alice/notes/open?version=1.0.0+build",
      "/v1/pull/knowledge/alice/notes/open?version=1.0.0&version=1.1.0",
      "/v1/pull/knowledge/alice/notes/open?version=",
      "/v1/pull/knowledge/alice/notes/open?tlog_from=0",
      "/v1/pull/knowledge/alice/notes/open?version=1.0.0&tlog_from=0",
      "/v1/pull/knowledge/alice//open",
      "/v1/pull/knowledge/alice/notes/open/",
      "/v1/pull/knowledge",
      "/v1/pulls/knowledge/a/b",
    ]) {
      assert.equal(plainPullTarget(url), null, url);
    }
  });
});

describe("/health in front", () => {
  test("the app's answer, headers and access line, with the request id kept", async () => {
    const served = front.served;
    const viaApp = await pull("/health?via=app");
    const mine = await pull("/health", { "x-request-id": "health-1" });
    assert.equal(front.served, served + 1);
    assert.equal(mine.status, 200);
    assert.deepEqual(JSON.parse(mine.body.toString()), JSON.parse(viaApp.body.toString()));
    assert.deepEqual(JSON.parse(mine.body.toString()), { status: "healthy", version: reg.deps.version, database: "connected", database_kind: reg.deps.db.kind });
    assert.deepEqual(stableHeaders(mine.headers), stableHeaders(viaApp.headers));
    assert.equal(mine.headers.get("x-request-id"), "health-1");
    const [app, own] = lines.slice(-2);
    assert.deepEqual({ ...own!.fields, ms: 0, requestId: "", path: "" }, { ...app!.fields, ms: 0, requestId: "", path: "" });
    assert.equal(own!.fields.path, "/health");
    // Not GET: the app's 404.
    assert.equal((await pull("/health", {}, "POST")).status, 404);
  });
});

describe("/health in front, database down", () => {
  test("degraded, as the route says it", async () => {
    const down = { ...reg.deps, db: { ...reg.deps.db, raw: { ...reg.deps.db.raw, query: () => Promise.reject(new Error("connection refused")) } } } as typeof reg.deps;
    const srv = createServer(new FrontAnswers(down).listener(getRequestListener(createApp(down).fetch)));
    srv.listen(0, "127.0.0.1");
    await once(srv, "listening");
    try {
      const res = await fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/health`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: "degraded", version: reg.deps.version, database: "error", database_kind: reg.deps.db.kind });
    } finally {
      srv.closeAllConnections();
      await new Promise((resolve) => srv.close(resolve));
    }
  });
});

describe("pulls in front", () => {
  const pinned = "/v1/pull/knowledge/alice/notes/open?version=1.0.0";

  test("answers a cached public pull exactly as the app does, and counts it as a download", async () => {
    const downloads = await downloadsOf("1.0.0");
    const served = front.served;
    const first = await pull(pinned); // a miss: the app reads and caches it
    assert.equal(front.served, served);
    const second = await pull(pinned, { "x-request-id": "front-test-1" });
    assert.equal(front.served, served + 1, "the second pull is answered in front");
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.deepEqual(stableHeaders(second.headers), stableHeaders(first.headers));
    assert.equal(second.headers.get("x-request-id"), "front-test-1");
    assert.equal(Number(second.headers.get("ratelimit-remaining")), Number(first.headers.get("ratelimit-remaining")) - 1, "both count against one budget");
    assert.match(first.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    assert.equal(await downloadsOf("1.0.0"), downloads + 2);
    // The same access line as the app writes.
    const [app, mine] = lines.slice(-2);
    assert.deepEqual(Object.keys(mine!.fields).sort(), Object.keys(app!.fields).sort());
    assert.deepEqual({ ...mine!.fields, ms: 0, requestId: "" }, { ...app!.fields, ms: 0, requestId: "" });
    assert.equal(mine!.fields.requestId, "front-test-1");
    // Latest too.
    const latest = await pull("/v1/pull/knowledge/alice/notes/open");
    assert.deepEqual((await pull("/v1/pull/knowledge/alice/notes/open")).body, latest.body);
    assert.equal(front.served, served + 2);
  });

  test("never serves an answer of an older read generation: a yank is seen by the very next pull", async () => {
    await pull(pinned);
    const served = front.served;
    assert.equal(JSON.parse((await pull(pinned)).body.toString()).yanked, false);
    assert.equal(front.served, served + 1);
    const yank = await reg.request("POST", "/v1/yank/knowledge/alice/notes/open", { token: aliceToken, json: { version: "1.0.0", reason: "broken" } });
    assert.equal(yank.status, 200, await yank.text());
    const after = await pull(pinned);
    assert.equal(front.served, served + 1, "the app answers after the change");
    assert.equal(JSON.parse(after.body.toString()).yanked, true);
    const unyank = await reg.request("POST", "/v1/unyank/knowledge/alice/notes/open", { token: aliceToken, json: { version: "1.0.0" } });
    assert.equal(unyank.status, 200, await unyank.text());
  });

  test("never answers a private item, even one a member's read put in the cache", async () => {
    const secret = "/v1/pull/knowledge/alice/notes/secret?version=1.0.0";
    assert.equal((await pull(secret, { authorization: `Bearer ${aliceToken}` })).status, 200);
    const served = front.served;
    const anonymous = await pull(secret);
    assert.equal(anonymous.status, 404);
    assert.equal(JSON.parse(anonymous.body.toString()).error.code, "ITEM_NOT_FOUND");
    assert.equal(front.served, served);
  });

  test("leaves to the app what it could answer differently: tokens, revalidations, views, HEAD, escapes, proofs", async () => {
    const warm = await pull(pinned);
    const downloads = await downloadsOf("1.0.0");
    const served = front.served;
    assert.equal((await pull(pinned, { authorization: `Bearer ${aliceToken}` })).status, 200);
    assert.equal((await pull(pinned, { authorization: "Bearer rye_pat_unknown" })).status, 401);
    assert.equal((await pull(pinned, { "if-none-match": warm.headers.get("etag")! })).status, 304);
    assert.equal((await pull(pinned, { "x-rye-purpose": "view" })).status, 200);
    assert.equal((await pull(pinned, {}, "HEAD")).status, 200);
    const escaped = await pull("/v1/pull/knowledge/alice/notes/op%65n?version=1.0.0");
    assert.equal(escaped.status, 200);
    assert.deepEqual(escaped.body, warm.body);
    assert.equal((await pull(`${pinned}&version=1.1.0`)).status, 400);
    const proven = await pull(`${pinned}&tlog_from=0`);
    assert.equal(proven.status, 200);
    assert.ok(JSON.parse(proven.body.toString()).transparency, "the proof is the app's to attach");
    assert.equal(front.served, served);
    // The token's pull, the escaped one and the proven one count; the view, the HEAD and the 304 do not.
    assert.equal(await downloadsOf("1.0.0"), downloads + 3);
  });

  test("over the read budget the app answers the 429, as without the front path", async () => {
    // Spend what is left of this address's budget.
    let last = await pull(pinned);
    while (last.status === 200) last = await pull(pinned);
    assert.equal(last.status, 429);
    assert.equal(JSON.parse(last.body.toString()).error.code, "RATE_LIMITED");
    assert.equal(last.headers.get("ratelimit-remaining"), "0");
    assert.equal(last.headers.get("ratelimit-limit"), String(READS));
  });
});
