/**
 * RFC 8628 device authorizations: the device code (stored hashed) is polled by the CLI, the user code
 * is approved or denied by a signed-in person. The row's id is the refresh token family of the grant.
 */
import type { Database, DeviceAuthorization } from "@rye/db";
import { OAuthError } from "./errors.ts";
import type { Grant } from "./refresh-tokens.ts";
import { hashSecret, newSecret, plausibleSecret } from "./secrets.ts";
import { generateUserCode } from "./user-code.ts";

export const DEVICE_CODE_TTL_SECONDS = 900;
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: slow_down adds 5 s to the interval for this and all later requests. */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** Timer jitter allowance: a poll this much early still counts as on time. */
const POLL_JITTER_MS = 250;
/** Expired rows are kept this long (so late polls get expired_token), then purged. */
const PURGE_AFTER_MS = 24 * 3600 * 1000;
const MAX_USER_CODE_ATTEMPTS = 5;

export interface NewDeviceAuthorization {
  clientId: string;
  scope: string[];
  requestIp: string | null;
  requestUserAgent: string | null;
}

export interface StartedDeviceAuthorization {
  deviceCode: string;
  /** Normalised (8 letters); see formatUserCode. */
  userCode: string;
  expiresIn: number;
  interval: number;
}

export class DeviceAuthorizations {
  constructor(
    private readonly db: Database,
    private readonly intervalSeconds: number = DEFAULT_POLL_INTERVAL_SECONDS,
  ) {}

  async start(input: NewDeviceAuthorization): Promise<StartedDeviceAuthorization> {
    const prisma = this.db.prisma;
    await prisma.deviceAuthorization.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - PURGE_AFTER_MS) } } });
    const deviceCode = newSecret();
    for (let attempt = 1; ; attempt++) {
      const userCode = generateUserCode();
      try {
        await prisma.deviceAuthorization.create({
          data: {
            deviceCodeHash: hashSecret(deviceCode),
            userCode,
            clientId: input.clientId,
            scope: input.scope.join(" "),
            requestIp: input.requestIp,
            requestUserAgent: input.requestUserAgent,
            interval: this.intervalSeconds,
            expiresAt: new Date(Date.now() + DEVICE_CODE_TTL_SECONDS * 1000),
          },
        });
        return { deviceCode, userCode, expiresIn: DEVICE_CODE_TTL_SECONDS, interval: this.intervalSeconds };
      } catch (err) {
        // A user code still held by a live (or not yet purged) request: draw another one.
        if ((err as { code?: string }).code !== "P2002" || attempt >= MAX_USER_CODE_ATTEMPTS) throw err;
      }
    }
  }

  /** Token endpoint: the grant once approved (consumed here, once); otherwise the RFC 8628 §3.5 error. */
  /** The grant once approved; device sign-ins are for the registry API (the caller adds the resource). */
  async poll(deviceCode: string, clientId: string): Promise<Omit<Grant, "resource">> {
    const prisma = this.db.prisma;
    const row = plausibleSecret(deviceCode) ? await prisma.deviceAuthorization.findUnique({ where: { deviceCodeHash: hashSecret(deviceCode) } }) : null;
    if (!row || row.clientId !== clientId) throw new OAuthError("invalid_grant", "Unknown device code");
    if (row.status === "consumed") throw new OAuthError("invalid_grant", "The device code was already used");
    const now = Date.now();
    if (row.expiresAt.getTime() <= now) throw new OAuthError("expired_token", "The device code expired: start the sign-in again");
    if (row.status === "denied") throw new OAuthError("access_denied", "The sign-in request was denied");
    if (row.status === "approved") {
      const claimed = await prisma.deviceAuthorization.updateMany({ where: { id: row.id, status: "approved" }, data: { status: "consumed", lastPolledAt: new Date(now) } });
      if (claimed.count !== 1 || !row.userId) throw new OAuthError("invalid_grant", "The device code was already used");
      return { userId: row.userId, clientId: row.clientId, scope: row.scope.split(" ").filter(Boolean), familyId: row.id };
    }
    const early = row.lastPolledAt !== null && now - row.lastPolledAt.getTime() < row.interval * 1000 - POLL_JITTER_MS;
    const interval = early ? row.interval + SLOW_DOWN_STEP_SECONDS : row.interval;
    // Conditional on the last poll we saw, so of two concurrent polls only one is on time.
    const recorded = await prisma.deviceAuthorization.updateMany({ where: { id: row.id, lastPolledAt: row.lastPolledAt }, data: { lastPolledAt: new Date(now), interval } });
    if (recorded.count !== 1) {
      const slower = await prisma.deviceAuthorization.update({ where: { id: row.id }, data: { interval: { increment: SLOW_DOWN_STEP_SECONDS } } });
      throw slowDown(slower.interval);
    }
    if (early) throw slowDown(interval);
    throw new OAuthError("authorization_pending", "Waiting for the user to approve the request");
  }

  /** A request a person may still decide on: pending and not expired. */
  async findPending(userCode: string): Promise<DeviceAuthorization | null> {
    const row = await this.db.prisma.deviceAuthorization.findUnique({ where: { userCode } });
    return row && row.status === "pending" && row.expiresAt.getTime() > Date.now() ? row : null;
  }

  /** Approves or denies a pending request (once); null when there is none for `userCode`. */
  async decide(userCode: string, userId: string, decision: "approved" | "denied"): Promise<DeviceAuthorization | null> {
    const row = await this.findPending(userCode);
    if (!row) return null;
    const decided = await this.db.prisma.deviceAuthorization.updateMany({
      where: { id: row.id, status: "pending", expiresAt: { gt: new Date() } },
      data: { status: decision, userId, decidedAt: new Date() },
    });
    return decided.count === 1 ? row : null;
  }
}

function slowDown(interval: number): OAuthError {
  return new OAuthError("slow_down", `Polling too fast: wait ${interval} s between requests`, 400, { interval });
}
