/** Verifying item files with the trust that applies to their space. */
import type { ItemType, KeyResolver, PublicKey, VerifyResult } from "@rye/core";
import { verifyItem } from "@rye/core";
import type { SpaceName } from "../spaces/spaces.ts";
import { TrustStore } from "../trust/store.ts";
import { releasePublicKey } from "./release-key.ts";

export interface Verifier {
  verify(content: string, type: ItemType, space: SpaceName): Promise<VerifyResult>;
  /** Keys trusted for a space: the user's trust store, plus the release key for the system space. */
  resolverFor(space: SpaceName): KeyResolver;
}

export function createVerifier(options: { env?: NodeJS.ProcessEnv; trustDir?: string; extraSystemKeys?: PublicKey[] } = {}): Verifier {
  const userTrust = new TrustStore({ ...(options.env ? { env: options.env } : {}), ...(options.trustDir ? { dir: options.trustDir } : {}) });
  let systemTrust: TrustStore | undefined;
  const systemResolver = (): TrustStore => {
    systemTrust ??= new TrustStore({
      dir: userTrust.dir,
      extraKeys: [releasePublicKey(), ...(options.extraSystemKeys ?? [])],
    });
    return systemTrust;
  };
  const resolverFor = (space: SpaceName): KeyResolver => (space === "system" ? systemResolver() : userTrust);
  return {
    resolverFor,
    verify: (content, type, space) => verifyItem(content, type, resolverFor(space)),
  };
}
