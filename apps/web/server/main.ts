/**
 * `npm start`: the registry API and the website on one origin ($PORT, default 3000), on the embedded
 * database in $RYE_DATA_DIR unless DATABASE_URL is set. API paths (see routing.ts) go to the Hono app,
 * everything else to Next.js; the site's server-side requests reach the API over loopback HTTP.
 *
 * RYE_ROLE (docs/deployment.md "Several processes"): `all` (default) serves both; `api` only the API (no Next
 * build needed); `web` only the website, with no database: its server-side requests go to RYE_INTERNAL_API_URL
 * (the API processes, e.g. through the balancer) and the balancer routes API paths to the API processes.
 */
import "@rye/core/node";
import { randomBytes } from "node:crypto";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import nextModule from "next";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { isPreparationChild, prepareRegistry, runPreparationChild, serveRegistry, thisServerEntry } from "@rye/api/server";
import type { NodeListener } from "@rye/api/server";
import { serveWebOnly } from "./web-role.ts";
import { ensureWebBuild } from "./build.ts";
import { isApiPath } from "./routing.ts";

// `next` is CommonJS: Node hands the function itself to an ESM default import; its typings describe the ESM shape.
const next = nextModule as unknown as (typeof nextModule)["default"];

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  // Started again by itself to do the database's one-time work (apps/api/src/preparation-process.ts).
  if (isPreparationChild()) return runPreparationChild();
  const role = process.env.RYE_ROLE ?? "all";
  if (role === "web") return serveWebOnly(webDir, next);
  if (role === "api") {
    // Website processes elsewhere forward visitors' addresses with the shared secret (RYE_INTERNAL_SECRET).
    const registry = await prepareRegistry({ entry: thisServerEntry(), ...(process.env.RYE_INTERNAL_SECRET ? { internalSecret: process.env.RYE_INTERNAL_SECRET } : {}) });
    await serveRegistry(registry);
    return;
  }
  if (role !== "all") throw new RyeError("BAD_REQUEST", `Invalid registry configuration: RYE_ROLE: expected api, web or all, got ${role}`);
  const internalSecret = randomBytes(32).toString("base64url");
  const registry = await prepareRegistry({ internalSecret, entry: thisServerEntry() });
  await ensureWebBuild(webDir, (message) => registry.logger.log("info", message));
  // Next fetches the target of a server action's redirect from its own origin, with the visitor's
  // cookies: it must be this server, not Next's default localhost:3000 (another program, maybe).
  const host = process.env.HOST;
  const loopback = !host || host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const port = registry.config.port;
  const site = next({ dev: false, dir: webDir, ...(port > 0 ? { hostname: loopback, port } : {}) });
  await site.prepare();
  const handleSite = site.getRequestHandler();

  let ready: () => void;
  const listening = new Promise<void>((r) => (ready = r));
  const listener: NodeListener = (req, res) => {
    if (isApiPath(req.url ?? "/")) return registry.listener(req, res);
    // The site forwards the visitor's address to the API; never a client-supplied one unless proxies are trusted.
    if (!registry.config.trustProxy) req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    void listening.then(() => handleSite(req, res)).catch((err: Error) => {
      registry.logger.log("error", "website request failed", { error: err.message });
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("Internal error");
    });
  };
  const server = await serveRegistry(registry, listener, { website: true });
  process.env.RYE_INTERNAL_API_URL = `http://${loopback}:${server.port}`;
  process.env.RYE_INTERNAL_SECRET = internalSecret;
  process.env.RYE_PUBLIC_URL = registry.config.publicUrl;
  ready!();
}

main().catch((err) => {
  const { error } = toErrorEnvelope(err);
  console.error(`error[${error.code}]: ${error.message}\nhint: ${error.hint}`);
  process.exit(1);
});
