/** The registry's public keys: the active one as PEM (trust on first use), and every key with its rotations and revocations. */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { type KeyRotation, keysResponseSchema } from "@rye/core";
import { access, json } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";

const KeysResponse = keysResponseSchema;

export const publicKeyRoute = createRoute({
  method: "get",
  path: "/v1/public-key",
  operationId: "getPublicKey",
  summary: "The active registry public key (SPKI PEM), for trust on first use",
  tags: ["keys"],
  ...access("none"),
  responses: {
    200: {
      description: "PEM",
      headers: { "X-Key-Fingerprint": { schema: { type: "string" } } },
      content: { "application/x-pem-file": { schema: z.string() } },
    },
  },
});

export const keysRoute = createRoute({
  method: "get",
  path: "/v1/keys",
  operationId: "listKeys",
  summary: "Every registry key with validity, rotation statements and revocations",
  tags: ["keys"],
  ...access("none"),
  responses: { 200: json(KeysResponse, "Keys") },
});

export function keyRoutes(deps: AppDeps) {
  return contractRouter()
    .openapi(publicKeyRoute, async (c) => {
      const key = await deps.keyring.signer();
      return c.body(key.publicKey.pem, 200, { "Content-Type": "application/x-pem-file", "X-Key-Fingerprint": key.publicKey.fingerprint });
    })
    .openapi(keysRoute, async (c) => {
      const active = (await deps.keyring.signer()).publicKey.fingerprint;
      const rows = await deps.db.prisma.registryKey.findMany({ orderBy: { validFrom: "asc" } });
      return c.json(
        {
          registry: deps.config.publicUrl,
          active: active,
          keys: rows.map((k) => ({
            fingerprint: k.fingerprint,
            public_key: k.publicKeyPem,
            algorithm: "ed25519" as const,
            valid_from: k.validFrom.toISOString(),
            valid_until: k.validUntil?.toISOString() ?? null,
            previous_fingerprint: k.previousFingerprint,
            // Written by the key rotation (services/keyring.ts) from a KeyRotation it signed: stored JSON, not input.
            rotation:
              k.rotationStatement && k.rotationSignature && k.previousFingerprint
                ? { payload: k.rotationStatement as KeyRotation, signature: k.rotationSignature, key_fingerprint: k.previousFingerprint }
                : null,
            revoked_at: k.revokedAt?.toISOString() ?? null,
            revocation_reason: k.revocationReason,
            active: k.fingerprint === active,
          })),
        },
        200,
      );
    });
}
