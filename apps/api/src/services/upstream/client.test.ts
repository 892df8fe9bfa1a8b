/** The upstream HTTP client against real loopback servers that misbehave: every failure is UPSTREAM_UNAVAILABLE. */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { RyeError } from "@rye/core";
import { MAX_MIRROR_HOPS, mirrorHops, UpstreamClient } from "./client.ts";

const servers: ReturnType<typeof createServer>[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const unavailable = (pattern: RegExp) => (err: unknown) => err instanceof RyeError && err.code === "UPSTREAM_UNAVAILABLE" && pattern.test(err.message);

test("a JSON answer and a 404 are returned; the request carries no credentials", async () => {
  const seen: IncomingMessage["headers"][] = [];
  const url = await upstream((req, res) => {
    seen.push(req.headers);
    res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: req.url }));
  });
  const client = new UpstreamClient({ upstreamUrl: url, maxAnswerBytes: 1024 });
  assert.deepEqual(await client.getJson("/v1/x", 2000), { status: 200, body: { ok: "/v1/x" } });
  assert.deepEqual(await client.getJson("/missing", 2000), { status: 404, body: { ok: "/missing" } });
  assert.equal(seen[0]!.authorization, undefined);
  assert.equal(seen[0]!.cookie, undefined);
  assert.equal(seen[0]!["x-rye-mirror-hops"], "1");
  await client.getJson("/v1/x", 2000, 2);
  assert.equal(seen[2]!["x-rye-mirror-hops"], "3", "one more than the hops the request came with");
});

test("past MAX_MIRROR_HOPS nothing is forwarded (mirrors configured in a loop)", async () => {
  let requests = 0;
  const url = await upstream((_req, res) => {
    requests++;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await assert.rejects(new UpstreamClient({ upstreamUrl: url, maxAnswerBytes: 1024 }).getJson("/v1/x", 2000, MAX_MIRROR_HOPS), unavailable(/passed through 4 mirrors/));
  assert.equal(requests, 0);
  assert.deepEqual(["3", "", "x", "-1", "1.5", undefined].map((h) => mirrorHops(h)), [3, 0, 0, 0, 0, 0]);
});

test("no answer within the deadline (headers, or a body that stalls) ends the request", async () => {
  const silent = await upstream(() => undefined);
  await assert.rejects(new UpstreamClient({ upstreamUrl: silent, maxAnswerBytes: 1024 }).getJson("/v1/x", 200), unavailable(/no answer within 200 ms/));
  const stalling = await upstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write("{");
  });
  await assert.rejects(new UpstreamClient({ upstreamUrl: stalling, maxAnswerBytes: 1024 }).getJson("/v1/x", 200), unavailable(/within 200 ms/));
});

test("answers over RYE_UPSTREAM_MAX_BYTES are refused, declared or streamed", async () => {
  const declared = await upstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "2048" });
    res.end("x".repeat(2048));
  });
  await assert.rejects(new UpstreamClient({ upstreamUrl: declared, maxAnswerBytes: 1024 }).getJson("/", 2000), unavailable(/RYE_UPSTREAM_MAX_BYTES \(1024 bytes\)/));
  const chunked = await upstream((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    for (let i = 0; i < 8; i++) res.write("x".repeat(512));
    res.end();
  });
  await assert.rejects(new UpstreamClient({ upstreamUrl: chunked, maxAnswerBytes: 1024 }).getJson("/", 2000), unavailable(/RYE_UPSTREAM_MAX_BYTES/));
});

test("server errors, redirects, non-JSON answers and closed ports are UPSTREAM_UNAVAILABLE", async () => {
  const url = await upstream((req, res) => {
    if (req.url === "/500") res.writeHead(500).end("boom");
    else if (req.url === "/redirect") res.writeHead(302, { location: "http://example.invalid/" }).end();
    else res.writeHead(200, { "content-type": "text/html" }).end("<html>captive portal</html>");
  });
  const client = new UpstreamClient({ upstreamUrl: url, maxAnswerBytes: 1024 });
  await assert.rejects(client.getJson("/500", 2000), unavailable(/HTTP 500/));
  await assert.rejects(client.getJson("/redirect", 2000), unavailable(/HTTP 302/));
  await assert.rejects(client.getJson("/html", 2000), unavailable(/not JSON/));
  const closed = await upstream(() => undefined);
  servers.at(-1)!.close();
  await once(servers.at(-1)!, "close");
  await assert.rejects(new UpstreamClient({ upstreamUrl: closed, maxAnswerBytes: 1024 }).getJson("/", 2000), unavailable(/ECONNREFUSED/));
});
