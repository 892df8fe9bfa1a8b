/**
 * A registry for tests: real database (PostgreSQL when DATABASE_URL is set, else in-memory PGlite),
 * real keys in a temp directory, the real app. Users, organizations and tokens are written straight
 * into the database by this test-only helper — the API has no back door for it.
 */
import "@rye/core/node";
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database, DatabaseKind } from "@rye/db";
import { openTestDatabase } from "@rye/db/testing";
import { createApp } from "../src/app.ts";
import { hashToken, TOKEN_PREFIX } from "../src/auth/api-tokens.ts";
import type { RegistryConfig } from "../src/config.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { openRegistry } from "../src/registry.ts";
import type { AppDeps } from "../src/services/deps.ts";

export interface TestUser {
  id: string;
  username: string;
}

export interface TestRegistry {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  db: Database;
  keyDir: string;
  createUser(username: string, options?: { admin?: boolean }): Promise<TestUser>;
  createOrg(name: string, members: { user: TestUser; role: "owner" | "admin" | "member" }[]): Promise<void>;
  token(user: TestUser, options?: { scopes?: string[]; namespace?: string; expiresAt?: Date; revoked?: boolean }): Promise<string>;
  request(method: string, path: string, options?: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export async function createTestRegistry(options: { kind?: DatabaseKind; config?: Partial<RegistryConfig>; env?: NodeJS.ProcessEnv } = {}): Promise<TestRegistry> {
  const db = await openTestDatabase(options.kind);
  const dataDir = await mkdtemp(join(tmpdir(), "rye-registry-test-"));
  const base = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: "http://registry.test", RYE_LOG_LEVEL: "silent" });
  const config: RegistryConfig = { ...base, ...options.config, limits: { ...base.limits, ...options.config?.limits }, rateLimit: { ...base.rateLimit, ...options.config?.rateLimit } };
  const env = { ...options.env, RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") };
  const deps = await openRegistry(config, silentLogger, { env, db });
  const app = createApp(deps);
  const prisma = db.prisma;
  return {
    app,
    deps,
    db,
    keyDir: env.RYE_REGISTRY_KEY_DIR,
    async createUser(username, opts = {}) {
      const user = await prisma.user.create({ data: { username, email: `${username}@example.test`, isAdmin: opts.admin ?? false } });
      await prisma.namespace.create({ data: { name: username, userId: user.id } });
      return { id: user.id, username };
    },
    async createOrg(name, members) {
      const org = await prisma.organization.create({ data: { name } });
      await prisma.namespace.create({ data: { name, orgId: org.id } });
      for (const m of members) await prisma.membership.create({ data: { orgId: org.id, userId: m.user.id, role: m.role } });
    },
    async token(user, opts = {}) {
      const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
      await prisma.apiToken.create({
        data: {
          userId: user.id,
          name: "test",
          tokenHash: hashToken(token),
          scopes: opts.scopes ?? ["items:read", "items:write"],
          namespace: opts.namespace ?? null,
          expiresAt: opts.expiresAt ?? null,
          revokedAt: opts.revoked ? new Date() : null,
        },
      });
      return token;
    },
    request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined = opts.body;
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json);
        headers["content-type"] = "application/json";
      }
      return Promise.resolve(app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }));
    },
    async close() {
      await deps.reads.close();
      await deps.requestCounters.close?.();
      await db.close();
    },
  };
}
