/**
 * Running the registry as a server: prepare the database (migrations, seed; in a child process when the entry
 * is given, preparation-process.ts), open it and the keys, listen, write the operator CLI's admin endpoint
 * file, shut down cleanly. `npm start` (apps/web/server) uses it with
 * a request listener that also serves the website; apps/api/src/main.ts serves the API alone.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import { MEMORY } from "@rye/db";
import { createApp } from "./app.ts";
import { FrontAnswers } from "./front/answers.ts";
import type { RegistryConfig } from "./config.ts";
import { loadConfig } from "./config.ts";
import type { AppEnv } from "./env.ts";
import type { Logger } from "./logger.ts";
import { jsonLogger } from "./logger.ts";
import { openRegistry } from "./registry.ts";
import { newAdminSecret, removeAdminFile, writeAdminFile } from "./services/admin-endpoint.ts";
import type { AppDeps } from "./services/deps.ts";
import { prepareData } from "./preparation.ts";
import { openPreparedDatabase, type ServerEntry } from "./preparation-process.ts";
import { systemSafetyRules } from "./services/safety-rules.ts";
import { webhookDispatcherFor } from "./services/webhooks/dispatcher.ts";
import { verificationRecheckerFor } from "./services/verification/rechecker.ts";
import { drainServer, type NodeListener, trackRequests } from "./graceful.ts";
import { applyV8MemoryFlags, collectStartupGarbage } from "./runtime-memory.ts";

export type { NodeListener } from "./graceful.ts";
export { isPreparationChild, runPreparationChild, thisServerEntry } from "./preparation-process.ts";

export interface PreparedRegistry {
  config: RegistryConfig;
  logger: Logger;
  deps: AppDeps;
  app: Hono<AppEnv>;
  /** The API as a node:http listener. */
  listener: NodeListener;
}

export interface PrepareRegistryOptions {
  env?: NodeJS.ProcessEnv;
  internalSecret?: string;
  /**
   * The entry that started this process (thisServerEntry()): the one-time work on the database (a new embedded
   * database, migrations, seed) is then done by a child process running it (preparation-process.ts), so that the
   * server does not keep the memory it takes. Without it, the work is done in this process.
   */
  entry?: ServerEntry;
}

export async function prepareRegistry(options: PrepareRegistryOptions = {}): Promise<PreparedRegistry> {
  const env = options.env ?? process.env;
  const config = loadConfig(env);
  applyV8MemoryFlags({ optimizeForSize: config.v8OptimizeForSize });
  const logger = jsonLogger(config.logLevel, undefined, { pid: process.pid, role: config.role });
  const db = options.entry ? await openPreparedDatabase(config, env, logger, options.entry) : undefined;
  const deps: AppDeps = {
    ...(await openRegistry(config, logger, db ? { db } : {})),
    adminSecret: newAdminSecret(),
    ...(options.internalSecret ? { internalSecret: options.internalSecret } : {}),
  };
  // Nothing left to do after the child's preparation; otherwise (no entry, an in-memory database) the work itself.
  // Quality factors missing and safety reports made under older rules (docs/quality.md) are made there too.
  await prepareData(deps, await systemSafetyRules());
  const app = createApp(deps);
  // /health and anonymous cached pulls are answered before the app (front/answers.ts).
  return { config, logger, deps, app, listener: new FrontAnswers(deps).listener(getRequestListener(app.fetch)) };
}

/**
 * Listens on $HOST:$PORT with `listener` (default: the API alone) until SIGINT / SIGTERM, then shuts down
 * gracefully (graceful.ts): drain the requests in flight, stop the webhook dispatcher, write pending download
 * counts, close the database pool, exit 0.
 */
export async function serveRegistry(prepared: PreparedRegistry, listener: NodeListener = prepared.listener, extra: Record<string, unknown> = {}): Promise<{ port: number; close(): Promise<void> }> {
  const { config, logger, deps } = prepared;
  const tracked = trackRequests(listener, deps.lifecycle);
  const server = createServer(tracked.listener);
  server.listen(config.port, process.env.HOST ?? "0.0.0.0");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  // An in-memory registry has no data directory to announce its admin endpoint in (the operator CLI refuses memory://).
  if (config.dataDir !== MEMORY) await writeAdminFile(config.dataDir, { url: `http://127.0.0.1:${port}`, secret: deps.adminSecret! }).catch((err: Error) =>
    logger.log("warn", "could not write the admin endpoint file; the operator CLI will need the server stopped", { error: err.message }),
  );
  const webhooks = webhookDispatcherFor(deps);
  webhooks.start();
  const rechecker = verificationRecheckerFor(deps);
  rechecker.start();
  logger.log("info", "rye registry listening", { url: `http://localhost:${port}`, database: deps.db.kind, registry_key: deps.keyring.current().publicKey.fingerprint, ...extra });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= drainServer(server, tracked.inFlight, { lifecycle: deps.lifecycle, logger, ...config.shutdown })
      .then(() => webhooks.stop())
      .then(() => rechecker.stop())
      .then(() => (config.dataDir === MEMORY ? undefined : removeAdminFile(config.dataDir, deps.adminSecret)))
      // Pending download counts are written before the database closes.
      .then(() => deps.reads.close())
      // Rate-limit hits counted in this process and not yet written, likewise.
      .then(() => deps.requestCounters.close?.())
      .then(() => deps.db.close()));
  const shutdown = (signal: string) => {
    logger.log("info", "signal received", { signal });
    close().then(
      () => {
        logger.log("info", "stopped");
        process.exit(0);
      },
      (err: Error) => {
        logger.log("error", "shutdown failed", { error: err.message });
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  // After the signal handlers: a SIGTERM during the collection (tens of ms) still shuts down cleanly.
  collectStartupGarbage();
  return { port, close };
}
