// The framework's ceiling for the pull bench: a bare Hono app on @hono/node-server answering GET /bytes with the
// file given as argv[2] (the registry's own pull answer) under the same content type. Plain JS, so it starts the
// same way in both bench runtimes. Prints nothing; listens on $PORT.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";

const body = readFileSync(process.argv[2]);
const app = new Hono();
app.get("/bytes", (c) => c.body(body, 200, { "content-type": "application/json" }));
createServer(getRequestListener(app.fetch)).listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGINT", () => process.exit(0)).on("SIGTERM", () => process.exit(0));
