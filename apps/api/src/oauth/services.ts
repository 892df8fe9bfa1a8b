/** The OAuth server's parts, built once per app from the registry's dependencies. */
import type { Database } from "@rye/db";
import { AccessTokenRevocations } from "../auth/access-token-revocations.ts";
import type { AccessTokens } from "../auth/jwt.ts";
import type { Logger } from "../logger.ts";
import type { WindowCounters } from "../services/window-counters.ts";
import { AttemptLimiter } from "./attempt-limiter.ts";
import type { OAuthConfig } from "../config.ts";
import { AuthorizationCodes } from "./authorization-codes.ts";
import { ClientDirectory } from "./client-directory.ts";
import { ClientMetadataDocuments, type CimdOptions } from "./client-metadata-documents.ts";
import { DynamicClients } from "./dynamic-clients.ts";
import { DEFAULT_POLL_INTERVAL_SECONDS, DeviceAuthorizations } from "./device-authorizations.ts";
import { RefreshTokens, type ReuseReporter } from "./refresh-tokens.ts";
import { TokenIssuer } from "./token-issuer.ts";

/** Wrong user codes tolerated per signed-in session and per client IP within the window, then 429. */
export const USER_CODE_FAILURES_PER_SESSION = 10;
export const USER_CODE_FAILURES_PER_IP = 30;
export const USER_CODE_FAILURE_WINDOW_MS = 10 * 60 * 1000;

export interface OAuthDeps {
  db: Database;
  /** `publicUrl` is the issuer, the token audience and the base of every endpoint URL. */
  config: { publicUrl: string; oauth?: OAuthConfig };
  logger: Logger;
  accessTokens: AccessTokens;
  /** Where wrong user codes are counted (shared by the processes on PostgreSQL); default: memory. */
  counters?: WindowCounters;
}

export interface OAuthOptions {
  /** Device flow polling interval (default 5 s; tests use less). */
  pollIntervalSeconds?: number;
  /** Overrides of the metadata document fetch limits (tests). */
  cimdLimits?: CimdOptions["limits"];
}

/** Without configuration: public https metadata documents only, dynamic registration on, audiences kept apart, /mcp open to anonymous callers. */
export const DEFAULT_OAUTH_CONFIG: OAuthConfig = { acceptAnyAudience: false, mcpAnonymous: true, cimd: { allowPrivateAddresses: false, allowHttp: false }, dcr: true, dcrPerIpPerHour: 10, dcrMaxClients: 10_000 };

export interface OAuthServices {
  issuer: string;
  devices: DeviceAuthorizations;
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  tokens: TokenIssuer;
  /** The revocation list of access tokens (RFC 7009 revocation of a JWT before it expires). */
  revocations: AccessTokenRevocations;
  userCodeFailures: { perSession: AttemptLimiter; perIp: AttemptLimiter };
  clients: ClientDirectory;
  /** Null when dynamic registration is off (RYE_OAUTH_DCR=false). */
  dynamicClients: DynamicClients | null;
  config: OAuthConfig;
}

export function createOAuthServices(deps: OAuthDeps, options: OAuthOptions = {}): OAuthServices {
  const reportReuse: ReuseReporter = (what, familyId, userId) =>
    deps.logger.log("warn", "oauth: a used credential was presented again; its tokens are revoked", { credential: what, family_id: familyId, user_id: userId });
  const refreshTokens = new RefreshTokens(deps.db, deps.config.publicUrl, reportReuse);
  const config = deps.config.oauth ?? DEFAULT_OAUTH_CONFIG;
  const documents = new ClientMetadataDocuments({ ...config.cimd, ...(options.cimdLimits ? { limits: options.cimdLimits } : {}) });
  const dynamicClients = config.dcr ? new DynamicClients(deps.db, { perIpPerHour: config.dcrPerIpPerHour, maxClients: config.dcrMaxClients }, deps.counters) : null;
  return {
    config,
    clients: new ClientDirectory(documents, dynamicClients, config.cimd.allowHttp && config.cimd.allowPrivateAddresses),
    dynamicClients,
    issuer: deps.config.publicUrl,
    devices: new DeviceAuthorizations(deps.db, options.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS),
    codes: new AuthorizationCodes(deps.db, deps.config.publicUrl, (familyId) => refreshTokens.revokeFamily(familyId), reportReuse),
    refreshTokens,
    tokens: new TokenIssuer(deps.db, deps.accessTokens, refreshTokens),
    revocations: new AccessTokenRevocations(deps.db),
    userCodeFailures: {
      perSession: new AttemptLimiter(USER_CODE_FAILURES_PER_SESSION, USER_CODE_FAILURE_WINDOW_MS, deps.counters, "user-code:session:"),
      perIp: new AttemptLimiter(USER_CODE_FAILURES_PER_IP, USER_CODE_FAILURE_WINDOW_MS, deps.counters, "user-code:ip:"),
    },
  };
}
