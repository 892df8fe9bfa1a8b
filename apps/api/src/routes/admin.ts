/** `/v1/admin/*`: the operator CLI's channel into a running server (see services/admin-endpoint.ts). */
import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { z } from "zod";
import { RyeError } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { rotateRegistryKey } from "../keys/keyring.ts";
import { keyDirOf } from "../registry.ts";
import { adminCreateOrg, adminCreateToken, adminCreateUser, adminRevokeToken } from "../services/admin.ts";
import type { AppDeps } from "../services/deps.ts";
import { refreshStaleSignals } from "../services/quality.ts";
import { systemSafetyRules } from "../services/safety-rules.ts";
import { parseBody } from "./items.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1", "local"]);

const userSchema = z.object({ username: z.string().max(64), email: z.string().max(320), password: z.string().max(256).optional(), admin: z.boolean().optional() });
const tokenSchema = z.object({ username: z.string().max(64), name: z.string().max(100).optional(), scopes: z.array(z.string()).max(10).optional(), expires_in_days: z.number().int().optional(), namespace: z.string().max(64).optional() });
const revokeSchema = z.object({ id: z.string().min(1).max(64) });
const orgSchema = z.object({ name: z.string().max(64), owner: z.string().max(64), display_name: z.string().max(200).optional() });

export function adminRoutes(deps: AppDeps, secret: string | undefined): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/v1/admin/*", async (c, next) => {
    const given = Buffer.from(c.req.header("x-rye-admin-secret") ?? "");
    const expected = Buffer.from(secret ?? "");
    const ok = secret !== undefined && given.length === expected.length && timingSafeEqual(given, expected) && LOOPBACK.has(c.get("clientIp"));
    if (!ok) throw new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
    await next();
  });
  return app
    .post("/v1/admin/users", async (c) => c.json(await adminCreateUser(deps.db, parseBody(userSchema, await c.req.json())), 201))
    .post("/v1/admin/tokens", async (c) => {
      const body = parseBody(tokenSchema, await c.req.json());
      return c.json(await adminCreateToken(deps.db, { username: body.username, name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days, namespace: body.namespace }), 201);
    })
    .post("/v1/admin/tokens/revoke", async (c) => c.json(await adminRevokeToken(deps.db, parseBody(revokeSchema, await c.req.json()).id)))
    .post("/v1/admin/orgs", async (c) => {
      const body = parseBody(orgSchema, await c.req.json());
      return c.json(await adminCreateOrg(deps.db, { name: body.name, owner: body.owner, displayName: body.display_name }), 201);
    })
    .post("/v1/admin/keys/rotate", async (c) => {
      const result = await rotateRegistryKey({ db: deps.db, keyDir: keyDirOf(deps.config, process.env), registryUrl: deps.config.publicUrl });
      return c.json({ status: "rotated", previous: result.previous, next: result.next, rotation: result.statement });
    })
    .post("/v1/admin/signals/refresh", async (c) => {
      const rules = await systemSafetyRules();
      return c.json({ status: "refreshed", rules_version: rules.version, ...(await refreshStaleSignals(deps.db, rules)) });
    });
}
