/**
 * YAML texts whose parsed value the client already has: rye's published package ships its system bundle's YAML
 * files parsed (`dist/system-yaml.json`, keyed by the SHA-256 of each file's exact text) and installs a lookup here,
 * so the tool parser and the security configuration reader take that value instead of parsing those very bytes
 * again (the YAML parser's first use in a process was ~30 ms of `rye thread run`'s start, profiled). A text the
 * lookup does not know (an override, an edited file, anything without a shipped table) is parsed as before. The
 * lookup decides nothing about trust: callers pass only content they read for verification or have verified.
 */

/** The value of parsing `text` (a whole file's content, as read), when known; undefined otherwise. */
export type ShippedYamlLookup = (text: string) => unknown;

let lookup: ShippedYamlLookup | undefined;

/** Installs (or, with undefined, removes) the lookup for this process; returns the one it replaces. */
export function useShippedYaml(next: ShippedYamlLookup | undefined): ShippedYamlLookup | undefined {
  const previous = lookup;
  lookup = next;
  return previous;
}

/** The known value of `text`, or undefined: parse it. */
export function shippedYamlValue(text: string): unknown {
  return lookup?.(text);
}
