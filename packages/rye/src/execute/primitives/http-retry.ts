/** When and how long the HTTP primitive waits before trying again. */

/** No single wait is longer than this, whatever the server or the backoff asks for. */
export const MAX_RETRY_DELAY_MS = 30_000;
const JITTER = 0.1;

export type Backoff = "exponential" | "linear";

/** 429 and 5xx are worth retrying; other statuses will not change by asking again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `Retry-After` as milliseconds (delta-seconds or an HTTP date), capped; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_DELAY_MS);
}

/**
 * Delay before retry number `retry` (1 = the first retry): base·2^(retry-1) or base·retry, with ±10 % jitter so
 * that many clients do not retry in lockstep.
 */
export function backoffDelay(backoff: Backoff, baseMs: number, retry: number, random: () => number = Math.random): number {
  const nominal = backoff === "exponential" ? baseMs * 2 ** (retry - 1) : baseMs * retry;
  const jittered = nominal * (1 - JITTER + 2 * JITTER * random());
  return Math.round(Math.min(jittered, MAX_RETRY_DELAY_MS));
}
