/** A TCP port on 127.0.0.1 that was free a moment ago (for server processes a test or bench starts). */
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * A free TCP port below the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), for a server that
 * listens only after a long start: an ephemeral port that was free (freePort) can meanwhile be handed to another
 * process's outgoing connection, a port outside that range cannot.
 */
export async function freePortBelowEphemeralRange(): Promise<number> {
  const range = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8").catch(() => "32768");
  const low = Number.parseInt(range, 10) || 32768;
  for (let attempt = 0; ; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (free) {
      await new Promise((r) => server.close(r));
      return port;
    }
    if (attempt >= 100) throw new Error(`no free port found between 10000 and ${low}`);
  }
}
