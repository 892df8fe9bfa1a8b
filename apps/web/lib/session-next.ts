/**
 * Open-redirect protection for `?next=` on the sign-in pages: the same rules as the API's
 * `safeNextPath` (apps/api/src/auth/upstream/next-path.ts) — a path on this origin only, no absolute or
 * protocol-relative URL (`https://x`, `//x`, `/\x`), no backslash or control character — but it
 * falls back to `/` instead of throwing, and it has no Node-only imports (client bundles use it).
 */
const MAX_NEXT_LENGTH = 2048;
/** Any origin works for the check: only whether the resolved URL stays on it matters. */
const PROBE_ORIGIN = "http://rye.invalid";

export function safeNext(next: string | string[] | null | undefined, fallback = "/"): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (typeof value !== "string" || value === "" || value.length > MAX_NEXT_LENGTH) return fallback;
  if (!value.startsWith("/") || value.startsWith("//")) return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  let resolved: URL;
  try {
    resolved = new URL(value, `${PROBE_ORIGIN}/`);
  } catch {
    return fallback;
  }
  if (resolved.origin !== PROBE_ORIGIN) return fallback;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** `/login?next=…` (or another sign-in page) for coming back to `path` afterwards. */
export function signInUrl(path: string, page: "/login" | "/signup" = "/login"): string {
  const next = safeNext(path);
  return next === "/" ? page : `${page}?next=${encodeURIComponent(next)}`;
}

/** Sign-in and sign-up pages are never a useful place to come back to. */
export function landingAfterSignIn(next: string | string[] | null | undefined): string {
  const path = safeNext(next);
  const bare = path.split(/[?#]/, 1)[0];
  return bare === "/login" || bare === "/signup" ? "/" : path;
}
