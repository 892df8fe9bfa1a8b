/** A TCP port on 127.0.0.1 that was free a moment ago (for server processes a test or bench starts). */
import { once } from "node:events";
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}
