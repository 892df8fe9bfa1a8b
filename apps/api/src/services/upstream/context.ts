/** What every part of the mirror (items in mirror.ts, skills, bundles) works with: one upstream, its client and pinned keys. */
import type { Database } from "@rye/db";
import type { RegistryKeyring } from "../../keys/keyring.ts";
import type { Logger } from "../../logger.ts";
import type { BlobStore } from "../blob-store.ts";
import type { UpstreamClient } from "./client.ts";
import type { MirrorConfig } from "./config.ts";
import type { UpstreamKeys } from "./keys.ts";

export interface MirrorContext {
  readonly db: Database;
  readonly config: MirrorConfig;
  /** The upstream registry's base URL (config.upstreamUrl): the key of everything cached from it. */
  readonly upstreamUrl: string;
  readonly client: UpstreamClient;
  /** The upstream's pinned registry keys. */
  readonly keys: UpstreamKeys;
  /** This registry's keys, which countersign what it caches. */
  readonly keyring: RegistryKeyring;
  readonly registryUrl: string;
  readonly blobs: BlobStore;
  readonly logger: Logger;
}
