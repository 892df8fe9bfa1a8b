/**
 * JavaScript/TypeScript tool texts whose metadata the client already has: rye's published package ships the
 * `export const` declarations of its system bundle's JS tools read (`dist/system-js-exports.json`, keyed by the
 * SHA-256 of each file's exact text) and installs a lookup here, so the tool parser takes them instead of tokenizing
 * those very bytes again (a cold parse of the thread runtime's entry, `thread_directive.mjs`, was 10–18 ms in each
 * process that starts a thread). A text the lookup does not know is read as before. Like `useShippedYaml`, the
 * lookup decides nothing about trust: it only saves re-reading bytes whose reading is a pure function of them.
 */
import type { JsExports } from "./js-literal.ts";

/** What `extractJsExports` gives for the body of `text` (a whole file's content, as read), when known; else undefined. */
export type ShippedJsExportsLookup = (text: string) => JsExports | undefined;

let lookup: ShippedJsExportsLookup | undefined;

/** Installs (or, with undefined, removes) the lookup for this process; returns the one it replaces. */
export function useShippedJsExports(next: ShippedJsExportsLookup | undefined): ShippedJsExportsLookup | undefined {
  const previous = lookup;
  lookup = next;
  return previous;
}

/** The known exports of `text`, or undefined: read them. */
export function shippedJsExports(text: string): JsExports | undefined {
  return lookup?.(text);
}
