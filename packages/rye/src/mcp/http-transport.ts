/**
 * `rye mcp --http <port>`: the MCP server over Streamable HTTP, so several clients (and remote ones) share one warm
 * server process. Every client session (an `initialize` without `Mcp-Session-Id`) gets its own McpServer and
 * transport; later requests name their session in the `Mcp-Session-Id` header.
 *
 * Before a request reaches a session:
 * - DNS rebinding: the `Host` header must name this server (loopback names, or the bound address, or an
 *   `--allowed-host`); an `Origin` header, when a browser sends one, must be an allowed origin (the server's own
 *   loopback origins, or an `--allowed-origin`). Bound to a wildcard address (0.0.0.0, ::) any Host is accepted:
 *   the token is what protects it then.
 * - Bearer token (RFC 6750, as the MCP authorization spec has clients send it): required whenever the server listens
 *   on a non-loopback address, optional on loopback. The token is pre-shared (RYE_MCP_TOKEN or a token file); it is
 *   compared in constant time. There is no OAuth authorization server behind it.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isIP } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { RyeError } from "@rye/core";
import type { McpServerOptions } from "./server.ts";
import { createMcpServer } from "./server.ts";

export const MCP_HTTP_PATH = "/mcp";
export const MIN_TOKEN_LENGTH = 32;
export const HTTP_LIMITS = {
  /** Largest JSON-RPC request body accepted. */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Sessions open at once; an initialize beyond it is refused with 503. */
  maxSessions: 64,
  /** A session with no request for this long is closed. */
  idleSessionMs: 30 * 60 * 1000,
};

export interface McpHttpOptions extends McpServerOptions {
  port: number;
  /** Address to listen on; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Pre-shared bearer token; required when `host` is not a loopback address. */
  token?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  limits?: Partial<typeof HTTP_LIMITS>;
}

export interface McpHttpServer {
  /** The endpoint, e.g. http://127.0.0.1:8765/mcp */
  url: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || (isIP(bare) === 4 && bare.startsWith("127."));
}

const isWildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === "[::]";
const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** Constant-time comparison (of fixed-length digests, so the length of the secret does not leak either). */
export function tokenMatches(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}

interface Session {
  transport: StreamableHTTPServerTransport;
  close(): Promise<void>;
  lastSeen: number;
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A JSON-RPC error answer (no id: it is not tied to a request the server accepted). */
function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  reply(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function startMcpHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const limits = { ...HTTP_LIMITS, ...options.limits };
  const exposed = !isLoopback(host);
  const token = options.token?.trim() || undefined;
  if (exposed && !token) {
    throw new RyeError("BAD_REQUEST", `Listening on ${host} (not loopback) needs a bearer token`, {
      hint: "Set RYE_MCP_TOKEN or pass --token-file <file> (at least 32 characters, e.g. openssl rand -hex 32), or listen on 127.0.0.1.",
    });
  }
  if (token && token.length < MIN_TOKEN_LENGTH) {
    throw new RyeError("BAD_REQUEST", `The MCP bearer token is ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are required`, { hint: "Generate one with: openssl rand -hex 32" });
  }

  const sessions = new Map<string, Session>();
  let port = options.port;
  const hostNames = () => {
    const names = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...(options.allowedHosts ?? [])]);
    if (!isWildcard(host)) names.add(`${isIP(host) === 6 ? `[${host}]` : host}:${port}`);
    return names;
  };
  const origins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, ...(options.allowedOrigins ?? [])]);

  /** True when the request was refused (and answered); false when it may go on. */
  function refuse(req: IncomingMessage, res: ServerResponse): boolean {
    if (!isWildcard(host) && !hostNames().has(String(req.headers.host ?? "").toLowerCase())) {
      rpcError(res, 403, -32000, `Host ${JSON.stringify(req.headers.host ?? "")} is not allowed (DNS rebinding protection)`);
      return true;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !origins().has(origin)) {
      rpcError(res, 403, -32000, `Origin ${JSON.stringify(origin)} is not allowed (DNS rebinding protection); allow it with --allowed-origin`);
      return true;
    }
    if (token) {
      const header = req.headers.authorization ?? "";
      const match = /^Bearer ([^\s]+)$/i.exec(header);
      if (!match) {
        rpcError(res, 401, -32001, "A bearer token is required", { "www-authenticate": 'Bearer realm="rye-mcp"' });
        return true;
      }
      if (!tokenMatches(token, match[1]!)) {
        rpcError(res, 401, -32001, "The bearer token is not valid", { "www-authenticate": 'Bearer realm="rye-mcp", error="invalid_token"' });
        return true;
      }
    }
    return false;
  }

  async function openSession(): Promise<Session> {
    const server = createMcpServer({ ...(options.env ? { env: options.env } : {}), ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.systemRoot ? { systemRoot: options.systemRoot } : {}) });
    const session: Session = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, session),
      }),
      lastSeen: Date.now(),
      close: async () => {
        await server.close().catch(() => undefined);
      },
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) sessions.delete(session.transport.sessionId);
    };
    await server.connect(session.transport);
    return session;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (refuse(req, res)) return;
    if (path !== MCP_HTTP_PATH) return rpcError(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    let body: unknown;
    if (req.method === "POST") {
      const raw = await readBody(req, limits.maxBodyBytes);
      if (raw === null) return rpcError(res, 413, -32600, `Request body above ${limits.maxBodyBytes} bytes`, { connection: "close" });
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return rpcError(res, 400, -32700, "Parse error: the body is not JSON");
      }
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(res, 404, -32001, "Session not found (expired or closed): initialize a new one");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) return rpcError(res, 400, -32000, "Bad request: no Mcp-Session-Id header, and not an initialize request");
    if (sessions.size >= limits.maxSessions) return rpcError(res, 503, -32000, `Too many MCP sessions open (${limits.maxSessions}); close one first`);
    const session = await openSession();
    await session.transport.handleRequest(req, res, body);
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => rpcError(res, 500, -32603, `Internal error: ${err instanceof Error ? err.message : String(err)}`));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) =>
      reject(new RyeError("UNAVAILABLE", `Cannot listen on ${host}:${options.port}: ${err.code ?? err.message}`, { hint: err.code === "EADDRINUSE" ? "Another process uses that port: pick another one, or --http 0 for a free one." : "Check the --host address and the port." })),
    );
    http.listen(options.port, host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const session of sessions.values()) if (now - session.lastSeen > limits.idleSessionMs) void session.close();
  }, Math.min(60_000, Math.max(50, limits.idleSessionMs / 2)));
  sweep.unref();

  const shown = isIP(host) === 6 ? `[${host}]` : host;
  return {
    url: `http://${isWildcard(host) ? "127.0.0.1" : shown}:${port}${MCP_HTTP_PATH}`,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
