import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";

export function keyRoutes(deps: AppDeps): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .get("/v1/public-key", async (c) => {
      const key = await deps.keyring.signer();
      return c.body(key.publicKey.pem, 200, { "Content-Type": "application/x-pem-file", "X-Key-Fingerprint": key.publicKey.fingerprint });
    })
    .get("/v1/keys", async (c) => {
      const active = (await deps.keyring.signer()).publicKey.fingerprint;
      const rows = await deps.db.prisma.registryKey.findMany({ orderBy: { validFrom: "asc" } });
      return c.json({
        registry: deps.config.publicUrl,
        active: active,
        keys: rows.map((k) => ({
          fingerprint: k.fingerprint,
          public_key: k.publicKeyPem,
          algorithm: "ed25519",
          valid_from: k.validFrom.toISOString(),
          valid_until: k.validUntil?.toISOString() ?? null,
          previous_fingerprint: k.previousFingerprint,
          rotation: k.rotationStatement
            ? { payload: k.rotationStatement, signature: k.rotationSignature, key_fingerprint: k.previousFingerprint }
            : null,
          revoked_at: k.revokedAt?.toISOString() ?? null,
          revocation_reason: k.revocationReason,
          active: k.fingerprint === active,
        })),
      });
    });
}
