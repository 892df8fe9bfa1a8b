/**
 * Capability tokens of agent threads (docs/agent-runtime.md §11), in the original's format: a JSON object
 * `{token_id, caps, aud, exp, parent_id, directive_id, thread_id, signature}` signed with the user's Ed25519 key
 * over Python's `json.dumps(…, sort_keys=True)` of every field but the signature (caps sorted), serialised as
 * base64url of the same JSON with the signature. A root thread's token has no parent; a child's token is its
 * parent's attenuated (the intersection of caps, never a later expiry).
 *
 * A thread carries its whole chain (root → itself) and it is verified at every dispatch: each signature, each
 * expiry, the audience, each link naming the one before, and no link granting more than the one before. So a
 * child cannot widen its capabilities by editing its record or its environment: it would need the user's key.
 */
import { randomUUID } from "node:crypto";
import type { KeyPair } from "@rye/core";
import { capabilitiesBeyond, fromBase64Url, getEd25519, intersectCapabilities, RyeError, toBase64Url, utf8Decode, utf8Encode } from "@rye/core";

export const TOKEN_AUDIENCE = "rye";
/** A chain longer than this is refused before any signature is checked (depth limits stop far below it). */
export const MAX_CHAIN_LENGTH = 64;
/** An encoded token longer than this is refused before it is decoded. */
export const MAX_TOKEN_CHARS = 64 * 1024;

export interface CapabilityToken {
  token_id: string;
  caps: string[];
  aud: string;
  /** Python `datetime.isoformat()` of an aware UTC time: `2026-11-25T13:00:00.123000+00:00`. */
  exp: string;
  parent_id: string | null;
  directive_id: string;
  thread_id: string;
  signature: string | null;
}

/**
 * `json.dumps(value, sort_keys=True)` of Python: `", "` and `": "` separators, keys sorted, non-ASCII
 * escaped as `\uXXXX` (lower-case hex, as Python writes them).
 */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error("cannot encode a non-finite number");
    return String(value);
  }
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value as Record<string, unknown>).sort();
    return `{${keys.map((k) => `${pythonJson(k)}: ${pythonJson((value as Record<string, unknown>)[k])}`).join(", ")}}`;
  }
  throw new Error(`cannot encode ${typeof value}`);
}

/** Python's `isoformat()` of an aware UTC datetime (microseconds only when non-zero). */
export function pythonIsoUtc(date: Date): string {
  const base = date.toISOString().slice(0, 19);
  const ms = date.getUTCMilliseconds();
  return `${base}${ms === 0 ? "" : `.${String(ms).padStart(3, "0")}000`}+00:00`;
}

/** Parses `exp` as Python's `fromisoformat` would, a naive time taken as UTC; NaN when it is not a time. */
export function parseExpiry(exp: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?$/.exec(exp);
  if (!m) return Number.NaN;
  const fraction = m[2] ? m[2].slice(0, 4).padEnd(4, "0") : "";
  return Date.parse(`${m[1]}${fraction}${m[3] === undefined || m[3] === "Z" ? "Z" : m[3]}`);
}

/** The bytes a token's signature covers. */
export function signingPayload(token: CapabilityToken): Uint8Array {
  const { signature: _signature, ...fields } = token;
  return utf8Encode(pythonJson({ ...fields, caps: [...fields.caps].sort() }));
}

export function encodeToken(token: CapabilityToken): string {
  return toBase64Url(utf8Encode(pythonJson(token)));
}

const refuse = (code: "CAP_TOKEN_MALFORMED" | "CAP_TOKEN_FORGED" | "CAP_TOKEN_EXPIRED" | "CAP_TOKEN_AUDIENCE" | "CAP_TOKEN_WIDENED" | "CAP_TOKEN_CHAIN" | "CAP_TOKEN_MISSING", message: string) =>
  new RyeError(code, message);

export function decodeToken(encoded: string): CapabilityToken {
  if (typeof encoded !== "string" || encoded.length === 0 || encoded.length > MAX_TOKEN_CHARS) throw refuse("CAP_TOKEN_MALFORMED", "A capability token is missing, empty or too long");
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(utf8Decode(fromBase64Url(encoded))) as Record<string, unknown>;
  } catch {
    throw refuse("CAP_TOKEN_MALFORMED", "A capability token is not base64url-encoded JSON");
  }
  const str = (k: string) => typeof data?.[k] === "string" && (data[k] as string).length > 0;
  if (!data || typeof data !== "object" || !str("token_id") || !str("aud") || !str("exp") || !str("directive_id") || !str("thread_id")
    || !Array.isArray(data.caps) || !data.caps.every((c) => typeof c === "string")
    || !(data.parent_id === null || data.parent_id === undefined || str("parent_id")) || !str("signature")) {
    throw refuse("CAP_TOKEN_MALFORMED", "A capability token lacks a field or has one of the wrong type");
  }
  return {
    token_id: data.token_id as string,
    caps: data.caps as string[],
    aud: data.aud as string,
    exp: data.exp as string,
    parent_id: (data.parent_id as string | null | undefined) ?? null,
    directive_id: data.directive_id as string,
    thread_id: data.thread_id as string,
    signature: data.signature as string,
  };
}

