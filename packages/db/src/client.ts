import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { lockDataDir } from "./data-dir-lock.ts";
import { endPool } from "./end-pool.ts";
import { PrismaClient } from "./generated/prisma/client.ts";
import { migrate } from "./migrate.ts";
import { createPglite } from "./pglite.ts";
import { pgliteSession, withPgSession } from "./sql-session.ts";

export type DatabaseKind = "postgres" | "pglite";

/** Parameterized SQL beside Prisma (full-text and trigram search), on the same pool or PGlite. */
export interface RawSql {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface Database {
  prisma: PrismaClient;
  kind: DatabaseKind;
  raw: RawSql;
  /**
   * PGlite only (the database lives in this process): LISTEN on `channel`. PGlite hands a notification to
   * `handler` while it reads the answer to the statement that committed it, so the handler has run before that
   * statement's promise resolves. Returns the UNLISTEN function.
   */
  listen?(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string. Default: `$DATABASE_URL`, unless `dataDir` is given. */
  databaseUrl?: string;
  /**
   * Embedded PGlite: the rye data directory (the database lives in its `pglite/` subfolder), or
   * `"memory://"` for an in-memory database. Default: `$RYE_DATA_DIR`, else `./.rye-data`.
   */
  dataDir?: string;
  /** Embedded PGlite only: PostgreSQL's shared_buffers in MB (default DEFAULT_PGLITE_SHARED_BUFFERS_MB). */
  pgliteSharedBuffersMb?: number;
  /** Embedded PGlite only: how long to wait for another process holding the data directory to exit (default DATA_DIR_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Apply pending migrations before returning. Default true. */
  migrate?: boolean;
  log?: (message: string) => void;
}

export const MEMORY = "memory://";

/**
 * Opens the registry database: PostgreSQL when a URL is given or `$DATABASE_URL` is set (and no
 * `dataDir` was passed), otherwise the embedded PGlite. Callers see the same `prisma` and `raw`.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl && options.dataDir) throw new Error("openDatabase: pass databaseUrl or dataDir, not both");
  const databaseUrl = options.dataDir ? undefined : options.databaseUrl || process.env.DATABASE_URL || undefined;
  const migrateOnOpen = options.migrate ?? true;
  if (databaseUrl) return openPostgres(databaseUrl, migrateOnOpen, options.log);
  const dataDir = options.dataDir || process.env.RYE_DATA_DIR || ".rye-data";
  return openPglite(dataDir === MEMORY ? undefined : pgliteDirOf(dataDir), migrateOnOpen, options.log, options.pgliteSharedBuffersMb, options.lockWaitMs);
}

/** Where the embedded database of a rye data directory lives. */
function pgliteDirOf(dataDir: string): string {
  return resolve(dataDir, "pglite");
}

/** True once the embedded database of `dataDir` was created (initdb wrote PostgreSQL's PG_VERSION file). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return dataDir !== MEMORY && existsSync(resolve(pgliteDirOf(dataDir), "PG_VERSION"));
}

async function openPostgres(databaseUrl: string, migrateOnOpen: boolean, log?: (m: string) => void): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  // An idle connection that breaks (server restart) is dropped by the pool; without a listener the
  // 'error' event would crash the process.
  pool.on("error", (error) => (log ?? console.error)(`database connection lost: ${error.message}`));
  try {
    if (migrateOnOpen) await withPgSession(pool, (session) => migrate(session, { log }));
  } catch (error) {
    await endPool(pool);
    throw error;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: TRANSACTION_LIMITS });
  return {
    prisma,
    kind: "postgres",
    raw: {
      query: async <Row>(sql: string, params?: unknown[]) => {
        const result = await pool.query({ text: sql, values: params, types: pgRawTypes });
        return { rows: result.rows as Row[] };
      },
    },
    close: async () => {
      await prisma.$disconnect();
      await endPool(pool);
    },
  };
}

/** Opens (or creates) PGlite in `dir`; `undefined` means in memory. */
async function openPglite(dir: string | undefined, migrateOnOpen: boolean, log?: (m: string) => void, sharedBuffersMb?: number, lockWaitMs?: number) {
  const settings = sharedBuffersMb === undefined ? {} : { sharedBuffersMb };
  if (!dir) return wrapPglite(await createPglite(settings), migrateOnOpen, log);
  mkdirSync(dir, { recursive: true });
  const unlock = await lockDataDir(`${dir}.lock`, dir, lockWaitMs === undefined ? {} : { waitMs: lockWaitMs });
  try {
    return await wrapPglite(await createPglite({ dataDir: dir, ...settings }), migrateOnOpen, log, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

/** Turns an open PGlite (e.g. one loaded from a template) into a Database that owns it. */
export async function wrapPglite(
  db: PGlite,
  migrateOnOpen: boolean,
  log?: (m: string) => void,
  onClose: () => void = () => {},
): Promise<Database> {
  try {
    if (migrateOnOpen) await migrate(pgliteSession(db), { log });
  } catch (error) {
    await db.close();
    throw error;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db), transactionOptions: TRANSACTION_LIMITS });
  return {
    prisma,
    kind: "pglite",
    raw: {
      query: async <Row>(sql: string, params?: unknown[]) => ({
        rows: (await db.query<Row>(sql, params, { parsers: pgliteRawParsers })).rows,
      }),
    },
    listen: (channel, handler) => db.listen(channel, handler),
    close: async () => {
      try {
        await prisma.$disconnect();
        await db.close();
      } finally {
        onClose();
      }
    },
  };
}

// int8 comes back as a string from pg and as a (possibly rounded) number from PGlite; raw returns a
// bigint on both, like Prisma's $queryRaw.
const INT8_OID = 20;
const pgliteRawParsers = { [INT8_OID]: (value: string) => BigInt(value) };
const pgRawTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format),
} as pg.CustomTypesConfig;

/** Prisma's unique-constraint violation (P2002): a duplicate the caller should report as a conflict. */
/**
 * How long a transaction may wait for a connection (maxWait) and run (timeout). Prisma's defaults (2 s, 5 s) turned a
 * burst of pushes on a loaded machine into 500s: every publish serializes on the log lock, so the tenth waiter of a
 * pool of ten waits for nine appends. A write now waits up to 10 s to start; past that it is `isBusy` (503, retry).
 */
export const TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 30_000 } as const;

/** A transaction that could not start or finish within TRANSACTION_LIMITS (Prisma's P2028). */
export function isBusy(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2028";
}

export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}
