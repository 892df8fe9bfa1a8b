/** Open-redirect protection for `?next=`: only a same-origin relative path is accepted. */
import { RyeError } from "@rye/core";

const MAX_NEXT_LENGTH = 2048;

/**
 * `next` as a path (+ query + fragment) on the registry's own origin, `/` when absent. Refuses
 * absolute and protocol-relative URLs (`https://x`, `//x`, `/\x`), backslashes and control characters.
 */
export function safeNextPath(next: string | undefined, publicUrl: string): string {
  if (next === undefined || next === "") return "/";
  const refuse = (why: string) =>
    new RyeError("BAD_REQUEST", `The next parameter is not allowed: ${why}`, { hint: "Pass a path on this registry, e.g. next=/settings/tokens." });
  if (next.length > MAX_NEXT_LENGTH) throw refuse("too long");
  if (!next.startsWith("/") || next.startsWith("//")) throw refuse("it must be a relative path starting with a single /");
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(next)) throw refuse("it contains a backslash or control character");
  const origin = new URL(publicUrl).origin;
  const resolved = new URL(next, `${origin}/`);
  if (resolved.origin !== origin) throw refuse("it leaves this registry");
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
