/**
 * Readiness (GET /ready): this process should get traffic. It is not while it shuts down (draining), while the
 * database does not answer, or while a migration in prisma/migrations is not applied to it (a newer release's
 * processes wait for the migration Job or the first process to apply it). Once every migration was seen applied
 * the check is not repeated: migrations are never taken back.
 */
import { type Database, unappliedMigrations } from "@rye/db";

export interface Lifecycle {
  /** Set on SIGTERM: /ready answers 503 so the balancer stops sending, while in-flight requests finish. */
  draining: boolean;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

/** The database check's deadline: a probe must answer even when the database hangs. */
export const READY_DB_TIMEOUT_MS = 2_000;

export class ReadinessCheck {
  private migrationsApplied = false;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: Lifecycle,
    private readonly migrationsDir?: string,
  ) {}

  async check(): Promise<Readiness> {
    if (this.lifecycle.draining) return { ready: false, reason: "shutting down" };
    if (!(await databaseAnswers(this.db, READY_DB_TIMEOUT_MS))) return { ready: false, reason: "database unreachable" };
    if (!this.migrationsApplied) {
      const missing = await unappliedMigrations(this.db.raw, this.migrationsDir ? { migrationsDir: this.migrationsDir } : {}).catch(() => null);
      if (missing === null) return { ready: false, reason: "migration history unreadable" };
      if (missing.length > 0) return { ready: false, reason: `migrations not applied: ${missing.join(", ")}` };
      this.migrationsApplied = true;
    }
    return { ready: true };
  }
}

/** Whether the database answers `SELECT 1` within `timeoutMs` (/ready each time; /health through database-probe.ts). */
export function databaseAnswers(db: Pick<Database, "raw">, timeoutMs: number): Promise<boolean> {
  return withTimeout(db.raw.query("SELECT 1"), timeoutMs).then(
    () => true,
    () => false,
  );
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
