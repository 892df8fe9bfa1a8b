/** The engine verifier with the registry trust rule, which loads its parts (project lock, registry pins) only when a result needs them. */
import type { Verifier } from "../engine/verification.ts";

/**
 * The engine verifier, plus the registry trust rule (docs/trust.md): a project or user-space file
 * signed with `|rye-registry@<publisher>` provenance verifies with a registry's key when the project
 * lock pins exactly that file (type, inline content hash, SHA-256 of the whole file, key fingerprint)
 * to that registry, and the key is the registry's pinned key or one the pin rotated away from (items
 * cached before a rotation keep verifying), never a key recorded as revoked. Only an UNTRUSTED_KEY
 * result is reconsidered; every other result stands. Registry keys never enter the trust store.
 */
export function withRegistryTrust(inner: Verifier, options: { projectPath: string; env: NodeJS.ProcessEnv }): Verifier {
  return {
    resolverFor: (space) => inner.resolverFor(space),
    async verify(content, type, space) {
      const base = await inner.verify(content, type, space);
      if (base.code !== "UNTRUSTED_KEY" || space === "system" || !base.contentHash || !base.fingerprint) return base;
      const { verifyWithRegistryPin } = await import("./cache.ts");
      return verifyWithRegistryPin(base, content, type, options);
    },
  };
}
