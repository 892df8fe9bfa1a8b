/** `npm start`: the registry on $PORT (default 3000) with the embedded database in $RYE_DATA_DIR (default ./.rye-data). */
import "@rye/core/node";
import { serve } from "@hono/node-server";
import { toErrorEnvelope } from "@rye/core";
import { createApp } from "./app.ts";
import { loadConfig } from "./config.ts";
import { jsonLogger } from "./logger.ts";
import { openRegistry } from "./registry.ts";
import { newAdminSecret, removeAdminFile, writeAdminFile } from "./services/admin-endpoint.ts";
import { seedSystemBundle } from "./seed.ts";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = jsonLogger(config.logLevel);
  const deps = { ...(await openRegistry(config, logger)), adminSecret: newAdminSecret() };
  const seeded = await seedSystemBundle(deps);
  if (seeded > 0) logger.log("info", "seeded the rye namespace with the system bundle", { items: seeded });
  const server = serve({ fetch: createApp(deps).fetch, port: config.port, hostname: process.env.HOST ?? "0.0.0.0" }, (info) => {
    void writeAdminFile(config.dataDir, { url: `http://127.0.0.1:${info.port}`, secret: deps.adminSecret }).catch((err: Error) =>
      logger.log("warn", "could not write the admin endpoint file; the operator CLI will need the server stopped", { error: err.message }),
    );
    logger.log("info", "rye registry listening", {
      url: `http://localhost:${info.port}`,
      database: deps.db.kind,
      registry_key: deps.keyring.current().publicKey.fingerprint,
    });
  });
  const shutdown = () => server.close(() => void removeAdminFile(config.dataDir).then(() => deps.db.close()).finally(() => process.exit(0)));
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((err) => {
  const { error } = toErrorEnvelope(err);
  console.error(`error[${error.code}]: ${error.message}\nhint: ${error.hint}`);
  process.exit(1);
});
