/**
 * A TCP proxy on loopback (node:net) in front of a real registry, for tests of a registry that hangs:
 * - `pass`: bytes both ways, untouched;
 * - `stall`: accepts the connection and reads the request, then sends nothing (a hung server or a black-holing
 *   middlebox); the registry is never asked;
 * - `trickle`: the request goes to the registry, whose answer comes back with its headers at once and then its
 *   body one byte every `trickleMs` (a server or link that keeps the connection barely alive).
 * The mode applies to connections accepted after it is set; `close()` destroys every open connection.
 */
import { once } from "node:events";
import type { AddressInfo, Socket } from "node:net";
import { connect, createServer } from "node:net";

export type ProxyMode = "pass" | "stall" | "trickle";

export interface StallingProxy {
  url: string;
  mode: ProxyMode;
  /** Connections accepted so far. */
  connections: number;
  /** When each connection was accepted (`performance.now()`). */
  acceptedAt: number[];
  close(): Promise<void>;
}

const HEADERS_END = Buffer.from("\r\n\r\n");

/** Sends the answer's head at once, then the rest one byte at a time. */
function trickle(upstream: Socket, client: Socket, everyMs: number): void {
  let head = Buffer.alloc(0);
  let headSent = false;
  const pending: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  const drip = () => {
    const byte = pending.shift();
    if (byte === undefined || client.destroyed) {
      timer = undefined;
      return;
    }
    client.write(Buffer.of(byte));
    timer = setTimeout(drip, everyMs);
  };
  upstream.on("data", (chunk: Buffer) => {
    let body = chunk;
    if (!headSent) {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(HEADERS_END);
      if (end < 0) return;
      client.write(head.subarray(0, end + HEADERS_END.length));
      headSent = true;
      body = head.subarray(end + HEADERS_END.length);
    }
    pending.push(...body);
    timer ??= setTimeout(drip, everyMs);
  });
  client.on("close", () => clearTimeout(timer));
}

export async function startStallingProxy(target: string, options: { mode?: ProxyMode; trickleMs?: number } = {}): Promise<StallingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  };
  const proxy: StallingProxy = {
    url: "",
    mode: options.mode ?? "pass",
    connections: 0,
    acceptedAt: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((client) => {
    proxy.connections++;
    proxy.acceptedAt.push(performance.now());
    track(client);
    if (proxy.mode === "stall") {
      client.resume(); // read and drop the request; answer nothing
      return;
    }
    const upstream = connect(Number(port), hostname);
    track(upstream);
    client.on("close", () => upstream.destroy());
    client.pipe(upstream);
    if (proxy.mode === "pass") {
      upstream.on("close", () => client.end());
      upstream.pipe(client);
    } else {
      trickle(upstream, client, options.trickleMs ?? 1000); // the client hangs up when it has had enough
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
