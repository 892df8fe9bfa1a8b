/**
 * Running the registry as a server: open the database and keys, seed the system bundle, listen, write
 * the operator CLI's admin endpoint file, shut down cleanly. `npm start` (apps/web/server) uses it with
 * a request listener that also serves the website; apps/api/src/main.ts serves the API alone.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import { createApp } from "./app.ts";
import type { RegistryConfig } from "./config.ts";
import { loadConfig } from "./config.ts";
import type { AppEnv } from "./env.ts";
import type { Logger } from "./logger.ts";
import { jsonLogger } from "./logger.ts";
import { openRegistry } from "./registry.ts";
import { newAdminSecret, removeAdminFile, writeAdminFile } from "./services/admin-endpoint.ts";
import type { AppDeps } from "./services/deps.ts";
import { seedSystemBundle } from "./seed.ts";
import { refreshStaleSignals } from "./services/quality.ts";
import { systemSafetyRules } from "./services/safety-rules.ts";
import { webhookDispatcherFor } from "./services/webhooks/dispatcher.ts";

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface PreparedRegistry {
  config: RegistryConfig;
  logger: Logger;
  deps: AppDeps;
  app: Hono<AppEnv>;
  /** The API as a node:http listener. */
  listener: NodeListener;
}

export async function prepareRegistry(options: { env?: NodeJS.ProcessEnv; internalSecret?: string } = {}): Promise<PreparedRegistry> {
  const config = loadConfig(options.env ?? process.env);
  const logger = jsonLogger(config.logLevel);
  const deps: AppDeps = {
    ...(await openRegistry(config, logger)),
    adminSecret: newAdminSecret(),
    ...(options.internalSecret ? { internalSecret: options.internalSecret } : {}),
  };
  const seeded = await seedSystemBundle(deps);
  if (seeded > 0) logger.log("info", "seeded the rye namespace with the system bundle", { items: seeded });
  // Quality factors missing and safety reports made under older rules (docs/quality.md) are made now.
  const rules = await systemSafetyRules();
  const refreshed = await refreshStaleSignals(deps.db, rules);
  if (refreshed.versions > 0) logger.log("info", "refreshed quality and safety signals", { ...refreshed, rules_version: rules.version });
  const app = createApp(deps);
  return { config, logger, deps, app, listener: getRequestListener(app.fetch) };
}

/** Listens on $HOST:$PORT with `listener` (default: the API alone) until SIGINT / SIGTERM. */
export async function serveRegistry(prepared: PreparedRegistry, listener: NodeListener = prepared.listener, extra: Record<string, unknown> = {}): Promise<{ port: number; close(): Promise<void> }> {
  const { config, logger, deps } = prepared;
  const server = createServer(listener);
  server.listen(config.port, process.env.HOST ?? "0.0.0.0");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  await writeAdminFile(config.dataDir, { url: `http://127.0.0.1:${port}`, secret: deps.adminSecret! }).catch((err: Error) =>
    logger.log("warn", "could not write the admin endpoint file; the operator CLI will need the server stopped", { error: err.message }),
  );
  const webhooks = webhookDispatcherFor(deps);
  webhooks.start();
  logger.log("info", "rye registry listening", { url: `http://localhost:${port}`, database: deps.db.kind, registry_key: deps.keyring.current().publicKey.fingerprint, ...extra });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    })
      .then(() => webhooks.stop())
      .then(() => removeAdminFile(config.dataDir))
      // Pending download counts are written before the database closes (also on SIGTERM / SIGINT, below).
      .then(() => deps.reads.close())
      .then(() => deps.db.close()));
  const shutdown = () => void close().finally(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return { port, close };
}
