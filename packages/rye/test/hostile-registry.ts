/**
 * A misbehaving server in front of a real rye registry: a compromised mirror, a captive proxy, or a
 * registry host taken over while its signing key stays safe. Requests pass through to the registry
 * unless `attack` says otherwise; attacks on items apply to `GET /v1/pull/…` only, so the client has
 * the registry's genuine key list and checkpoints unless an attack replaces those too.
 */
import { once } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { KeyPair } from "@rye/core";
import { extractSignature, generateKeyPair, sha256Hex, signDocument, signItem } from "@rye/core";

export type Attack =
  | { kind: "pass" }
  /** Mix-and-match: the genuine answer for `version` relabelled as the version asked for. */
  | { kind: "relabel"; version: string; attestation: "keep" | "drop" }
  /** Every pull answered with the genuine answer for `version` (a stale "latest", a replayed answer). */
  | { kind: "stale"; version: string }
  /** One byte of the content changed. */
  | { kind: "tamper" }
  /** The host signs with a key of its own (no rotation statement) and publishes it as the active key. */
  | { kind: "key-swap" }
  /** The genuine answer of another item. */
  | { kind: "wrong-item"; id: string }
  /** 200 with an HTML page (a captive portal). */
  | { kind: "not-json" }
  /** JSON without the attestation and with a number for the content. */
  | { kind: "malformed" }
  /** 200 and a JSON body that never ends, as fast as the client reads. */
  | { kind: "endless" }
  /** Announces a 10 GB body. */
  | { kind: "huge" }
  /** Headers, then silence. */
  | { kind: "stall" }
  /** Headers, then one byte every `everyMs`. */
  | { kind: "trickle"; everyMs: number }
  /** Redirects to itself, forever. */
  | { kind: "redirect-loop" }
  /** Redirects to the same path on `origin` (another server). */
  | { kind: "redirect"; origin: string }
  /** Pull answers carry an earlier genuine transparency section: an older signed checkpoint (a rollback of the log). */
  | { kind: "old-checkpoint"; transparency: unknown }
  /** Pull answers without their transparency section. */
  | { kind: "strip-proof" }
  /** Pull answers carry the genuine transparency section of a pull of `id` at the same time (the proof of another entry). */
  | { kind: "other-proof"; id: string };

export interface RecordedRequest {
  method: string;
  path: string;
  authorized: boolean;
  /** When the request arrived and when its connection closed (ms since the epoch). */
  started: number;
  ended?: number;
}

export interface HostileRegistry {
  url: string;
  attack: Attack;
  requests: RecordedRequest[];
  /** The key a `key-swap` signs with. */
  forger: KeyPair;
  close(): Promise<void>;
}

const PULL = /^\/v1\/pull\/(directive|tool|knowledge)\/([^?]+)/;

