/**
 * `/v1/admin/*`: the operator CLI's channel into a running server (see services/admin-endpoint.ts). Its routes are
 * declared like the others (requests validated, answers typed) but left out of the public document: everyone but the
 * operator on loopback with the admin secret gets 404, before any body is read.
 */
import { timingSafeEqual } from "node:crypto";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { keyRotationSchema, RyeError } from "@rye/core";
import { access, declared, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { rotateRegistryKey } from "../keys/keyring.ts";
import { keyDirOf } from "../registry.ts";
import { adminCreateOrg, adminCreateToken, adminCreateUser, adminRevokeToken } from "../services/admin.ts";
import type { AppDeps } from "../services/deps.ts";
import { refreshStaleSignals } from "../services/quality.ts";
import { systemSafetyRules } from "../services/safety-rules.ts";
import type { SameKeys } from "../contract/operation.ts";
import { OrgCreated } from "./orgs.ts";
import { CreatedToken, TokenInfo } from "./tokens.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1", "local"]);

const userSchema = z.object({ username: z.string().max(64), email: z.string().max(320), password: z.string().max(256).optional(), admin: z.boolean().optional() });
const tokenSchema = z.object({ username: z.string().max(64), name: z.string().max(100).optional(), scopes: z.array(z.string()).max(10).optional(), expires_in_days: z.number().int().optional(), namespace: z.string().max(64).optional() });
const revokeSchema = z.object({ id: z.string().min(1).max(64) });
const orgSchema = z.object({ name: z.string().max(64), owner: z.string().max(64), display_name: z.string().max(200).optional() });

const CreatedUser = z.object({ id: z.string(), username: z.string(), email: z.string().nullable(), admin: z.boolean(), password_set: z.boolean() });
const Rotated = z.object({ status: z.literal("rotated"), previous: z.string(), next: z.string(), rotation: keyRotationSchema });
const Refreshed = z.object({ status: z.literal("refreshed"), rules_version: z.string(), versions: z.number().int(), items: z.number().int() });
true satisfies SameKeys<z.output<typeof CreatedUser>, Awaited<ReturnType<typeof adminCreateUser>>>;

const operator = <B extends z.ZodType, R extends z.ZodType>(path: string, operationId: string, summary: string, body: B, status: 200 | 201, answer: R) =>
  createRoute({
    method: "post",
    path: `/v1/admin/${path}`,
    operationId,
    summary,
    tags: ["admin"],
    hide: true,
    ...access("none"),
    request: { body: jsonRequest(body) },
    responses: { [status]: json(answer, summary), ...errors(400, [404, "Anyone but the operator on loopback with the admin secret"], 409) } as { [S in typeof status]: ReturnType<typeof json<R>> },
  });
const emptyBody = z.object({});

export const adminUserRoute = operator("users", "adminCreateUser", "Create a user", userSchema, 201, CreatedUser);
export const adminTokenRoute = operator("tokens", "adminCreateToken", "Create a personal token for a user", tokenSchema, 201, CreatedToken);
export const adminRevokeRoute = operator("tokens/revoke", "adminRevokeToken", "Revoke a token", revokeSchema, 200, TokenInfo);
export const adminOrgRoute = operator("orgs", "adminCreateOrg", "Create an organization", orgSchema, 201, OrgCreated);
export const adminRotateRoute = operator("keys/rotate", "adminRotateKey", "Rotate the registry's signing key", emptyBody, 200, Rotated);
export const adminSignalsRoute = operator("signals/refresh", "adminRefreshSignals", "Refresh stale quality and safety signals", emptyBody, 200, Refreshed);

export function adminRoutes(deps: AppDeps, secret: string | undefined) {
  const app = contractRouter();
  app.use("/v1/admin/*", async (c, next) => {
    const given = Buffer.from(c.req.header("x-rye-admin-secret") ?? "");
    const expected = Buffer.from(secret ?? "");
    const ok = secret !== undefined && given.length === expected.length && timingSafeEqual(given, expected) && LOOPBACK.has(c.get("clientIp"));
    if (!ok) throw new RyeError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
    await next();
  });
  return app
    .openapi(adminUserRoute, async (c) => c.json(await adminCreateUser(deps.db, c.req.valid("json")), 201))
    .openapi(adminTokenRoute, async (c) => {
      const body = c.req.valid("json");
      return c.json(declared(CreatedToken, await adminCreateToken(deps.db, { username: body.username, name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days, namespace: body.namespace })), 201);
    })
    .openapi(adminRevokeRoute, async (c) => c.json(declared(TokenInfo, await adminRevokeToken(deps.db, c.req.valid("json").id)), 200))
    .openapi(adminOrgRoute, async (c) => {
      const body = c.req.valid("json");
      return c.json(await adminCreateOrg(deps.db, { name: body.name, owner: body.owner, displayName: body.display_name }), 201);
    })
    .openapi(adminRotateRoute, async (c) => {
      const result = await rotateRegistryKey({ db: deps.db, keyDir: keyDirOf(deps.config, process.env), registryUrl: deps.config.publicUrl });
      return c.json({ status: "rotated" as const, previous: result.previous, next: result.next, rotation: result.statement }, 200);
    })
    .openapi(adminSignalsRoute, async (c) => {
      const rules = await systemSafetyRules();
      return c.json({ status: "refreshed" as const, rules_version: rules.version, ...(await refreshStaleSignals(deps.db, rules)) }, 200);
    });
}
