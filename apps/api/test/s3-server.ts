/**
 * A real S3 protocol server for tests and benches: s3rver (dev dependency) on a loopback port, objects in a temp
 * directory, one bucket, the static test credentials s3rver accepts. `env` holds what an API process needs to
 * store its blobs there.
 *
 * `startFaultyS3Proxy` puts a switchable HTTP proxy in front of it, so a test can make the store fail (HTTP 500s)
 * or hang (answers withheld) mid-test, and back.
 *
 * Run as a program (`node --import tsx apps/api/test/s3-server.ts`) it serves until SIGTERM in a process of its own
 * and prints `env` as one JSON line: for benches and topologies that must not share an event loop with the store.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** s3rver's built-in account. */
const ACCESS_KEY = "S3RVER";

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export function s3Env(endpoint: string, bucket: string): Record<string, string> {
  return {
    RYE_BLOB_STORE: "s3",
    RYE_S3_BUCKET: bucket,
    RYE_S3_ENDPOINT: endpoint,
    RYE_S3_REGION: "us-east-1",
    RYE_S3_ACCESS_KEY_ID: ACCESS_KEY,
    RYE_S3_SECRET_ACCESS_KEY: ACCESS_KEY,
    RYE_S3_FORCE_PATH_STYLE: "true",
    RYE_S3_PREFIX: "blobs/",
  };
}

export async function startS3Server(): Promise<{ endpoint: string; bucket: string; env: Record<string, string>; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), "rye-s3rver-"));
  const bucket = `rye-test-${randomBytes(4).toString("hex")}`;
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, vhostBuckets: false, configureBuckets: [{ name: bucket }] });
  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  let closed = false;
  return {
    endpoint,
    bucket,
    env: s3Env(endpoint, bucket),
    async close() {
      if (closed) return;
      closed = true;
      await server.close().catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

export type FaultMode = "pass" | "fail" | "hang";

export interface FaultyS3Proxy {
  endpoint: string;
  /** What every following request meets: passed to the server, answered with HTTP 500, or never answered. */
  setMode(mode: FaultMode): void;
  /** Requests that reached the proxy, by method (HEAD, PUT, GET). */
  requests: { method: string; path: string; mode: FaultMode }[];
  close(): Promise<void>;
}

const S3_ERROR_500 = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>';

export async function startFaultyS3Proxy(target: string): Promise<FaultyS3Proxy> {
  const upstream = new URL(target);
  let mode: FaultMode = "pass";
  const requests: FaultyS3Proxy["requests"] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", mode });
    if (mode === "hang") {
      req.resume(); // read the body, answer nothing: the client's timeout has to end it
      return;
    }
    if (mode === "fail") {
      req.resume();
      req.on("end", () => res.writeHead(500, { "content-type": "application/xml" }).end(S3_ERROR_500));
      return;
    }
    // The Host header is part of the request's signature: forward it unchanged.
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    setMode: (next) => {
      mode = next;
    },
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startS3Server();
  process.stdout.write(`${JSON.stringify(server.env)}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
