/**
 * RFC 7591 dynamic client registration, for MCP clients that do not use Client ID Metadata Documents: a public client
 * (no secret) states its name and redirect URIs and gets a client_id. Registering is anonymous, so it is limited per
 * client IP and hour; every registration is audited. Such a client can only ask for what every third-party client
 * can (clients.ts THIRD_PARTY_SCOPES, the /mcp resource).
 *
 * The registrations kept are capped (RYE_OAUTH_DCR_MAX_CLIENTS). At the cap, unused registrations are purged first: a
 * client registered over a day ago that holds no live refresh token (it never finished a sign-in, or every sign-in has
 * expired or been revoked). Only when none can go is the registration refused (503 temporarily_unavailable).
 */
import { randomBytes } from "node:crypto";
import type { Database, Prisma } from "@rye/db";
import { recordAudit, recordAudits } from "../services/audit.ts";
import type { WindowCounters } from "../services/window-counters.ts";
import { AttemptLimiter } from "./attempt-limiter.ts";
import { checkClientMetadata, ClientMetadataError } from "./client-metadata.ts";
import { type OAuthClient, THIRD_PARTY_GRANTS, THIRD_PARTY_SCOPES, thirdPartyClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

export const DYNAMIC_CLIENT_PREFIX = "rye-dcr-";
export const DCR_WINDOW_MS = 3600_000;
/** A registration this young is never purged: its sign-in may still be under way. */
export const UNUSED_REGISTRATION_GRACE_MS = 24 * 3600_000;
/** Lock id serializing the cap's count with the insert across processes (any constant unused elsewhere). */
const REGISTRATION_LOCK_ID = 7_591_001;

export interface RegistrationLimits {
  perIpPerHour: number;
  maxClients: number;
}
const CLIENT_ID = /^rye-dcr-[0-9a-f]{32}$/;

export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ["code"];
  token_endpoint_auth_method: "none";
  scope: string;
}

export class DynamicClients {
  private readonly perIp: AttemptLimiter;

  constructor(
    private readonly db: Database,
    readonly limits: RegistrationLimits,
    counters?: WindowCounters,
  ) {
    this.perIp = new AttemptLimiter(limits.perIpPerHour, DCR_WINDOW_MS, counters, "dcr:ip:");
  }

  async register(metadata: unknown, context: { ip: string; requestId: string | null }): Promise<RegistrationResponse> {
    const retryAfter = await this.perIp.retryAfter(context.ip);
    if (retryAfter > 0) {
      throw new OAuthError("temporarily_unavailable", `At most ${this.limits.perIpPerHour} client registrations per hour from one address: try again in ${retryAfter} s`, 429, {}, { "Retry-After": String(retryAfter) });
    }
    let declared;
    try {
      declared = checkClientMetadata(metadata);
    } catch (err) {
      if (err instanceof ClientMetadataError) throw new OAuthError(err.message.startsWith("redirect") ? "invalid_redirect_uri" : "invalid_client_metadata", err.message);
      throw err;
    }
    await this.perIp.fail(context.ip);
    const clientId = `${DYNAMIC_CLIENT_PREFIX}${randomBytes(16).toString("hex")}`;
    const row = await this.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${REGISTRATION_LOCK_ID})`);
      await this.makeRoom(tx, context);
      const created = await tx.oAuthClientRegistration.create({ data: { clientId, clientName: declared.name, redirectUris: declared.redirectUris, createdIp: context.ip } });
      await recordAudit(tx, {
        actorId: null,
        action: "oauth.client.register",
        targetType: "oauth_client",
        targetId: clientId,
        details: { client_name: declared.name, redirect_uris: declared.redirectUris },
        ip: context.ip,
        requestId: context.requestId,
      });
      return created;
    });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
      client_name: declared.name,
      redirect_uris: declared.redirectUris,
      grant_types: [...THIRD_PARTY_GRANTS],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: THIRD_PARTY_SCOPES.join(" "),
    };
  }

  /** Purges unused registrations when the cap is reached; refuses when none can go. Runs under the registration lock. */
  private async makeRoom(tx: Prisma.TransactionClient, context: { ip: string; requestId: string | null }): Promise<void> {
    if ((await tx.oAuthClientRegistration.count()) < this.limits.maxClients) return;
    const purged = await tx.$queryRaw<{ client_id: string }[]>`
      DELETE FROM oauth_client_registrations c
      WHERE c.created_at < ${new Date(Date.now() - UNUSED_REGISTRATION_GRACE_MS)}
        AND NOT EXISTS (
          SELECT 1 FROM refresh_tokens r
          WHERE r.client_id = c.client_id AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()
        )
      RETURNING c.client_id`;
    // One audit event per purged client, as each registration has one.
    await recordAudits(
      tx,
      purged.map((r) => ({
        actorId: null,
        action: "oauth.client.purge",
        targetType: "oauth_client",
        targetId: r.client_id,
        details: { reason: `unused, at the cap of ${this.limits.maxClients} registered clients` },
        ip: context.ip,
        requestId: context.requestId,
      })),
    );
    if ((await tx.oAuthClientRegistration.count()) >= this.limits.maxClients) {
      throw new OAuthError("temporarily_unavailable", `This registry keeps at most ${this.limits.maxClients} dynamically registered clients and none is unused: try again later`, 503, {}, { "Retry-After": "3600" });
    }
  }

  async find(clientId: string): Promise<OAuthClient | undefined> {
    if (!CLIENT_ID.test(clientId)) return undefined;
    const row = await this.db.prisma.oAuthClientRegistration.findUnique({ where: { clientId } });
    return row ? thirdPartyClient(row.clientId, "dynamic", row.clientName, row.redirectUris) : undefined;
  }
}
