/**
 * Periodic re-verification of verified domains: every claim not checked for RYE_VERIFICATION_RECHECK_HOURS is
 * looked up again; a missing or changed record lapses it (the badge goes), a failed look-up leaves it as it is
 * until the next round. Several registry processes may run it at once: each check is idempotent.
 */
import type { Database } from "@rye/db";
import type { Logger } from "../../logger.ts";
import { PollingLoop } from "../polling-loop.ts";
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
  private readonly loop: PollingLoop;

  constructor(private readonly options: RecheckerOptions) {
    this.loop = new PollingLoop({
      round: async () => (await this.runOnce()).checked === RECHECK_BATCH,
      idleMs: POLL_MS,
      logger: options.logger,
      failureMessage: "verification re-check failed; retrying later",
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
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
