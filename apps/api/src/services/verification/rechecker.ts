/**
 * Periodic re-verification of verified domains: every claim not checked for RYE_VERIFICATION_RECHECK_HOURS is
 * looked up again; a missing or changed record lapses it (the badge goes), a failed look-up leaves it as it is
 * until the next round. Several registry processes may run it at once: each check is idempotent.
 */
import type { Database } from "@rye/db";
import type { Logger } from "../../logger.ts";
import { checkDnsChallenge } from "./dns-check.ts";
import { createTxtResolver, type TxtResolver } from "./dns-resolver.ts";
import { dueForRecheck, recordCheck } from "./service.ts";

/** Claims re-checked per round; the rest wait for the next round (rounds follow each other at once while busy). */
export const RECHECK_BATCH = 50;
/** How often a process looks for due claims. */
const POLL_MS = 10 * 60_000;

export interface RecheckerOptions {
  db: Database;
  resolver: TxtResolver;
  logger: Logger;
  intervalMs: number;
}

export class VerificationRechecker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly options: RecheckerOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then((r) => this.schedule(r.checked === RECHECK_BATCH ? 0 : POLL_MS))
        .catch((err: Error) => {
          this.options.logger.log("warn", "verification re-check failed; retrying later", { error: err.message });
          this.schedule(POLL_MS);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** One round: re-checks due claims; returns how many were checked and how many lapsed. */
  async runOnce(now = new Date()): Promise<{ checked: number; lapsed: number }> {
    const { db, resolver, intervalMs, logger } = this.options;
    const due = await dueForRecheck(db, now, intervalMs, RECHECK_BATCH);
    let lapsed = 0;
    for (const row of due) {
      const outcome = await checkDnsChallenge(resolver, row.subject, row.challenge);
      const after = await recordCheck(db, null, row, outcome, now);
      if (after.status === "lapsed") {
        lapsed++;
        logger.log("info", "verified domain lapsed", { org: row.organization.name, domain: row.subject, reason: outcome.ok ? null : outcome.code });
      }
    }
    return { checked: due.length, lapsed };
  }
}

export function verificationRecheckerFor(deps: { db: Database; logger: Logger; config: { verification: { dnsServers: string[]; dnsTimeoutMs: number; recheckIntervalMs: number } } }): VerificationRechecker {
  const v = deps.config.verification;
  return new VerificationRechecker({ db: deps.db, logger: deps.logger, intervalMs: v.recheckIntervalMs, resolver: createTxtResolver({ servers: v.dnsServers, timeoutMs: v.dnsTimeoutMs }) });
}
