/** A registry on a fixed loopback URL whose settings can change in place: the organization's mirror in the mirror e2e tests. */
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import type { Database } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { createApp } from "../../../apps/api/src/app.ts";
import { loadConfig } from "../../../apps/api/src/config.ts";
import type { AppEnv } from "../../../apps/api/src/env.ts";
import { silentLogger } from "../../../apps/api/src/logger.ts";
import { openRegistry } from "../../../apps/api/src/registry.ts";
import type { AppDeps } from "../../../apps/api/src/services/deps.ts";

/** The org registry: the real app on a fixed URL whose settings can be changed in place (a restart with new env). */
export interface MirrorServer {
  url: string;
  db: Database;
  deps(): AppDeps;
  reconfigure(env: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export async function startMirrorServer(env: Record<string, string>): Promise<MirrorServer> {
  let app: Hono<AppEnv> | undefined;
  let deps: AppDeps | undefined;
  const server = serve({ fetch: (req, e) => app!.fetch(req, e), port: 0, hostname: "127.0.0.1" }) as Server;
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = await openTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-test-mirror-"));
  const open = async (extra: Record<string, string>) => {
    await deps?.reads.close();
    const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: url, RYE_LOG_LEVEL: "silent", ...extra });
    deps = await openRegistry(config, silentLogger, { env: { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") }, db });
    app = createApp(deps);
  };
  await open(env);
  return {
    url,
    db,
    deps: () => deps!,
    reconfigure: open,
    async close() {
      await deps?.reads.close();
      server.close();
      server.closeAllConnections();
      await db.close();
    },
  };
}

