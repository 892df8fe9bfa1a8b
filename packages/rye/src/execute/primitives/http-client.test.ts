/** The http_client primitive against a real local node:http server. */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { RyeError } from "@rye/core";
import { runHttpClient, type HttpClientConfig } from "./http-client.ts";
import { backoffDelay, MAX_RETRY_DELAY_MS, parseRetryAfter } from "./http-retry.ts";

const hits = new Map<string, number>();
let server: Server;
let base: string;

function count(req: IncomingMessage): number {
  const key = req.url ?? "";
  const n = (hits.get(key) ?? 0) + 1;
  hits.set(key, n);
  return n;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(value));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://x");
  const n = count(req);
  switch (url.pathname) {
    case "/echo":
      return json(res, 200, { method: req.method, headers: req.headers, body: await readBody(req) }, { "set-cookie": "a=1", "x-extra": "yes" });
    case "/text":
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end("hello");
    case "/problem":
      return json(res, 422, { title: "bad" }, { "content-type": "application/problem+json" });
    case "/flaky":
      return n <= 2 ? json(res, 503, { error: "busy" }) : json(res, 200, { ok: true, n });
    case "/always-503":
      return json(res, 503, { error: "down" });
    case "/rate-limited":
      return n === 1 ? json(res, 429, {}, { "retry-after": url.searchParams.get("after") ?? "2" }) : json(res, 200, { ok: true });
    case "/missing":
      return json(res, 404, { error: "not found" });
    case "/redirect":
      res.writeHead(302, { location: "http://example.invalid/elsewhere" });
      return void res.end();
    case "/slow":
      return void setTimeout(() => json(res, 200, { late: true }), 2000).unref();
    case "/stalled-body":
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
      return;
    case "/big": {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = "x".repeat(64 * 1024);
      for (let i = 0; i < 32; i++) res.write(chunk);
      return void res.end();
    }
    case "/big-declared":
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(50 * 1024 * 1024) });
      return void res.write("x");
    default:
      return json(res, 500, { error: "unknown route" });
  }
}