export interface MintRequest {
  caps: readonly string[];
  directiveId: string;
  threadId: string;
  expiresAt: Date;
  /** The parent's token: the new one is its attenuation (caps intersected, expiry never later). */
  parent?: CapabilityToken;
  audience?: string;
}

export async function mintToken(request: MintRequest, key: KeyPair): Promise<CapabilityToken> {
  const { parent } = request;
  const caps = parent ? intersectCapabilities(request.caps, parent.caps) : [...new Set(request.caps)];
  const expires = parent ? Math.min(request.expiresAt.getTime(), parseExpiry(parent.exp)) : request.expiresAt.getTime();
  const token: CapabilityToken = {
    token_id: randomUUID(),
    caps,
    aud: parent?.aud ?? request.audience ?? TOKEN_AUDIENCE,
    exp: pythonIsoUtc(new Date(expires)),
    parent_id: parent?.token_id ?? null,
    directive_id: request.directiveId,
    thread_id: request.threadId,
    signature: null,
  };
  const ed = await getEd25519();
  token.signature = toBase64Url(await ed.sign(key.seed, signingPayload(token)));
  return token;
}

export interface VerifyOptions {
  /** Raw Ed25519 public keys a token may be signed with (the user's own key). */
  keys: readonly Uint8Array[];
  /** The thread the last token must belong to. */
  threadId?: string;
  audience?: string;
  now?: number;
}

/**
 * Verifies a chain root → leaf and returns the decoded tokens. Every failure names what is wrong with one code:
 * CAP_TOKEN_MALFORMED, CAP_TOKEN_FORGED, CAP_TOKEN_EXPIRED, CAP_TOKEN_AUDIENCE, CAP_TOKEN_CHAIN, CAP_TOKEN_WIDENED.
 */
export async function verifyChain(encoded: readonly string[], options: VerifyOptions): Promise<CapabilityToken[]> {
  if (!Array.isArray(encoded) || encoded.length === 0) throw refuse("CAP_TOKEN_MISSING", "No capability token was handed to this thread");
  if (encoded.length > MAX_CHAIN_LENGTH) throw refuse("CAP_TOKEN_CHAIN", `A capability token chain may have at most ${MAX_CHAIN_LENGTH} links (it has ${encoded.length})`);
  const tokens = encoded.map(decodeToken);
  const ed = await getEd25519();
  const now = options.now ?? Date.now();
  const audience = options.audience ?? TOKEN_AUDIENCE;
  for (const [i, token] of tokens.entries()) {
    const where = `the capability token of thread ${token.thread_id}`;
    let signature: Uint8Array;
    try {
      signature = fromBase64Url(token.signature ?? "");
    } catch {
      throw refuse("CAP_TOKEN_MALFORMED", `The signature of ${where} is not base64url`);
    }
    const payload = signingPayload(token);
    let valid = false;
    for (const key of options.keys) if (signature.length === 64 && (await ed.verify(key, payload, signature))) valid = true;
    if (!valid) throw refuse("CAP_TOKEN_FORGED", `The signature of ${where} does not verify with your signing key`);
    if (token.aud !== audience) throw refuse("CAP_TOKEN_AUDIENCE", `${where} is for the audience ${JSON.stringify(token.aud)}, not ${JSON.stringify(audience)}`);
    const exp = parseExpiry(token.exp);
    if (Number.isNaN(exp)) throw refuse("CAP_TOKEN_MALFORMED", `The expiry of ${where} is not an ISO time`);
    if (now > exp) throw refuse("CAP_TOKEN_EXPIRED", `${where} expired at ${token.exp}`);
    const parent = i === 0 ? undefined : tokens[i - 1]!;
    if (!parent && token.parent_id !== null) throw refuse("CAP_TOKEN_CHAIN", `The chain starts at ${where}, which names a parent token (${token.parent_id}): it does not reach a root`);
    if (parent) {
      if (token.parent_id !== parent.token_id) throw refuse("CAP_TOKEN_CHAIN", `${where} names the parent token ${token.parent_id}, not ${parent.token_id} of thread ${parent.thread_id}`);
      const beyond = capabilitiesBeyond(token.caps, parent.caps);
      if (beyond.length > 0) throw refuse("CAP_TOKEN_WIDENED", `${where} grants ${beyond.join(", ")}, which its parent thread ${parent.thread_id} does not have`);
      if (exp > parseExpiry(parent.exp)) throw refuse("CAP_TOKEN_WIDENED", `${where} expires after its parent's token`);
    }
  }
  const leaf = tokens[tokens.length - 1]!;
  if (options.threadId !== undefined && leaf.thread_id !== options.threadId) throw refuse("CAP_TOKEN_CHAIN", `The last capability token belongs to thread ${leaf.thread_id}, not ${options.threadId}`);
  return tokens;
}
