/**
 * The caller's author keys: `GET /v1/me/keys`, `POST /v1/me/keys` (register an SPKI PEM),
 * `DELETE /v1/me/keys/{fingerprint}` (revoke); a bearer token or the website session (+ CSRF on changes). The push route checks inline author signatures
 * against these rows (services/publish.ts), so a fingerprint belongs to one user only.
 */
import type { Context } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { publicKeyFromPem, publicKeyToPem, RyeError } from "@rye/core";
import { isUniqueViolation } from "@rye/db";
import { access, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppEnv } from "../env.ts";
import { requirePrincipalOrSession } from "../middleware/auth.ts";
import { limitBody } from "../middleware/body-limit.ts";
import { recordAudit } from "../services/audit.ts";
import type { AppDeps } from "../services/deps.ts";
import { plainText } from "./accounts.ts";

export const USER_KEY_LABEL_MAX_LENGTH = 100;
/** An Ed25519 SPKI PEM is ~113 bytes; anything far larger is not one. */
const PEM_MAX_LENGTH = 1000;
const BODY_MAX_BYTES = 4096;
const FINGERPRINT_RE = /^[0-9a-f]{16,64}$/;

export const registerKeySchema = z
  .strictObject({
    public_key: z.string().min(1).max(PEM_MAX_LENGTH),
    label: plainText(USER_KEY_LABEL_MAX_LENGTH).optional(),
  })
  .meta({ id: "RegisterKeyRequest" });
const UserKey = z.object({ fingerprint: z.string(), public_key: z.string(), label: z.string(), created_at: z.string(), revoked: z.boolean(), revoked_at: z.string().nullable() });
const UserKeyList = z.object({ keys: z.array(UserKey) }).meta({ id: "UserKeyList" });
const UserKeyChange = z.object({ status: z.enum(["registered", "already_registered", "revoked", "already_revoked"]), key: UserKey }).meta({ id: "UserKeyChange" });

export const listUserKeysRoute = createRoute({
  method: "get",
  path: "/v1/me/keys",
  operationId: "listUserKeys",
  summary: "The caller's registered author keys (signatures on pushed items are checked against them)",
  tags: ["keys"],
  ...access("caller", ["items:read"]),
  responses: { 200: json(UserKeyList, "Keys"), ...errors() },
});
export const registerUserKeyRoute = createRoute({
  method: "post",
  path: "/v1/me/keys",
  operationId: "registerUserKey",
  summary: "Register an Ed25519 public key (SPKI PEM) as the caller's author key; 200 when it already is",
  tags: ["keys"],
  ...access("caller+csrf", ["items:write"]),
  middleware: [limitBody(BODY_MAX_BYTES)] as const,
  request: { body: jsonRequest(registerKeySchema) },
  responses: { 201: json(UserKeyChange, "Registered"), 200: json(UserKeyChange, "Already registered to the caller (status already_registered)"), ...errors(400, [409, "Registered to another account, or revoked"], 413) },
});
export const revokeUserKeyRoute = createRoute({
  method: "delete",
  path: "/v1/me/keys/{fingerprint}",
  operationId: "revokeUserKey",
  summary: "Revoke one of the caller's author keys",
  tags: ["keys"],
  ...access("caller+csrf", ["items:write"]),
  responses: { 200: json(UserKeyChange, "Revoked"), ...errors([404, "Not a key of the caller"]) },
});

interface UserKeyRow {
  fingerprint: string;
  publicKeyPem: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export function userKeyJson(row: UserKeyRow) {
  return {
    fingerprint: row.fingerprint,
    public_key: row.publicKeyPem,
    label: row.label,
    created_at: row.createdAt.toISOString(),
    revoked: row.revokedAt !== null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}


function meta(c: Context<AppEnv>) {
  return { ip: c.get("clientIp"), requestId: c.get("requestId") };
}

function takenError(fingerprint: string): RyeError {
  return new RyeError("CONFLICT", `The key ${fingerprint} is registered to another account`, {
    hint: "A signing key belongs to one account. Create your own with `rye keygen` and register that.",
  });
}

export function userKeyRoutes(deps: AppDeps) {
  const prisma = deps.db.prisma;
  return contractRouter()
    .openapi(listUserKeysRoute, async (c) => {
      const principal = await requirePrincipalOrSession(c, deps.db, "items:read");
      const rows = await prisma.userKey.findMany({ where: { userId: principal.userId }, orderBy: { createdAt: "asc" } });
      return c.json({ keys: rows.map(userKeyJson) }, 200);
    })
    .openapi(registerUserKeyRoute, async (c) => {
      const principal = await requirePrincipalOrSession(c, deps.db, "items:write");
      const body = c.req.valid("json");
      // INVALID_KEY for anything but an Ed25519 SPKI PEM. The fingerprint hashes the PEM text, so store the
      // canonical PEM: CRLF or re-wrapped copies of one key must not register under a second fingerprint.
      const key = publicKeyFromPem(publicKeyToPem(publicKeyFromPem(body.public_key).raw));
      const existing = await prisma.userKey.findUnique({ where: { fingerprint: key.fingerprint } });
      if (existing) {
        if (existing.userId !== principal.userId) throw takenError(key.fingerprint);
        if (existing.revokedAt) {
          throw new RyeError("CONFLICT", `The key ${key.fingerprint} was revoked and cannot be registered again`, {
            hint: "Revocation is final: create a new key pair with `rye keygen --force` and register that.",
          });
        }
        return c.json({ status: "already_registered" as const, key: userKeyJson(existing) }, 200);
      }
      try {
        const row = await prisma.$transaction(async (tx) => {
          const created = await tx.userKey.create({
            data: { userId: principal.userId, fingerprint: key.fingerprint, publicKeyPem: key.pem, label: body.label ?? "" },
          });
          await recordAudit(tx, {
            actorId: principal.userId,
            action: "user_key.register",
            targetType: "user_key",
            targetId: key.fingerprint,
            details: { label: created.label },
            ...meta(c),
          });
          return created;
        });
        return c.json({ status: "registered" as const, key: userKeyJson(row) }, 201);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // A concurrent registration won the race: answer as if we had come second.
        const winner = await prisma.userKey.findUnique({ where: { fingerprint: key.fingerprint } });
        if (winner && winner.userId === principal.userId && !winner.revokedAt) return c.json({ status: "already_registered" as const, key: userKeyJson(winner) }, 200);
        throw takenError(key.fingerprint);
      }
    })
    .openapi(revokeUserKeyRoute, async (c) => {
      const principal = await requirePrincipalOrSession(c, deps.db, "items:write");
      const fingerprint = c.req.param("fingerprint");
      const notFound = () => new RyeError("NOT_FOUND", `You have no key ${fingerprint}`, { hint: "List your keys with GET /v1/me/keys." });
      if (!FINGERPRINT_RE.test(fingerprint)) throw notFound();
      const row = await prisma.userKey.findUnique({ where: { fingerprint } });
      // Someone else's key answers exactly like a missing one: no probing which keys exist.
      if (!row || row.userId !== principal.userId) throw notFound();
      if (row.revokedAt) return c.json({ status: "already_revoked" as const, key: userKeyJson(row) }, 200);
      const revoked = await prisma.$transaction(async (tx) => {
        const updated = await tx.userKey.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
        await recordAudit(tx, { actorId: principal.userId, action: "user_key.revoke", targetType: "user_key", targetId: fingerprint, ...meta(c) });
        return updated;
      });
      return c.json({ status: "revoked" as const, key: userKeyJson(revoked) }, 200);
    });
}
