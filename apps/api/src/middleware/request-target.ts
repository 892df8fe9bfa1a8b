/**
 * The request line's path and query, checked before any route runs (and so before any database call): every path
 * segment and every query key and value must be well-formed percent-encoded UTF-8, hold no control character and
 * keep within REQUEST_TARGET_LIMITS. Anything else is refused with 400 INVALID_PARAMETER. Routes still check what
 * their parameters mean (a namespace, an item id, a version); this only guarantees they are text a database takes.
 */
import { RyeError } from "@rye/core";

export const REQUEST_TARGET_LIMITS = {
  /** The path as sent (percent-encoded): an item id is at most 256 characters, plus the route. */
  maxPathBytes: 2048,
  /** One decoded path segment: a skill artifact's file name is the longest (name, semver of ≤ 256, extension). */
  maxSegmentChars: 512,
  /** The query string as sent (percent-encoded). */
  maxQueryBytes: 8192,
  maxQueryParameters: 64,
  /** One decoded query key. */
  maxQueryKeyChars: 64,
  /** One decoded query value (OAuth and OpenID Connect callbacks carry the longest: codes, states, URLs). */
  maxQueryValueChars: 4096,
} as const;

// C0 controls (NUL among them), DEL and C1 controls: never part of a name, an id, a version or a search.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

interface Problem {
  reason: string;
  limit?: number;
}

function refuse(where: "path" | "query", subject: string, problem: Problem, at: { segment?: number; parameter?: string } = {}): never {
  throw new RyeError("INVALID_PARAMETER", `The request ${where} is not valid: ${subject} ${problem.reason}`, {
    details: { where, ...at, reason: problem.reason, ...(problem.limit === undefined ? {} : { limit: problem.limit }) },
  });
}

// Characters that decode to themselves and are no control: most components are made of these alone.
const VERBATIM = /^[A-Za-z0-9\-._~!$'()*,;:@=]*$/;

/** The decoded text of one percent-encoded component, or the reason it is not well-formed. */
function decode(raw: string, maxChars: number): { text: string } | { reason: string; limit?: number } {
  if (VERBATIM.test(raw)) return raw.length > maxChars ? { reason: `is longer than ${maxChars} characters`, limit: maxChars } : { text: raw };
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    // A `%` not followed by two hex digits, or bytes that are not UTF-8 (overlong forms, surrogates, 0xFF …).
    return { reason: "is not well-formed percent-encoded UTF-8" };
  }
  const control = CONTROL.exec(text);
  if (control) return { reason: `contains the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` };
  if (text.length > maxChars) return { reason: `is longer than ${maxChars} characters`, limit: maxChars };
  return { text };
}

/** Throws INVALID_PARAMETER unless the path and query of `url` (an absolute URL as the server received it) are well-formed. */
export function checkRequestTarget(url: string): void {
  const L = REQUEST_TARGET_LIMITS;
  const pathStart = url.indexOf("/", url.indexOf("://") + 3);
  if (pathStart < 0) return;
  const queryStart = url.indexOf("?", pathStart);
  const hash = url.indexOf("#", pathStart);
  const pathEnd = queryStart >= 0 ? queryStart : hash >= 0 ? hash : url.length;
  const path = url.slice(pathStart, pathEnd);
  if (path.length > L.maxPathBytes) refuse("path", "it", { reason: `is longer than ${L.maxPathBytes} bytes`, limit: L.maxPathBytes });
  const segments = path.split("/");
  for (let i = 0; i < segments.length; i++) {
    const decoded = decode(segments[i]!, L.maxSegmentChars);
    if ("reason" in decoded) refuse("path", `segment ${i}`, decoded, { segment: i });
  }
  if (queryStart < 0) return;
  const query = url.slice(queryStart + 1, hash > queryStart ? hash : url.length);
  if (query.length > L.maxQueryBytes) refuse("query", "it", { reason: `is longer than ${L.maxQueryBytes} bytes`, limit: L.maxQueryBytes });
  const pairs = query.split("&").filter((p) => p !== "");
  if (pairs.length > L.maxQueryParameters) refuse("query", "it", { reason: `has more than ${L.maxQueryParameters} parameters`, limit: L.maxQueryParameters });
  for (const [i, pair] of pairs.entries()) {
    const eq = pair.indexOf("=");
    const rawKey = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll("+", " ");
    const key = decode(rawKey, L.maxQueryKeyChars);
    if ("reason" in key) refuse("query", `the name of parameter ${i + 1}`, key);
    const value = decode(eq < 0 ? "" : pair.slice(eq + 1).replaceAll("+", " "), L.maxQueryValueChars);
    if ("reason" in value) refuse("query", `parameter ${JSON.stringify(key.text)}`, value, { parameter: key.text });
  }
}
