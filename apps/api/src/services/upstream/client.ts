/**
 * HTTP to the upstream registry: GET only, no credentials, every request under its own deadline (connect and body),
 * answers capped in size, redirects refused. Any failure to get an answer becomes UPSTREAM_UNAVAILABLE; a pull never
 * waits longer than the deadline and never crashes on what the upstream sends.
 */
import { RyeError, utf8Decode } from "@rye/core";
import type { MirrorConfig } from "./config.ts";

/**
 * How many mirrors a request has passed through: each mirror sends the count it received plus one, and stops
 * forwarding at MAX_MIRROR_HOPS, so mirrors configured in a loop (A → B → A) end with an error instead of a storm.
 */
export const MIRROR_HOPS_HEADER = "x-rye-mirror-hops";
export const MAX_MIRROR_HOPS = 4;

/** The hop count of an incoming request (0 when absent or unreadable). */
export function mirrorHops(header: string | undefined): number {
  const n = Number(header);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

export interface UpstreamAnswer {
  status: number;
  /** The parsed JSON body (undefined for a non-JSON error answer). */
  body: unknown;
}

export class UpstreamClient {
  constructor(private readonly config: Pick<MirrorConfig, "upstreamUrl" | "maxAnswerBytes">) {}

  get url(): string {
    return this.config.upstreamUrl;
  }

  /** `path` is built by the caller from encoded parts; the answer is returned for 2xx and 404, refused otherwise. */
  async getJson(path: string, timeoutMs: number, hops = 0): Promise<UpstreamAnswer> {
    if (hops >= MAX_MIRROR_HOPS) throw unavailable(this.url, `the request already passed through ${hops} mirrors (are mirrors configured in a loop?)`);
    const target = `${this.config.upstreamUrl}${path}`;
    const deadline = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(target, { method: "GET", headers: { accept: "application/json", "user-agent": "rye-registry-mirror", [MIRROR_HOPS_HEADER]: String(hops + 1) }, redirect: "manual", signal: deadline });
    } catch (err) {
      throw unavailable(this.url, deadline.aborted ? `no answer within ${timeoutMs} ms` : describe(err));
    }
    if (res.status !== 404 && (res.status < 200 || res.status > 299)) {
      await res.body?.cancel().catch(() => undefined);
      throw unavailable(this.url, `it answered HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = utf8Decode(await readCapped(res, this.config.maxAnswerBytes));
    } catch (err) {
      if (err instanceof RyeError) throw err;
      throw unavailable(this.url, deadline.aborted ? `the answer did not complete within ${timeoutMs} ms` : describe(err));
    }
    try {
      return { status: res.status, body: JSON.parse(text) as unknown };
    } catch {
      if (res.status === 404) return { status: 404, body: undefined };
      throw unavailable(this.url, "its answer is not JSON");
    }
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
  if (!res.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function tooLarge(maxBytes: number): RyeError {
  return new RyeError("UPSTREAM_UNAVAILABLE", `The upstream's answer exceeds RYE_UPSTREAM_MAX_BYTES (${maxBytes} bytes)`, { hint: "Raise RYE_UPSTREAM_MAX_BYTES if the upstream really serves larger answers." });
}

export function unavailable(url: string, why: string): RyeError {
  return new RyeError("UPSTREAM_UNAVAILABLE", `The upstream registry ${url} is unavailable: ${why}`);
}
