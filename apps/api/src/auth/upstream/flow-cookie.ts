/**
 * The state of one sign-in in flight (provider, OAuth `state`, OIDC `nonce`, PKCE verifier, `next`)
 * lives in the browser, sealed with AES-256-GCM: nothing is stored server side, the verifier and
 * nonce stay unreadable, and any change to the cookie makes it invalid. httpOnly, SameSite=Lax (the
 * IdP's redirect back is a top-level GET, so the cookie comes along), Secure on https, 10 minutes.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";

export const FLOW_COOKIE = "rye_upstream_flow";
export const FLOW_TTL_SECONDS = 600;
const COOKIE_PATH = "/v1/auth/";
const AAD = Buffer.from(`${FLOW_COOKIE}:v1`);

const flowSchema = z.object({
  provider: z.string(),
  state: z.string(),
  nonce: z.string().optional(),
  codeVerifier: z.string(),
  next: z.string(),
  exp: z.number(),
});
export type FlowState = Omit<z.infer<typeof flowSchema>, "exp">;

export function sealFlow(key: Buffer, flow: FlowState, now = Date.now()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(AAD);
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...flow, exp: Math.floor(now / 1000) + FLOW_TTL_SECONDS })), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

/** The flow sealed in `value`, or null when it was tampered with, sealed under another key, malformed or expired. */
export function openFlow(key: Buffer, value: string, now = Date.now()): FlowState | null {
  const raw = Buffer.from(value, "base64url");
  if (raw.length < 12 + 16 + 2 || raw.length > 4096) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12)).setAAD(AAD);
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
    const parsed = flowSchema.safeParse(JSON.parse(plain.toString("utf8")));
    if (!parsed.success || parsed.data.exp * 1000 <= now) return null;
    const { exp: _exp, ...flow } = parsed.data;
    return flow;
  } catch {
    return null;
  }
}

export function setFlowCookie(c: Context, sealed: string, secure: boolean): void {
  setCookie(c, FLOW_COOKIE, sealed, { httpOnly: true, sameSite: "Lax", secure, path: COOKIE_PATH, maxAge: FLOW_TTL_SECONDS });
}

export function readFlowCookie(c: Context): string | undefined {
  return getCookie(c, FLOW_COOKIE);
}

/** A flow is used once: the callback clears the cookie whatever the outcome. */
export function clearFlowCookie(c: Context, secure: boolean): void {
  deleteCookie(c, FLOW_COOKIE, { path: COOKIE_PATH, secure });
}