before(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function recordSleeps(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

const fails = (code: string, check: (err: RyeError) => void = () => {}) => (err: unknown) => {
  assert.ok(err instanceof RyeError, String(err));
  assert.equal(err.code, code, err.message);
  check(err);
  return true;
};

test("methods, JSON and text bodies, response headers", async () => {
  const get = await runHttpClient({ url: `${base}/echo` });
  assert.equal(get.success, true);
  assert.equal(get.status, 200);
  assert.equal(get.attempts, 1);
  assert.equal((get.body as { method: string }).method, "GET");
  assert.equal(get.headers["x-extra"], "yes");
  assert.equal(get.headers["set-cookie"], "a=1");

  const post = await runHttpClient({ method: "POST", url: `${base}/echo`, body: { a: [1, 2], s: "ü" } });
  const echoed = post.body as { method: string; headers: Record<string, string>; body: string };
  assert.equal(echoed.method, "POST");
  assert.equal(echoed.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(echoed.body), { a: [1, 2], s: "ü" });

  const raw = await runHttpClient({ method: "PUT", url: `${base}/echo`, body: "a=b", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  const rawEcho = raw.body as { method: string; headers: Record<string, string>; body: string };
  assert.deepEqual([rawEcho.method, rawEcho.headers["content-type"], rawEcho.body], ["PUT", "application/x-www-form-urlencoded", "a=b"]);

  for (const method of ["DELETE", "PATCH"] as const) {
    assert.equal(((await runHttpClient({ method, url: `${base}/echo` })).body as { method: string }).method, method);
  }
  const head = await runHttpClient({ method: "HEAD", url: `${base}/echo` });
  assert.deepEqual([head.status, head.body], [200, null]);

  assert.equal((await runHttpClient({ url: `${base}/text` })).body, "hello");
  const problem = await runHttpClient({ url: `${base}/problem` });
  assert.deepEqual([problem.success, problem.status, problem.body], [false, 422, { title: "bad" }]);
});

test("auth: bearer and api_key headers are sent", async () => {
  const bearer = await runHttpClient({ url: `${base}/echo`, auth: { type: "bearer", token: "tok-123" } });
  assert.equal((bearer.body as { headers: Record<string, string> }).headers.authorization, "Bearer tok-123");
  const apiKey = await runHttpClient({ url: `${base}/echo`, auth: { type: "api_key", key: "k-1" } });
  assert.equal((apiKey.body as { headers: Record<string, string> }).headers["x-api-key"], "k-1");
  const custom = await runHttpClient({ url: `${base}/echo`, auth: { type: "api_key", key: "k-2", header: "X-Custom-Key" } });
  assert.equal((custom.body as { headers: Record<string, string> }).headers["x-custom-key"], "k-2");
  await assert.rejects(runHttpClient({ url: `${base}/echo`, auth: { type: "bearer" } }), fails("BAD_REQUEST"));
});

test("retries 503 with exponential backoff, then succeeds", async () => {
  hits.delete("/flaky");
  const { sleeps, sleep } = recordSleeps();
  const result = await runHttpClient({ url: `${base}/flaky`, retry: { max_attempts: 5, base_delay_ms: 100 } }, { sleep });
  assert.deepEqual([result.success, result.attempts, result.body], [true, 3, { ok: true, n: 3 }]);
  assert.equal(sleeps.length, 2);
  assert.ok(sleeps[0]! >= 90 && sleeps[0]! <= 110, `first wait ${sleeps[0]}`);
  assert.ok(sleeps[1]! >= 180 && sleeps[1]! <= 220, `second wait ${sleeps[1]}`);
});

test("linear backoff; the last retryable response is returned, not thrown", async () => {
  hits.delete("/always-503");
  const { sleeps, sleep } = recordSleeps();
  const result = await runHttpClient({ url: `${base}/always-503`, retry: { max_attempts: 4, backoff: "linear", base_delay_ms: 100 } }, { sleep });
  assert.deepEqual([result.success, result.status, result.attempts, hits.get("/always-503")], [false, 503, 4, 4]);
  assert.equal(sleeps.length, 3);
  sleeps.forEach((ms, i) => assert.ok(Math.abs(ms - 100 * (i + 1)) <= 10 * (i + 1), `wait ${i + 1}: ${ms}`));
});

test("429 honours Retry-After (capped at 30 s); 4xx is not retried", async () => {
  const { sleeps, sleep } = recordSleeps();
  const limited = await runHttpClient({ url: `${base}/rate-limited?after=2`, retry: { max_attempts: 3 } }, { sleep });
  assert.deepEqual([limited.success, limited.attempts, sleeps], [true, 2, [2000]]);

  const capped = recordSleeps();
  await runHttpClient({ url: `${base}/rate-limited?after=3600`, retry: { max_attempts: 2 } }, { sleep: capped.sleep });
  assert.deepEqual(capped.sleeps, [MAX_RETRY_DELAY_MS]);

  hits.delete("/missing");
  const missing = await runHttpClient({ url: `${base}/missing`, retry: { max_attempts: 5 } }, { sleep: recordSleeps().sleep });
  assert.deepEqual([missing.success, missing.status, missing.attempts, hits.get("/missing")], [false, 404, 1, 1]);
});

test("redirects are returned, not followed", async () => {
  const result = await runHttpClient({ url: `${base}/redirect`, auth: { type: "bearer", token: "secret" } });
  assert.deepEqual([result.success, result.status, result.headers.location], [true, 302, "http://example.invalid/elsewhere"]);
});

test("per-attempt timeout, including a stalled body, ends in TIMEOUT after the last attempt", async () => {
  hits.delete("/slow");
  const { sleeps, sleep } = recordSleeps();
  const started = Date.now();
  await assert.rejects(
    runHttpClient({ url: `${base}/slow`, timeout: 0.2, retry: { max_attempts: 2 } }, { sleep }),
    fails("TIMEOUT", (err) => assert.equal((err.details as { attempts: number }).attempts, 2)),
  );
  assert.ok(Date.now() - started < 15_000, "per-attempt timeouts ended a request that never answers");
  assert.deepEqual([hits.get("/slow"), sleeps.length], [2, 1]);
  await assert.rejects(runHttpClient({ url: `${base}/stalled-body`, timeout: 0.2 }), fails("TIMEOUT"));
});

test("abort signal stops the request and rejects with its reason", async () => {
  const reason = new Error("stop");
  await assert.rejects(runHttpClient({ url: `${base}/slow` }, { signal: AbortSignal.timeout(100) }), (err: unknown) => (err as Error).name === "TimeoutError");
  const controller = new AbortController();
  const run = runHttpClient({ url: `${base}/slow` }, { signal: controller.signal });
  setTimeout(() => controller.abort(reason), 50);
  await assert.rejects(run, (err) => err === reason);
});

test("response size cap while streaming and by Content-Length", async () => {
  await assert.rejects(runHttpClient({ url: `${base}/big`, max_response_bytes: 100_000 }), fails("OUTPUT_TOO_LARGE"));
  await assert.rejects(runHttpClient({ url: `${base}/big-declared` }), fails("OUTPUT_TOO_LARGE"));
  const fits = await runHttpClient({ url: `${base}/big`, max_response_bytes: 2 * 1024 * 1024 });
  assert.equal((fits.body as string).length, 2 * 1024 * 1024);
});

test("network errors retry, then UNAVAILABLE without tokens, keys or query strings", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const { sleeps, sleep } = recordSleeps();
  const config: HttpClientConfig = {
    url: `http://127.0.0.1:${port}/path?api_key=query-secret`,
    headers: { "X-Other": "header-secret" },
    auth: { type: "bearer", token: "token-secret" },
    retry: { max_attempts: 3 },
  };
  await assert.rejects(
    runHttpClient(config, { sleep }),
    fails("UNAVAILABLE", (err) => {
      const everything = JSON.stringify({ message: err.message, ...err.toEnvelope(), stack: err.stack });
      for (const secret of ["query-secret", "header-secret", "token-secret"]) assert.ok(!everything.includes(secret), secret);
      assert.match(err.message, /ECONNREFUSED/);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}/path`));
    }),
  );
  assert.equal(sleeps.length, 2);
});

test("invalid input: schemes, credentials in URL, header injection, bodies on GET, bad shapes", async () => {
  for (const url of ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "data:text/plain,hi", "not a url", "/relative"]) {
    await assert.rejects(runHttpClient({ url }), fails("INPUT_INVALID"), url);
  }
  await assert.rejects(runHttpClient({ url: "http://user:pw@127.0.0.1/" }), fails("INPUT_INVALID", (e) => assert.ok(!e.message.includes("pw"))));
  await assert.rejects(
    runHttpClient({ url: `${base}/echo`, headers: { "X-Injected": "a\r\nX-Evil: 1secret" } }),
    fails("INPUT_INVALID", (e) => assert.ok(!e.message.includes("secret"))),
  );
  await assert.rejects(runHttpClient({ url: `${base}/echo`, headers: { "Bad Name": "x" } }), fails("INPUT_INVALID"));
  await assert.rejects(runHttpClient({ url: `${base}/echo`, body: { a: 1 } }), fails("BAD_REQUEST"));
  for (const bad of [{}, { url: `${base}/echo`, method: "TRACE" }, { url: `${base}/echo`, retry: { max_attempts: 11 } }, { url: `${base}/echo`, timeout: 0 }]) {
    await assert.rejects(runHttpClient(bad as HttpClientConfig), fails("BAD_REQUEST"), JSON.stringify(bad));
  }
  await assert.rejects(runHttpClient({ url: `${base}/echo`, timeout: 3601 }), fails("INPUT_INVALID"));
});

test("retry helpers: Retry-After forms and backoff bounds", () => {
  assert.equal(parseRetryAfter("5"), 5000);
  assert.equal(parseRetryAfter("999999"), MAX_RETRY_DELAY_MS);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 0), 10_000);
  assert.equal(parseRetryAfter("soon"), undefined);
  assert.equal(parseRetryAfter(null), undefined);
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffDelay("exponential", 100, n, () => 0.5)), [100, 200, 400, 800]);
  assert.deepEqual([1, 2, 3].map((n) => backoffDelay("linear", 100, n, () => 0.5)), [100, 200, 300]);
  assert.deepEqual([backoffDelay("linear", 1000, 1, () => 0), backoffDelay("linear", 1000, 1, () => 1)], [900, 1100]);
  assert.equal(backoffDelay("exponential", 60_000, 10, () => 1), MAX_RETRY_DELAY_MS);
});
