/**
 * Client ID Metadata Documents fetched from real HTTP servers on loopback: what is accepted and cached, and every kind
 * of hostile document refused with invalid_client and a reason (and not cached). The loopback servers are reachable
 * only with the operator's opt-in (allowPrivateAddresses + allowHttp); without it the same URLs are refused before
 * any connection.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { CIMD_LIMITS, ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { OAuthError } from "./errors.ts";

type Handler = (req: IncomingMessage, res: ServerResponse, url: string) => void;

let server: Server;
let base: string;
const handlers = new Map<string, Handler>();
const hits = new Map<string, number>();

before(async () => {
  server = createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    const handler = handlers.get(req.url!);
    if (!handler) return void res.writeHead(404).end();
    handler(req, res, `${base}${req.url}`);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

let n = 0;
/** A path served by `handler`; returns its URL (the client_id). */
function serve(handler: Handler): string {
  const path = `/clients/${++n}.json`;
  handlers.set(path, handler);
  return `${base}${path}`;
}
const json = (body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
};
const doc = (id: string, extra: Record<string, unknown> = {}) => ({ client_id: id, client_name: "Example MCP client", redirect_uris: ["http://127.0.0.1:33418/callback", "https://app.example/cb"], ...extra });
const good = (headers: Record<string, string> = {}): string => {
  const path = `/clients/${++n}.json`;
  const url = `${base}${path}`;
  handlers.set(path, json(doc(url), headers));
  return url;
};
const hitsOf = (url: string) => hits.get(new URL(url).pathname) ?? 0;

const optedIn = (extra: Partial<ConstructorParameters<typeof ClientMetadataDocuments>[0]> = {}) => new ClientMetadataDocuments({ allowPrivateAddresses: true, allowHttp: true, ...extra });

async function refused(documents: ClientMetadataDocuments, clientId: string, reason: RegExp): Promise<void> {
  await assert.rejects(documents.resolve(clientId), (err: unknown) => {
    assert.ok(err instanceof OAuthError, String(err));
    assert.equal(err.error, "invalid_client");
    assert.match(err.description, /^Client metadata document refused: /);
    assert.match(err.description, reason);
    return true;
  });
}

describe("accepted documents", () => {
  test("the client's name and redirect URIs, as a third-party client for items:read on /mcp", async () => {
    const url = good();
    const client = await optedIn().resolve(url);
    assert.equal(client.id, url);
    assert.equal(client.kind, "metadata-document");
    assert.equal(client.name, "Example MCP client");
    assert.deepEqual(client.redirectUris, ["http://127.0.0.1:33418/callback", "https://app.example/cb"]);
    assert.deepEqual(client.allowedScopes, ["items:read"]);
  });

  test("cached for 5 minutes by default, max-age honoured up to an hour, no-store not cached", async () => {
    assert.equal(CIMD_LIMITS.defaultCacheTtlMs, 300_000);
    assert.equal(CIMD_LIMITS.maxCacheTtlMs, 3_600_000);
    let now = 1_000_000;
    const documents = optedIn({ now: () => now });
    const plain = good();
    await documents.resolve(plain);
    await documents.resolve(plain);
    assert.equal(hitsOf(plain), 1);
    now += 300_000 - 1;
    await documents.resolve(plain);
    assert.equal(hitsOf(plain), 1);
    now += 2;
    await documents.resolve(plain);
    assert.equal(hitsOf(plain), 2);

    const long = good({ "cache-control": "public, max-age=86400" });
    await documents.resolve(long);
    now += 3_600_000 - 1;
    await documents.resolve(long);
    assert.equal(hitsOf(long), 1);
    now += 2;
    await documents.resolve(long);
    assert.equal(hitsOf(long), 2, "max-age is capped at an hour");

    const short = good({ "cache-control": "max-age=10" });
    await documents.resolve(short);
    now += 10_001;
    await documents.resolve(short);
    assert.equal(hitsOf(short), 2);

    const noStore = good({ "cache-control": "no-store" });
    await documents.resolve(noStore);
    await documents.resolve(noStore);
    assert.equal(hitsOf(noStore), 2);
  });

  test("the cache holds at most maxCacheEntries documents, dropping the oldest", async () => {
    const documents = optedIn({ limits: { maxCacheEntries: 2 } });
    const [a, b, c] = [good(), good(), good()];
    for (const url of [a, b, c]) await documents.resolve(url);
    await documents.resolve(c);
    await documents.resolve(b);
    assert.equal(hitsOf(b), 1);
    await documents.resolve(a);
    assert.equal(hitsOf(a), 2, "the oldest was dropped");
  });

  test("concurrent sign-ins share one fetch", async () => {
    const url = good();
    const documents = optedIn();
    await Promise.all([documents.resolve(url), documents.resolve(url), documents.resolve(url)]);
    assert.equal(hitsOf(url), 1);
  });
});

