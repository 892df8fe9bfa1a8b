/**
 * What GET /health reports about the database. Liveness is polled by balancers and orchestrators, sometimes many
 * times a second per process: one `SELECT 1` answers every probe that arrives within HEALTH_DB_PROBE_TTL_MS of it,
 * and probes arriving while it runs share it, so /health costs what a static answer costs. The figure is at most
 * that old; /ready (readiness.ts) still asks the database each time.
 */
import type { Database } from "@rye/db";
import { databaseAnswers, READY_DB_TIMEOUT_MS } from "./readiness.ts";

export const HEALTH_DB_PROBE_TTL_MS = 1_000;

export type DatabaseState = "connected" | "error";

export class DatabaseProbe {
  private last: { state: DatabaseState; at: number } | null = null;
  private running: Promise<DatabaseState> | null = null;

  constructor(
    private readonly db: Pick<Database, "raw">,
    private readonly options: { ttlMs: number; timeoutMs: number; now: () => number } = { ttlMs: HEALTH_DB_PROBE_TTL_MS, timeoutMs: READY_DB_TIMEOUT_MS, now: Date.now },
  ) {}

  state(): DatabaseState | Promise<DatabaseState> {
    if (this.last && this.options.now() - this.last.at < this.options.ttlMs) return this.last.state;
    this.running ??= databaseAnswers(this.db, this.options.timeoutMs).then((answers) => this.settle(answers ? "connected" : "error"));
    return this.running;
  }

  private settle(state: DatabaseState): DatabaseState {
    this.last = { state, at: this.options.now() };
    this.running = null;
    return state;
  }
}

const PROBES = new WeakMap<object, DatabaseProbe>();

/** The one probe of a database in this process (GET /health and its front path, front/answers.ts, share it). */
export function databaseProbeOf(db: Pick<Database, "raw">): DatabaseProbe {
  let probe = PROBES.get(db);
  if (!probe) PROBES.set(db, (probe = new DatabaseProbe(db)));
  return probe;
}
