import type { Database } from "@rye/db";
import type { AccessTokens } from "../auth/jwt.ts";
import type { Authenticator } from "../auth/principal.ts";
import type { RegistryConfig } from "../config.ts";
import type { RegistryKeyring } from "../keys/keyring.ts";
import type { Logger } from "../logger.ts";
import type { BlobStore } from "./blob-store.ts";
import type { ReadPath } from "./pull.ts";
import type { Mirror } from "./upstream/mirror.ts";
import type { Lifecycle } from "./readiness.ts";
import type { SecretBox } from "../keys/secret-box.ts";
import type { WindowCounters } from "./window-counters.ts";

/** Everything the routes need; `createApp(deps)` wires them. */
export interface AppDeps {
  db: Database;
  config: RegistryConfig;
  keyring: RegistryKeyring;
  authenticator: Authenticator;
  accessTokens: AccessTokens;
  logger: Logger;
  version: string;
  /** The pull read path: answer cache, read generation, download counter (close it before `db`). */
  reads: ReadPath;
  /** Bundle and skill files: the store RYE_BLOB_STORE selects (services/open-blob-store.ts). */
  blobs: BlobStore;
  /** The upstream registry this one mirrors (RYE_UPSTREAM_URL, docs/mirroring.md); unset → no mirroring. */
  mirror?: Mirror;
  /** Fixed-window counters for rate limits and attempt limits: PostgreSQL rows shared by all processes, or memory on PGlite. */
  counters: WindowCounters;
  /** Where request rate limits count: `counters`, batched in this process on PostgreSQL (services/batched-window-counters.ts); close it before `db`. */
  requestCounters: WindowCounters;
  /** Seals the secrets the registry must read back (webhook signing secrets) at rest (keys/secret-box.ts). */
  secrets: SecretBox;
  /** Shutdown state shared by the server (sets `draining` on SIGTERM) and the readiness probe. */
  lifecycle: Lifecycle;
  /** Secret of the loopback admin endpoint for the operator CLI (set by `npm start`); unset → no admin routes. */
  adminSecret?: string;
  /**
   * Shared with the website's server in the same process (`npm start`): its server-side requests carry
   * it in `X-Rye-Internal` so the API takes the visitor's address from `X-Forwarded-For` (rate limits,
   * audit) instead of 127.0.0.1. Unset → the header means nothing.
   */
  internalSecret?: string;
}