describe("hostile documents are refused with a reason, and not cached", () => {
  test("an http URL (without the plain-http opt-in), and the address rules without the private-address opt-in", async () => {
    const url = good();
    await refused(optedIn({ allowHttp: false }), url, /must use https/);
    await refused(new ClientMetadataDocuments({ allowPrivateAddresses: false, allowHttp: true }), url, /must use https/);
    const strict = new ClientMetadataDocuments({ allowPrivateAddresses: false, allowHttp: false });
    const port = new URL(base).port;
    await refused(strict, `https://127.0.0.1:${port}/clients/x.json`, /127\.0\.0\.1 is not a public address/);
    await refused(strict, `https://[::1]:${port}/clients/x.json`, /::1 is not a public address/);
    await refused(strict, `https://10.1.2.3/clients/x.json`, /10\.1\.2\.3 is not a public address/);
    await refused(strict, `https://[::ffff:7f00:1]:${port}/clients/x.json`, /::ffff:7f00:1 is not a public address/);
    await refused(strict, `https://169.254.169.254/latest/meta-data`, /not a public address/);
    // A name resolving to loopback is refused on the address the connection would use (the DNS lookup hook).
    await refused(strict, `https://localhost:${port}/clients/x.json`, /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
    assert.equal(hitsOf(url), 0, "nothing was fetched");
  });

  test("URLs that are not in the draft's form", async () => {
    const documents = optedIn();
    await refused(documents, "https://app.example/", /must have a path/);
    await refused(documents, "https://app.example", /must have a path/);
    await refused(documents, "https://user:pw@app.example/c.json", /credentials/);
    await refused(documents, "https://app.example/c.json#x", /fragment/);
    await refused(documents, "https://app.example/a/../c.json", /normal form/);
    await refused(documents, "https://APP.example/c.json", /normal form/);
    await refused(documents, "ftp://app.example/c.json", /must use https/);
    await refused(documents, `https://app.example/${"a".repeat(CIMD_LIMITS.maxUrlLength)}`, /longer than 2048/);
  });

  test("a document over the size cap (5 KiB), with or without Content-Length", async () => {
    assert.equal(CIMD_LIMITS.maxBytes, 5120);
    const documents = optedIn();
    const padded = (url: string, size: number) => JSON.stringify(doc(url, { padding: "x".repeat(size) }));
    const declared = serve((_req, res, url) => res.writeHead(200, { "content-type": "application/json" }).end(padded(url, 6000)));
    await refused(documents, declared, /larger than 5120 bytes/);
    const chunked = serve((_req, res, url) => {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      const body = padded(url, 6000);
      res.write(body.slice(0, 3000));
      setTimeout(() => res.end(body.slice(3000)), 20);
    });
    await refused(documents, chunked, /larger than 5120 bytes/);
    // Exactly at the cap is fine.
    const exact = serve((_req, res, url) => {
      const body = padded(url, 0);
      res.writeHead(200, { "content-type": "application/json" }).end(padded(url, 5120 - Buffer.byteLength(body)));
    });
    assert.equal((await documents.resolve(exact)).name, "Example MCP client");
  });

  test("a slow or endless document is cut at the deadline (5 s by default)", async () => {
    assert.equal(CIMD_LIMITS.timeoutMs, 5000);
    const documents = optedIn({ limits: { timeoutMs: 300 } });
    const silent = serve(() => {}); // never answers
    const started = performance.now();
    await refused(documents, silent, /no complete answer within 300 ms/);
    const endless = serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 20);
      res.on("close", () => clearInterval(timer));
    });
    await refused(documents, endless, /no complete answer within 300 ms/);
    assert.ok(performance.now() - started < 2000, "both cut at their deadline");
  });

  test("a redirect, even to a private address, is not followed", async () => {
    const documents = optedIn();
    const redirect = serve((_req, res) => res.writeHead(302, { location: "http://10.0.0.1/client.json" }).end());
    await refused(documents, redirect, /redirect \(HTTP 302\), which is not followed/);
    const toLoopback = serve((_req, res) => res.writeHead(307, { location: `${base}/clients/elsewhere.json` }).end());
    await refused(documents, toLoopback, /HTTP 307/);
    assert.equal(hits.get("/clients/elsewhere.json"), undefined);
  });

  test("a client_id that differs from the URL", async () => {
    const documents = optedIn();
    await refused(documents, serve(json(doc("https://app.example/client.json"))), /client_id is not exactly the URL/);
    await refused(documents, serve((_req, res, url) => json(doc(`${url}?x=1`))(_req, res, url)), /client_id is not exactly the URL/);
    await refused(documents, serve((_req, res, url) => json(doc(url.toUpperCase()))(_req, res, url)), /client_id is not exactly the URL/);
    await refused(documents, serve(json({ client_name: "x", redirect_uris: ["https://a.example/cb"] })), /client_id is not exactly the URL/);
  });

  test("metadata a public client cannot have, bad redirect URIs, not JSON, not 200", async () => {
    const documents = optedIn();
    const with_ = (extra: Record<string, unknown>) => serve((req, res, url) => json(doc(url, extra))(req, res, url));
    await refused(documents, with_({ client_secret: "s" }), /no client_secret/);
    await refused(documents, with_({ token_endpoint_auth_method: "client_secret_basic" }), /token_endpoint_auth_method must be none/);
    await refused(documents, with_({ grant_types: ["authorization_code", "client_credentials"] }), /grant_types/);
    await refused(documents, with_({ response_types: ["token"] }), /response_types/);
    await refused(documents, with_({ client_name: "" }), /client_name is required/);
    await refused(documents, with_({ client_name: "n".repeat(101) }), /longer than 100/);
    await refused(documents, with_({ redirect_uris: [] }), /redirect_uris must be a non-empty array/);
    await refused(documents, with_({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) }), /at most 10 redirect_uris/);
    await refused(documents, with_({ redirect_uris: ["http://app.example/cb"] }), /http on a host that is not loopback/);
    await refused(documents, with_({ redirect_uris: ["javascript:alert(1)"] }), /javascript: scheme/);
    await refused(documents, with_({ redirect_uris: ["https://app.example/cb#frag"] }), /fragment/);
    await refused(documents, serve((_req, res) => res.writeHead(200).end("<html>")), /not JSON/);
    await refused(documents, `${base}/clients/missing.json`, /HTTP 404/);
  });

  test("a refusal is not cached: a fixed document is accepted on the next try", async () => {
    const documents = optedIn();
    let broken = true;
    const url = serve((req, res, self) => (broken ? res.writeHead(500).end() : json(doc(self))(req, res, self)));
    await refused(documents, url, /HTTP 500/);
    broken = false;
    assert.equal((await documents.resolve(url)).name, "Example MCP client");
  });
});
