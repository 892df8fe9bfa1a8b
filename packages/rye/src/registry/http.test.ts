/** registryFetch against small loopback servers: caps, clocks, redirects, retries and answer checks. */
import assert from "node:assert/strict";
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { z } from "zod";
import type { RyeError } from "@rye/core";
import { answerError, displayText, httpLimits, itemAnswerCap, readJson, registryFetch } from "./http.ts";
import { rejects } from "../../test/rejects.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: { close(): void; closeAllConnections(): void }[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

async function serve(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", authorization: req.headers.authorization, body });
      handler(req, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

test("limits come from the environment; a bad value is a clear error", () => {
  assert.deepEqual(httpLimits("item", {}), { connectTimeoutMs: 15_000, idleTimeoutMs: 20_000, deadlineMs: 60_000, maxBytes: itemAnswerCap(1024 * 1024) });
  assert.equal(httpLimits("document", {}).deadlineMs, 30_000);
  assert.equal(httpLimits("bundle", {}).deadlineMs, 300_000);
  const raised = httpLimits("item", { RYE_MAX_ITEM_BYTES: "4194304", RYE_HTTP_DEADLINE_MS: "90000", RYE_HTTP_IDLE_TIMEOUT_MS: "100", RYE_HTTP_CONNECT_TIMEOUT_MS: "200" });
  assert.deepEqual(raised, { connectTimeoutMs: 200, idleTimeoutMs: 100, deadlineMs: 90_000, maxBytes: itemAnswerCap(4 * 1024 * 1024) });
  for (const bad of ["0", "-5", "1.5", "ten", "1e3"]) {
    const err = (() => {
      try {
        httpLimits("document", { RYE_HTTP_IDLE_TIMEOUT_MS: bad });
      } catch (e) {
        return e as RyeError;
      }
      return undefined;
    })();
    assert.equal(err?.code, "BAD_REQUEST", bad);
    assert.match(err!.hint, /RYE_HTTP_IDLE_TIMEOUT_MS sets the longest pause/);
  }
});

test("a body over the cap is TOO_LARGE, whether announced or streamed; one under it is read", async () => {
  const { url } = await serve((req, res) => {
    if (req.url === "/announced") {
      res.writeHead(200, { "content-type": "application/json", "content-length": "5000" });
      res.write("{");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`"${"x".repeat(req.url === "/big" ? 3000 : 900)}"`);
  });
  const limits = { maxBytes: 1000 };
  await rejects(registryFetch(url, "/announced", { limits }), "TOO_LARGE", /5000 bytes/);
  const err = await rejects(registryFetch(url, "/big", { limits }), "TOO_LARGE", /more than the 1000 bytes/);
  assert.match(err.hint, /RYE_MAX_RESPONSE_BYTES/);
  assert.equal((await registryFetch(url, "/small", { limits })).text.length, 902);
});

test("the three clocks: headers, pauses between chunks, and the whole request; each a TIMEOUT naming its setting", async () => {
  const { url } = await serve((req, res) => {
    if (req.url === "/no-headers") return; // never answers
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    if (req.url === "/trickle") {
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 20);
      res.on("close", () => clearInterval(timer));
    }
  });
  const limits = { connectTimeoutMs: 150, idleTimeoutMs: 150, deadlineMs: 600 };
  const started = Date.now();
  const headers = await rejects(registryFetch(url, "/no-headers", { limits, retry: { attempts: 1 } }), "TIMEOUT", /no response headers within 150 ms/);
  assert.match(headers.hint, /RYE_HTTP_CONNECT_TIMEOUT_MS/);
  const idle = await rejects(registryFetch(url, "/stall", { limits, retry: { attempts: 1 } }), "TIMEOUT", /stopped sending data for 150 ms/);
  assert.match(idle.hint, /RYE_HTTP_IDLE_TIMEOUT_MS/);
  const total = await rejects(registryFetch(url, "/trickle", { limits }), "TIMEOUT", /did not finish its answer within 600 ms/);
  assert.match(total.hint, /RYE_HTTP_DEADLINE_MS/);
  assert.ok(Date.now() - started < 3000);
  // Retries of a stalled GET stay within the deadline.
  const retried = Date.now();
  await rejects(registryFetch(url, "/stall", { limits: { ...limits, deadlineMs: 1000 }, retry: { attempts: 10, baseDelayMs: 10 } }), "TIMEOUT");
  assert.ok(Date.now() - retried < 1500, `${Date.now() - retried} ms`);
});

test("redirects: the token stays on the registry's origin, loops and long chains end, a POST never becomes a GET or leaves", async () => {
  const other = await serve((req, res) => json(res, 200, { at: "other", path: req.url }));
  const { url, seen } = await serve((req, res) => {
    const [, kind, n] = (req.url ?? "").split("/");
    const go = (status: number, location: string) => {
      res.writeHead(status, { location });
      res.end();
    };
    if (kind === "same") return go(302, "/final");
    if (kind === "cross") return go(302, `${other.url}/elsewhere`);
    if (kind === "loop") return go(302, "/loop");
    if (kind === "chain") return go(301, `/chain/${Number(n || 0) + 1}`);
    if (kind === "post-302") return go(302, "/final");
    if (kind === "post-307") return go(307, "/final");
    if (kind === "post-307-cross") return go(307, `${other.url}/final`);
    if (kind === "no-location") return go(302, "");
    if (kind === "ftp") return go(302, "ftp://example.test/x");
    return json(res, 200, { at: "registry", path: req.url, method: req.method });
  });

  const same = await registryFetch(url, "/same", { token: "secret" });
  assert.deepEqual(JSON.parse(same.text), { at: "registry", path: "/final", method: "GET" });
  assert.equal(seen.at(-1)!.authorization, "Bearer secret", "same origin: the token follows");

  const cross = await registryFetch(url, "/cross", { token: "secret" });
  assert.equal(JSON.parse(cross.text).at, "other");
  assert.equal(cross.url, `${other.url}/elsewhere`);
  assert.equal(other.seen.at(-1)!.authorization, undefined, "another origin never gets the token");

  await rejects(registryFetch(url, "/loop"), "UNAVAILABLE", /redirect loop/);
  await rejects(registryFetch(url, "/chain/0"), "UNAVAILABLE", /more than 5 redirects/);
  await rejects(registryFetch(url, "/no-location"), "UNAVAILABLE", /without a Location/);
  await rejects(registryFetch(url, "/ftp"), "UNAVAILABLE", /ftp: scheme/);
  await rejects(registryFetch(url, "/post-302", { json: { a: 1 }, token: "secret" }), "UNAVAILABLE", /turn the POST into a GET/);
  await rejects(registryFetch(url, "/post-307-cross", { json: { a: 1 }, token: "secret" }), "UNAVAILABLE", /never sent to another origin/);
  assert.equal(other.seen.filter((s) => s.method === "POST").length, 0);
  const kept = await registryFetch(url, "/post-307", { json: { a: 1 }, token: "secret" });
  assert.deepEqual(JSON.parse(kept.text), { at: "registry", path: "/final", method: "POST" });
  assert.equal(seen.at(-1)!.body, '{"a":1}', "a 307 keeps the body");
  const loops = seen.filter((s) => s.path === "/loop").length;
  assert.equal(loops, 1, "a refused redirect is not retried");
});

test("only GETs are retried, on network errors and 429/502/503/504, honouring Retry-After within the deadline", async () => {
  let n = 0;
  const { url, seen } = await serve((req, res) => {
    n++;
    if (req.url === "/busy" && n < 3) return json(res, 503, { error: { code: "UNAVAILABLE", message: "busy", hint: "later" } });
    if (req.url === "/slow-down") return json(res, 429, { error: { code: "RATE_LIMITED", message: "slow", hint: "wait" } }, { "retry-after": "30" });
    return json(res, 200, { ok: true });
  });
  assert.equal((await registryFetch(url, "/busy", { retry: { baseDelayMs: 1 } })).status, 200);
  assert.equal(seen.length, 3);
  const started = Date.now();
  const limited = await registryFetch(url, "/slow-down", { limits: { deadlineMs: 500 } });
  assert.equal(limited.status, 429, "a Retry-After beyond the deadline ends the retries at once");
  assert.ok(Date.now() - started < 400);
  n = 0;
  assert.equal((await registryFetch(url, "/busy", { json: {}, retry: { baseDelayMs: 1 } })).status, 503, "a POST is sent once");
});

test("answers: the registry's envelope, its own failures as UNAVAILABLE, non-JSON and wrong shapes as MALFORMED_RESPONSE, no control characters", async () => {
  const { url } = await serve((req, res) => {
    if (req.url === "/envelope") return json(res, 409, { error: { code: "VERSION_EXISTS", message: "exists \u001b[31mred\u001b[0m", hint: "bump it" } });
    if (req.url === "/internal") return json(res, 500, { error: { code: "INTERNAL", message: "db down", hint: "This is a bug in rye" } });
    if (req.url === "/html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>portal</html>");
    }
    if (req.url === "/latin1") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(Buffer.from([0x22, 0xe9, 0x22]));
    }
    return json(res, 200, { name: 42 });
  });
  const envelope = answerError(await registryFetch(url, "/envelope"));
  assert.equal(envelope.code, "VERSION_EXISTS");
  assert.equal(envelope.message, "exists [31mred[0m");
  assert.equal(envelope.hint, "bump it");
  const internal = answerError(await registryFetch(url, "/internal", { retry: { attempts: 1 } }));
  assert.equal(internal.code, "UNAVAILABLE");
  assert.match(internal.message, /The registry at .* failed: db down/);
  assert.doesNotMatch(internal.hint, /bug in rye/);
  const html = await registryFetch(url, "/html");
  assert.throws(() => readJson(html), (e: RyeError) => e.code === "MALFORMED_RESPONSE" && /not JSON \(text\/html; a captive portal/.test(e.message));
  await rejects(registryFetch(url, "/latin1"), "MALFORMED_RESPONSE", /not UTF-8/);
  const shape = await registryFetch(url, "/shape");
  assert.throws(
    () => readJson(shape, z.object({ name: z.string() })),
    (e: RyeError) => e.code === "MALFORMED_RESPONSE" && /name: /.test(e.message) && Array.isArray(e.details),
  );
  assert.equal(displayText("a\u0007b\u202ec\nd"), "abc\nd");
});

test("an unreachable registry is UNAVAILABLE with the URL; a cancelled request says so", async () => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((r) => server.close(() => r()));
  const err = await rejects(registryFetch(url, "/v1/keys", { retry: { attempts: 2, baseDelayMs: 1 } }), "UNAVAILABLE");
  assert.match(err.message, new RegExp(`Cannot reach the registry at ${url}`));
  const { url: silent } = await serve(() => undefined);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await rejects(registryFetch(silent, "/x", { signal: controller.signal }), "BAD_REQUEST", /Cancelled/);
});
