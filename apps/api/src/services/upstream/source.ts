/** How a mirror's answer was obtained, for the `X-Rye-Mirror` header: its cache, the upstream just now, or its cache while the upstream is down. */
export type MirrorSource = "cache" | "upstream" | "stale";
