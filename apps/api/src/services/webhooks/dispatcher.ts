/**
 * Delivers queued webhook deliveries. Every registry process runs one; they share the queue through PostgreSQL:
 * a batch is claimed with `FOR UPDATE SKIP LOCKED` and its next attempt pushed past the attempt's deadline (a
 * lease), so two processes never send the same attempt, and a process that dies mid-attempt leaves the delivery
 * to be retried when the lease ends. Failed attempts are retried with doubling delays up to `maxAttempts`.
 */
import type { Database, Prisma } from "@rye/db";
import type { SecretBox } from "../../keys/secret-box.ts";
import type { Logger } from "../../logger.ts";
import { PollingLoop } from "../polling-loop.ts";
import { postWebhook } from "./deliver.ts";
import { signWebhookBody } from "./signature.ts";

export interface DispatcherOptions {
  db: Database;
  logger: Logger;
  registryUrl: string;
  userAgent: string;
  /** Unseals each webhook's stored signing secret. */
  secrets: SecretBox;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  pollMs: number;
  /** Deliveries sent at once by one process. */
  batchSize?: number;
}

const MAX_RETRY_DELAY_MS = 3600_000;

interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event: string;
  payload: Prisma.JsonValue;
  attempts: number;
  created_at: Date;
}

export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_RETRY_DELAY_MS);
}

export class WebhookDispatcher {
  private readonly loop: PollingLoop;

  constructor(private readonly options: DispatcherOptions) {
    this.loop = new PollingLoop({
      round: async () => (await this.runOnce()) > 0,
      idleMs: options.pollMs,
      logger: options.logger,
      failureMessage: "webhook dispatch failed; retrying",
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling and waits for the attempts in flight (their outcome is recorded). */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Claims and sends one batch of due deliveries; returns how many it sent. */
  async runOnce(): Promise<number> {
    const { db, timeoutMs } = this.options;
    const leaseMs = timeoutMs + 30_000;
    const claimed = await db.prisma.$queryRaw<ClaimedDelivery[]>`
      UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at LIMIT ${this.options.batchSize ?? 10} FOR UPDATE SKIP LOCKED)
      RETURNING id, webhook_id, event, payload, attempts, created_at`;
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { db, logger } = this.options;
    const hook = await db.prisma.webhook.findUnique({ where: { id: delivery.webhook_id }, select: { url: true, secret: true, active: true } });
    if (!hook?.active) {
      await db.prisma.webhookDelivery.updateMany({ where: { id: delivery.id }, data: { status: "failed", lastError: "the webhook is disabled", nextAttemptAt: null } });
      return;
    }
    const body = JSON.stringify({ id: delivery.id, event: delivery.event, registry: this.options.registryUrl, created_at: delivery.created_at.toISOString(), data: delivery.payload });
    const attempt = await postWebhook(
      hook.url,
      body,
      { "x-rye-event": delivery.event, "x-rye-delivery": delivery.id, "x-rye-signature": signWebhookBody(this.options.secrets.open(hook.secret), body, Math.floor(Date.now() / 1000)) },
      { timeoutMs: this.options.timeoutMs, allowPrivateNetworks: this.options.allowPrivateNetworks, userAgent: this.options.userAgent },
    );
    const last = { lastStatusCode: attempt.statusCode, lastError: attempt.ok ? null : (attempt.error ?? `answered ${attempt.statusCode}${attempt.responseExcerpt ? `: ${attempt.responseExcerpt.slice(0, 200)}` : ""}`), lastDurationMs: attempt.durationMs };
    if (attempt.ok) {
      await db.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { ...last, status: "delivered", deliveredAt: new Date(), nextAttemptAt: null } });
      return;
    }
    const exhausted = delivery.attempts >= this.options.maxAttempts;
    await db.prisma.webhookDelivery.update({
      where: { id: delivery.id },
      data: exhausted ? { ...last, status: "failed", nextAttemptAt: null } : { ...last, nextAttemptAt: new Date(Date.now() + retryDelayMs(delivery.attempts, this.options.retryBaseMs)) },
    });
    logger.log("info", exhausted ? "webhook delivery failed for good" : "webhook delivery failed; will retry", { delivery: delivery.id, attempts: delivery.attempts, error: last.lastError });
  }
}

/** The dispatcher of a registry process, configured from its settings (RYE_WEBHOOK_*). */
export function webhookDispatcherFor(deps: { db: Database; logger: Logger; secrets: SecretBox; config: { publicUrl: string; webhooks: Omit<DispatcherOptions, "db" | "logger" | "registryUrl" | "userAgent" | "secrets"> }; version: string }): WebhookDispatcher {
  return new WebhookDispatcher({ db: deps.db, logger: deps.logger, secrets: deps.secrets, registryUrl: deps.config.publicUrl, userAgent: `rye-registry/${deps.version} (webhooks)`, ...deps.config.webhooks });
}
