/**
 * The real registry app (apps/api) in-process on a loopback port, for client tests: key rotation,
 * revocation and an unannounced key swap act on its real key file and database; `requests` records
 * what it was asked (routing checks), `stop`/`restart` take it off the network and back on the same URL;
 * `startProxy` puts a small node:http proxy in front of it that can rewrite responses (a tampering network).
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { ItemType } from "@rye/core";
import { generateKeyPair } from "@rye/core";
import { hashToken, TOKEN_PREFIX } from "../../../apps/api/src/auth/api-tokens.ts";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { createApp } from "../../../apps/api/src/app.ts";
import { loadConfig } from "../../../apps/api/src/config.ts";
import type { AppEnv } from "../../../apps/api/src/env.ts";
import { rotateRegistryKey, revokeRegistryKey } from "../../../apps/api/src/keys/keyring.ts";
import { silentLogger } from "../../../apps/api/src/logger.ts";
import { openRegistry } from "../../../apps/api/src/registry.ts";

export interface TestRegistry {
  url: string;
  db: Database;
  keyDir: string;
  /** The fingerprint the registry signs with now. */
  activeFingerprint(): Promise<string>;
  rotate(): Promise<{ previous: string; next: string }>;
  revoke(fingerprint: string, reason?: string): Promise<void>;
  /** Replaces the signing key WITHOUT a rotation statement (key file + database row). */
  swapKey(): Promise<string>;
  /** Every request the registry received, in order (method, path with query, whether it carried a bearer token). */
  requests: RecordedRequest[];
  /** Stops listening (open connections are dropped); the database and keys stay. */
  stop(): Promise<void>;
  /** Listens again on the same port (same URL) after `stop()`. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/pull/tool/acme/tools/x?version=1.0.0`. */
  path: string;
  authorized: boolean;
}

export interface TestRegistryOptions {
  /** Extra registry settings (`RYE_RATE_LIMIT_READS`, …) on top of the test defaults. */
  env?: Record<string, string>;
}

export async function startTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  let app: Hono<AppEnv> | undefined;
  const requests: RecordedRequest[] = [];
  const server = serve({
    fetch: (req, env) => {
      const target = new URL(req.url);
      requests.push({ method: req.method, path: `${target.pathname}${target.search}`, authorized: /^bearer /i.test(req.headers.get("authorization") ?? "") });
      return app!.fetch(req, env);
    },
    port: 0,
    hostname: "127.0.0.1",
  }) as Server;
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const db = await openTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-test-registry-"));
  const keyDir = join(dataDir, "keys");
  const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: url, RYE_LOG_LEVEL: "silent", ...options.env });
  const deps = await openRegistry(config, silentLogger, { env: { RYE_REGISTRY_KEY_DIR: keyDir }, db });
  app = createApp(deps);
  const activeFingerprint = async () => (await deps.keyring.signer()).publicKey.fingerprint;
  return {
    url,
    db,
    keyDir,
    activeFingerprint,
    async rotate() {
      // The keyring notices a new key file by its mtime; make sure two rotations never share one.
      await new Promise((r) => setTimeout(r, 5));
      const { previous, next } = await rotateRegistryKey({ db, keyDir, registryUrl: url });
      return { previous, next };
    },
    revoke: (fingerprint, reason = "compromised") => revokeRegistryKey(db, fingerprint, reason),
    async swapKey() {
      await new Promise((r) => setTimeout(r, 5));
      const key = await generateKeyPair();
      await db.prisma.registryKey.create({ data: { fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem } });
      await writeFile(join(keyDir, "private_key.pem"), key.privateKeyPem, { mode: 0o600 });
      return key.publicKey.fingerprint;
    },
    requests,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async restart() {
      server.listen(port, "127.0.0.1");
      await once(server, "listening");
    },
    async close() {
      server.close();
      await db.close();
    },
  };
}

/** A proxy to `target`; `rewrite(path, body)` may replace JSON response bodies. */
export async function startProxy(target: string, rewrite: (path: string, body: unknown) => unknown | Promise<unknown>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const upstream = await fetch(`${target}${req.url ?? "/"}`, { method: req.method ?? "GET", headers: { accept: "application/json" } });
      const text = await upstream.text();
      let out = text;
      if ((upstream.headers.get("content-type") ?? "").includes("json")) out = JSON.stringify(await rewrite(req.url ?? "/", JSON.parse(text)));
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
      res.end(out);
    } catch (err) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(err));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL where nothing listens. */
export async function deadRegistryUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * A user with an `items:read items:write` token on `registry`, created straight in its database;
 * returns a function that pushes an item over HTTP and asserts the 201.
 */
export async function createPublisher(registry: Pick<TestRegistry, "url" | "db">, username = "alice") {
  const prisma = registry.db.prisma;
  const user = await prisma.user.create({ data: { username, email: `${username}@example.test` } });
  await prisma.namespace.create({ data: { name: username, userId: user.id } });
  const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await prisma.apiToken.create({ data: { userId: user.id, name: "test", tokenHash: hashToken(token), scopes: ["items:read", "items:write"] } });
  return async (type: ItemType, id: string, version: string, content: string, fileExtension?: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${registry.url}/v1/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ item_type: type, item_id: id, version, content, ...(fileExtension ? { file_extension: fileExtension } : {}) }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 201, JSON.stringify(body));
    return body;
  };
}