async function upstream(target: string, req: IncomingMessage, path: string): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const res = await fetch(`${target}${path}`, { method: req.method ?? "GET", headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function withVersion(path: string, version: string): string {
  const url = new URL(path, "http://x");
  url.searchParams.set("version", version);
  return `${url.pathname}${url.search}`;
}

/** Re-signs a pull answer with `key` (content and attestation), keeping the registry provenance. */
async function forge(body: Record<string, any>, key: KeyPair): Promise<Record<string, any>> {
  const type = body.item_type as "directive" | "tool" | "knowledge";
  const sig = extractSignature(body.content, type);
  const username = sig.status === "signed" ? (sig.signature.username ?? "alice") : "alice";
  const signed = await signItem(body.content, type, key, { provenance: { provider: "rye-registry", username } });
  const payload = { ...body.attestation.payload, file_sha256: sha256Hex(signed.content), content_hash: signed.signature.hash };
  return { ...body, content: signed.content, content_hash: signed.signature.hash, file_sha256: sha256Hex(signed.content), attestation: await signDocument(payload, key) };
}

export async function startHostileRegistry(target: string): Promise<HostileRegistry> {
  const forger = await generateKeyPair();
  const timers = new Set<NodeJS.Timeout>();
  const state: HostileRegistry = { url: "", attack: { kind: "pass" }, requests: [], forger, close: async () => undefined };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "/";
    const record: RecordedRequest = { method: req.method ?? "GET", path, authorized: /^bearer /i.test(req.headers.authorization ?? ""), started: Date.now() };
    state.requests.push(record);
    res.on("close", () => (record.ended = Date.now()));
    const attack = state.attack;
    const pull = PULL.exec(path);

    if (attack.kind === "key-swap" && path === "/v1/keys") {
      const genuine = JSON.parse((await upstream(target, req, path)).text) as { registry: string };
      return sendJson(res, 200, {
        registry: genuine.registry,
        active: forger.publicKey.fingerprint,
        keys: [{ fingerprint: forger.publicKey.fingerprint, public_key: forger.publicKey.pem, algorithm: "ed25519", active: true, previous_fingerprint: null, rotation: null, revoked_at: null }],
      });
    }
    if (attack.kind === "redirect-loop" && pull) {
      res.writeHead(302, { location: path });
      return void res.end();
    }
    if (attack.kind === "redirect" && pull) {
      res.writeHead(307, { location: `${attack.origin}${path}` });
      return void res.end();
    }
    if (pull && attack.kind !== "pass" && attack.kind !== "key-swap" && attack.kind !== "old-checkpoint" && attack.kind !== "strip-proof" && attack.kind !== "other-proof") {
      switch (attack.kind) {
        case "not-json":
          res.writeHead(200, { "content-type": "text/html" });
          return void res.end("<html><body>Please sign in to the hotel Wi-Fi</body></html>");
        case "malformed": {
          const genuine = JSON.parse((await upstream(target, req, path)).text) as Record<string, unknown>;
          delete genuine.attestation;
          return sendJson(res, 200, { ...genuine, content: 42 });
        }
        case "endless": {
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"item_type":"knowledge","content":"');
          const chunk = Buffer.alloc(64 * 1024, "a");
          const pump = () => {
            while (!res.destroyed && res.write(chunk));
            if (!res.destroyed) res.once("drain", pump);
          };
          pump();
          return;
        }
        case "huge":
          res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * 1024 ** 3) });
          res.write("{");
          return; // and never more
        case "stall":
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
          return; // silence
        case "trickle": {
          res.writeHead(200, { "content-type": "application/json" });
          const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), attack.everyMs);
          timers.add(timer);
          res.on("close", () => {
            clearInterval(timer);
            timers.delete(timer);
          });
          return;
        }
        default:
          break;
      }
    }

    const answer = await upstream(target, req, path);
    if (!pull || attack.kind === "pass" || answer.status !== 200) {
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      return void res.end(answer.text);
    }
    const asked = new URL(path, "http://x").searchParams.get("version");
    switch (attack.kind) {
      case "relabel": {
        const old = JSON.parse((await upstream(target, req, withVersion(path, attack.version))).text) as Record<string, unknown>;
        const relabelled: Record<string, unknown> = { ...old, version: asked ?? (JSON.parse(answer.text) as { version: string }).version };
        if (attack.attestation === "drop") delete relabelled.attestation;
        return sendJson(res, 200, relabelled);
      }
      case "stale":
        return sendJson(res, 200, JSON.parse((await upstream(target, req, withVersion(path, attack.version))).text));
      case "tamper": {
        const body = JSON.parse(answer.text) as { content: string };
        const at = body.content.lastIndexOf("Body");
        return sendJson(res, 200, { ...body, content: `${body.content.slice(0, at)}body${body.content.slice(at + 4)}` });
      }
      case "key-swap":
        return sendJson(res, 200, await forge(JSON.parse(answer.text) as Record<string, unknown>, forger));
      case "old-checkpoint":
        return sendJson(res, 200, { ...(JSON.parse(answer.text) as Record<string, unknown>), transparency: attack.transparency });
      case "other-proof": {
        const other = `/v1/pull/${PULL.exec(path)![1]}/${attack.id}?tlog_from=${new URL(path, "http://x").searchParams.get("tlog_from") ?? "0"}`;
        const { transparency } = JSON.parse((await upstream(target, req, other)).text) as { transparency: unknown };
        return sendJson(res, 200, { ...(JSON.parse(answer.text) as Record<string, unknown>), transparency });
      }
      case "strip-proof": {
        const { transparency: _dropped, ...rest } = JSON.parse(answer.text) as Record<string, unknown>;
        return sendJson(res, 200, rest);
      }
      case "wrong-item": {
        const other = PULL.exec(path)!;
        const otherPath = `/v1/pull/${other[1]}/${attack.id}`;
        return sendJson(res, 200, JSON.parse((await upstream(target, req, otherPath)).text));
      }
      default:
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(answer.text);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(err));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    for (const t of timers) clearInterval(t);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  return state;
}

/** A plain server that serves the registry's answers from another origin and records the requests (a CDN). */
export async function startMirror(target: string): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    requests.push({ method: req.method ?? "GET", path: req.url ?? "/", authorized: Boolean(req.headers.authorization), started: Date.now() });
    const answer = await fetch(`${target}${req.url ?? "/"}`, { headers: { accept: "application/json" } });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(await answer.text());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
