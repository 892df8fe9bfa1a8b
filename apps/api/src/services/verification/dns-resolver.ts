/**
 * TXT look-ups for domain verification through a configurable resolver (RYE_DNS_RESOLVER): the system's resolvers
 * by default, or the listed `host[:port]` servers — a company resolver, or a local DNS server in tests. Node's
 * c-ares resolver speaks the real protocol (UDP, TCP on truncation) and follows CNAMEs.
 */
import { Resolver } from "node:dns/promises";

export interface TxtResolver {
  /** The TXT records at `name`, each joined from its character strings; throws Node's DNS errors (ENODATA, …). */
  resolveTxt(name: string): Promise<string[]>;
}

export interface DnsResolverConfig {
  /** `host[:port]` or `[v6]:port` entries; empty: the system's resolvers. */
  servers: string[];
  /** Per attempt; c-ares tries twice. */
  timeoutMs: number;
}

export function createTxtResolver(config: DnsResolverConfig): TxtResolver {
  const resolver = new Resolver({ timeout: config.timeoutMs, tries: 2 });
  if (config.servers.length > 0) resolver.setServers(config.servers);
  return {
    async resolveTxt(name) {
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(""));
    },
  };
}
