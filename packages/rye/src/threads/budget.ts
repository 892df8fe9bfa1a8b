/**
 * The budget ledger of the configured threads back end (backend.ts): the file ledger (ledger.ts) or the SQL one
 * (ledger-sql.ts), behind the same functions, so the runtime, `rye thread` and the orchestrator never care which.
 */
import { threadsBackend } from "./backend.ts";
import type { Ledger, LedgerEntry, LedgerOptions, ReserveRequest } from "./ledger.ts";
import * as fileLedger from "./ledger.ts";
import { SqlLedger } from "./ledger-sql.ts";
import { threadsPool } from "./pg-pool.ts";

const sqlLedgers = new Map<string, SqlLedger>();

function sql(): SqlLedger | undefined {
  const backend = threadsBackend(process.env);
  if (backend.kind === "local") return undefined;
  let ledger = sqlLedgers.get(backend.databaseUrl);
  if (!ledger) {
    ledger = new SqlLedger(threadsPool(backend.databaseUrl));
    sqlLedgers.set(backend.databaseUrl, ledger);
  }
  return ledger;
}

export function reserve(projectPath: string, request: ReserveRequest, options: LedgerOptions = {}): Promise<LedgerEntry> {
  return sql()?.reserve(projectPath, request) ?? fileLedger.reserve(projectPath, request, options);
}
export function report(projectPath: string, threadId: string, deltaSpend: number, options: LedgerOptions = {}): Promise<LedgerEntry> {
  return sql()?.report(projectPath, threadId, deltaSpend) ?? fileLedger.report(projectPath, threadId, deltaSpend, options);
}
export function release(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry> {
  return sql()?.release(projectPath, threadId) ?? fileLedger.release(projectPath, threadId, options);
}
export function remaining(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<number> {
  return sql()?.remaining(projectPath, threadId) ?? fileLedger.remaining(projectPath, threadId, options);
}
export function getEntry(projectPath: string, threadId: string, options: LedgerOptions = {}): Promise<LedgerEntry | undefined> {
  return sql()?.getEntry(projectPath, threadId) ?? fileLedger.getEntry(projectPath, threadId, options);
}
export function readLedger(projectPath: string, options: LedgerOptions = {}): Promise<Ledger> {
  return sql()?.readLedger(projectPath) ?? fileLedger.readLedger(projectPath, options);
}
