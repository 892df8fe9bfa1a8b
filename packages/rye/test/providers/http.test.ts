/**
 * The provider's transport (`.ai/tools/rye/agent/threads/http.mjs`, node:http/https) against real servers on
 * loopback: what the provider adapter relies on from `fetch` — redirects never followed, the body read piece by
 * piece as it arrives (SSE), abort and cancel close the connection, content-encoding decoded, TLS verified against
 * Node's CA store — and that using it loads no undici. The adapter's behaviour over it (timeouts, size caps, error
 * mapping, streaming) is the rest of test/providers, which runs on this transport.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { programPath, skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { fetch } from "../../../../.ai/tools/rye/agent/threads/http.mjs";
import { THREADS_DIR } from "../runtime/files.ts";

const run = promisify(execFile);

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const readAll = async (body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } } | null) => {
  const reader = body!.getReader();
  const pieces: Buffer[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) return Buffer.concat(pieces).toString("utf8");
    pieces.push(Buffer.from(next.value!));
  }
};

describe("the provider's node:http transport", () => {
  it("sends the method, headers and body as given, and answers status, headers and body", async () => {
    let seen: { method?: string; headers?: Record<string, unknown>; body?: string } = {};
    const s = await serve((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen = { method: req.method, headers: req.headers, body };
        res.writeHead(201, "Made", { "content-type": "application/json", "x-one": "1", "set-cookie": ["a=1", "b=2"] });
        res.end('{"ok":true}');
      });
    });
    try {
      const response = await fetch(new URL(`${s.url}/v1/messages`), { method: "POST", headers: { "content-type": "application/json", "x-api-key": "k" }, body: '{"q":"é"}' });
      assert.equal(seen.method, "POST");
      assert.equal(seen.body, '{"q":"é"}');
      assert.equal(seen.headers?.["x-api-key"], "k");
      assert.equal(seen.headers?.["content-length"], String(Buffer.byteLength('{"q":"é"}')), "length in bytes, not characters");
      assert.deepEqual([response.status, response.statusText, response.ok], [201, "Made", true]);
      assert.equal(response.headers.get("Content-Type"), "application/json");
      const names: string[] = [];
      response.headers.forEach((_value, name) => names.push(name));
      assert.ok(names.includes("x-one") && names.includes("content-type"));
      assert.equal(await readAll(response.body), '{"ok":true}');
    } finally {
      await s.close();
    }
  });

  it("never follows a redirect: the 3xx comes back to the caller, and nothing reaches its target", async () => {
    let followed = 0;
    const s = await serve((req, res) => {
      if (req.url === "/elsewhere") followed++;
      res.writeHead(307, { location: "/elsewhere" });
      res.end();
    });
    try {
      const response = await fetch(new URL(`${s.url}/v1/messages`), { method: "POST", headers: {}, body: "{}", redirect: "manual" });
      assert.equal(response.status, 307);
      assert.equal(response.ok, false);
      await response.body?.cancel();
      assert.equal(followed, 0);
    } finally {
      await s.close();
    }
  });

  it("hands over each piece of a stream as it arrives, before the reply ends", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      void held.then(() => res.end("data: two\n\n"));
    });
    try {
      const reader = (await fetch(new URL(s.url), { method: "POST", body: "{}" })).body!.getReader();
      const first = await reader.read();
      assert.equal(Buffer.from(first.value!).toString(), "data: one\n\n", "the first event arrives while the server holds the rest");
      release();
      assert.equal(Buffer.from((await reader.read()).value!).toString(), "data: two\n\n");
      assert.equal((await reader.read()).done, true);
    } finally {
      await s.close();
    }
  });

  it("an abort before the reply rejects with the signal's reason and closes the connection", async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const s = await serve((req) => req.on("close", closed)); // never answers
    try {
      const controller = new AbortController();
      const pending = fetch(new URL(s.url), { method: "POST", body: "{}", signal: controller.signal });
      setTimeout(() => controller.abort(new Error("deadline")), 50);
      await assert.rejects(pending, /deadline/);
      await gone;
      const already = new AbortController();
      already.abort();
      await assert.rejects(fetch(new URL(s.url), { signal: already.signal }), { name: "AbortError" });
    } finally {
      await s.close();
    }
  });

  it("an abort while the body is read makes the pending read reject and closes the connection; so does cancel()", async () => {
    const closes: Promise<void>[] = [];
    const s = await serve((req, res) => {
      closes.push(new Promise((resolve) => res.on("close", () => resolve())));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": keep-alive\n\n"); // and never ends
      void req;
    });
    try {
      const controller = new AbortController();
      const response = await fetch(new URL(s.url), { method: "POST", body: "{}", signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      const pending = reader.read();
      controller.abort(new Error("stalled"));
      await assert.rejects(pending, /stalled/);
      await closes[0];

      const second = await fetch(new URL(s.url), { method: "POST", body: "{}" });
      const secondReader = second.body!.getReader();
      await secondReader.read();
      await secondReader.cancel();
      await closes[1];
    } finally {
      await s.close();
    }
  });

  it("a connection broken in the middle of the body rejects the read (not a silent end)", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream", "content-length": "1000" });
      res.write("data: partial\n\n");
      setTimeout(() => res.socket?.destroy(), 20);
    });
    try {
      const reader = (await fetch(new URL(s.url), { method: "POST", body: "{}" })).body!.getReader();
      await reader.read();
      await assert.rejects(reader.read());
    } finally {
      await s.close();
    }
  });

  it("decodes a gzip content-encoding, as fetch does", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"zipped":true}'));
    });
    try {
      assert.equal(await readAll((await fetch(new URL(s.url))).body), '{"zipped":true}');
    } finally {
      await s.close();
    }
  });

  it("refuses a URL that is not http or https, and a refused connection rejects with its code", async () => {
    await assert.rejects(fetch(new URL("file:///etc/passwd")), TypeError);
    await assert.rejects(fetch(new URL("http://127.0.0.1:1/")), (err: NodeJS.ErrnoException) => err.code === "ECONNREFUSED");
  });

  it("goes through the proxy Node is told to use (NODE_USE_ENV_PROXY with HTTP_PROXY), as fetch does", async () => {
    const seen: string[] = [];
    const proxy = await serve((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end("via the proxy");
    });
    try {
      const module = pathToFileURL(join(THREADS_DIR, "http.mjs")).href;
      const script = `const { fetch } = await import(${JSON.stringify(module)});
const r = await fetch(new URL("http://upstream.invalid/v1/messages"), { method: "POST", body: "{}" });
const reader = r.body.getReader(); let text = ""; for (;;) { const n = await reader.read(); if (n.done) break; text += Buffer.from(n.value); }
console.log(JSON.stringify({ status: r.status, text }));`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url, NO_PROXY: "" } });
      assert.deepEqual(JSON.parse(stdout), { status: 200, text: "via the proxy" });
      assert.deepEqual(seen, ["POST http://upstream.invalid/v1/messages"]);
    } finally {
      await proxy.close();
    }
  });

  describe("https", { skip: skipWithoutProgram("openssl") }, () => {
    let work: string;
    let cert: string;
    let url: string;
    let server: Server;
    before(async () => {
      work = await mkdtemp(join(tmpdir(), "rye-http-tls-"));
      const key = join(work, "key.pem");
      cert = join(work, "cert.pem");
      await run(programPath("openssl")!, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]);
      server = createTlsServer({ key: await readFile(key), cert: await readFile(cert) }, (_req, res) => res.end("over tls"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    after(async () => {
      await new Promise((resolve) => server.close(resolve));
      await rm(work, { recursive: true, force: true });
    });

    it("refuses a certificate Node does not trust", async () => {
      await assert.rejects(fetch(new URL(url)), (err: NodeJS.ErrnoException) => /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/.test(String(err.code)));
    });

    it("accepts it once it is in Node's CA store (NODE_EXTRA_CA_CERTS), in a process that never loads undici", async () => {
      const module = pathToFileURL(join(THREADS_DIR, "http.mjs")).href;
      const script = `const { fetch } = await import(${JSON.stringify(module)});
const r = await fetch(new URL(${JSON.stringify(url)}));
const reader = r.body.getReader(); let text = ""; for (;;) { const n = await reader.read(); if (n.done) break; text += Buffer.from(n.value); }
const undici = process.moduleLoadList.some((m) => m.includes("undici"));
console.log(JSON.stringify({ status: r.status, text, undici }));`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert } });
      assert.deepEqual(JSON.parse(stdout), { status: 200, text: "over tls", undici: false });
    });
  });
});
