/**
 * Webhook signatures: `X-Rye-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The timestamp
 * is signed too, so a receiver can refuse replays older than a few minutes (`verifyWebhookSignature`'s tolerance).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-rye-signature";

export function signWebhookBody(secret: string, body: string, timestampSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
  return `t=${timestampSeconds},v1=${mac}`;
}

/** What a receiver does (documented in docs/webhooks.md); used by the tests as a receiver would. */
export function verifyWebhookSignature(secret: string, body: string, header: string | undefined, options: { toleranceSeconds?: number; now?: number } = {}): boolean {
  if (!header) return false;
  const parts = new Map(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const given = parts.get("v1");
  if (!Number.isSafeInteger(t) || !given || !/^[0-9a-f]{64}$/.test(given)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = signWebhookBody(secret, body, t).slice(`t=${t},v1=`.length);
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(given, "hex"));
}
