export { type Database, type DatabaseKind, embeddedDatabaseExists, isBusy, isUniqueViolation, TRANSACTION_LIMITS, MEMORY, type OpenDatabaseOptions, openDatabase, type RawSql } from "./client.ts";
export { DATA_DIR_LOCK_WAIT_MS, DataDirInUseError } from "./data-dir-lock.ts";
export { endPool } from "./end-pool.ts";
export { DEFAULT_PGLITE_SHARED_BUFFERS_MB, MAX_PGLITE_SHARED_BUFFERS_MB } from "./pglite.ts";
export { migrate, type MigrateOptions, type MigrateResult, MigrationError, type SqlSession, unappliedMigrations } from "./migrate.ts";
export { migrationsDir, schemaPath } from "./paths.ts";
export { pgliteSession, pgSession, withPgSession } from "./sql-session.ts";
export * from "./generated/prisma/client.ts";
