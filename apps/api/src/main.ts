/** `npm start`: serves the registry API on $PORT (default 3000). */
import "@rye/core/node";
import { serve } from "@hono/node-server";
import { createApp } from "./app.ts";

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`error[BAD_REQUEST]: PORT must be a TCP port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}
const server = serve({ fetch: createApp({ version: "0.1.0" }).fetch, port, hostname: process.env.HOST ?? "0.0.0.0" }, (info) => {
  console.log(JSON.stringify({ level: "info", msg: "rye registry listening", url: `http://localhost:${info.port}`, health: `http://localhost:${info.port}/health` }));
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)));
