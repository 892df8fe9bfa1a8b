/**
 * Texts whose reading the client already has: rye's published package ships its system bundle's YAML files parsed
 * (`dist/system-yaml.json`) and its JavaScript tools' `export const` metadata read (`dist/system-js-exports.json`),
 * each keyed by the SHA-256 of a file's exact text, and installs a lookup for each here. The tool parser and the
 * security configuration reader then take those values instead of reading the very same bytes again (the YAML
 * parser's first use was ~30 ms of `rye thread run`'s start, tokenizing `thread_directive.mjs` 10–18 ms, profiled).
 * A text a lookup does not know (an override, an edited file, anything without a shipped table) is read as before.
 * A lookup decides nothing about trust: callers pass only content they read for verification or have verified, and
 * a reading is a pure function of the bytes.
 */
import type { JsExports } from "./js-literal.ts";

/** A process-wide lookup: what reading `text` (a whole file's content, as read) gives, when known; else undefined. */
function shippedLookup<T>(): { use(next: ((text: string) => T | undefined) | undefined): ((text: string) => T | undefined) | undefined; get(text: string): T | undefined } {
  let lookup: ((text: string) => T | undefined) | undefined;
  return {
    use(next) {
      const previous = lookup;
      lookup = next;
      return previous;
    },
    get: (text) => lookup?.(text),
  };
}

/** The value of parsing `text` as YAML, when known; undefined otherwise. */
export type ShippedYamlLookup = (text: string) => unknown;
/** What `extractJsExports` gives for the body of `text`, when known; else undefined. */
export type ShippedJsExportsLookup = (text: string) => JsExports | undefined;

const yaml = shippedLookup<unknown>();
const jsExports = shippedLookup<JsExports>();

/** Installs (or, with undefined, removes) the YAML lookup for this process; returns the one it replaces. */
export const useShippedYaml: (next: ShippedYamlLookup | undefined) => ShippedYamlLookup | undefined = yaml.use;
/** The known value of `text`, or undefined: parse it. */
export const shippedYamlValue: (text: string) => unknown = yaml.get;
/** Installs (or, with undefined, removes) the JS exports lookup for this process; returns the one it replaces. */
export const useShippedJsExports: (next: ShippedJsExportsLookup | undefined) => ShippedJsExportsLookup | undefined = jsExports.use;
/** The known exports of `text`, or undefined: read them. */
export const shippedJsExports: (text: string) => JsExports | undefined = jsExports.get;
