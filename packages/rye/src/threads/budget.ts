/**
 * The budget ledger of the configured threads back end (backend.ts): the file ledger (ledger.ts) or the SQL one
 * (ledger-sql.ts), behind the same functions, so the runtime, `rye thread` and the orchestrator never care which.
 */
import { threadsBackend } from "./backend.ts";
import type { Ledger, LedgerEntry, LedgerOptions, ReserveRequest } from "./ledger.ts";
import * as fileLedger from "./ledger.ts";
import type { SqlLedger } from "./ledger-sql.ts";

const sqlLedgers = new Map<string, Promise<SqlLedger>>();

/** The SQL ledger of the configured database; the PostgreSQL driver is loaded only when the back end is postgres. */
function sql(): Promise<SqlLedger> | undefined {
  const backend = threadsBackend(process.env);
  if (backend.kind === "local") return undefined;
  let ledger = sqlLedgers.get(backend.databaseUrl);
  if (!ledger) {
    ledger = Promise.all([import("./ledger-sql.ts"), import("./pg-pool.ts")]).then(([{ SqlLedger }, { threadsPool }]) => new SqlLedger(threadsPool(backend.databaseUrl)));
    sqlLedgers.set(backend.databaseUrl, ledger);
  }
  return ledger;
}

export async function reserve(projectPath: string, request: ReserveRequest, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const ledger = sql();
  return ledger ? (await ledger).reserve(projectPath, request) : fileLedger.reserve(projectPath, request, options);
}
export async function report(projectPath: string, threadId: string, deltaSpend: number, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const ledger = sql();
  return ledger ? (await ledger).report(projectPath, threadId, deltaSpend) : fileLedger.report(projectPath, threadId, deltaSpend, options);
}
export async function release(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry> {
  const ledger = sql();
  return ledger ? (await ledger).release(projectPath, threadId) : fileLedger.release(projectPath, threadId, options);
}
export async function remaining(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<number> {
  const ledger = sql();
  return ledger ? (await ledger).remaining(projectPath, threadId) : fileLedger.remaining(projectPath, threadId, options);
}
export async function getEntry(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry | undefined> {
  const ledger = sql();
  return ledger ? (await ledger).getEntry(projectPath, threadId) : fileLedger.getEntry(projectPath, threadId, options);
}
export async function readLedger(projectPath: string, options: LedgerOptions = {}): Promise<Ledger> {
  const ledger = sql();
  return ledger ? (await ledger).readLedger(projectPath) : fileLedger.readLedger(projectPath, options);
}
