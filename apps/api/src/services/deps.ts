import type { Database } from "@rye/db";
import type { AccessTokens } from "../auth/jwt.ts";
import type { Authenticator } from "../auth/principal.ts";
import type { RegistryConfig } from "../config.ts";
import type { RegistryKeyring } from "../keys/keyring.ts";
import type { Logger } from "../logger.ts";

/** Everything the routes need; `createApp(deps)` wires them. */
export interface AppDeps {
  db: Database;
  config: RegistryConfig;
  keyring: RegistryKeyring;
  authenticator: Authenticator;
  accessTokens: AccessTokens;
  logger: Logger;
  version: string;
  /** Secret of the loopback admin endpoint for the operator CLI (set by `npm start`); unset → no admin routes. */
  adminSecret?: string;
}
