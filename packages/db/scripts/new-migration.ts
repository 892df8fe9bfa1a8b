// npm run db:new -- <name>
// Writes prisma/migrations/<yyyymmddhhmmss>_<name>/migration.sql with the SQL that takes a database
// built from the existing migrations to prisma/schema.prisma (Prisma's Wasm schema engine on an
// in-memory PGlite). Exits 1 without writing anything when the two already agree.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readMigrations } from "../src/migrations-dir.ts";
import { migrationsDir, schemaPath } from "../src/paths.ts";
import { diffMigrationsToSchema, migrationLockToml, pgliteEngineTarget } from "../src/schema-engine.ts";

function migrationName(args: string[]): string {
  const name = args
    .join("_")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!name) {
    console.error("usage: npm run db:new -- <name>   e.g. npm run db:new -- add_item_stars");
    process.exit(64);
  }
  return name;
}

/** UTC `yyyymmddhhmmss` like Prisma, kept strictly after the newest existing migration. */
function nextStamp(): string {
  let stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const newest = readMigrations(migrationsDir).at(-1)?.name.slice(0, 14);
  if (newest && /^\d{14}$/.test(newest) && stamp <= newest) stamp = (BigInt(newest) + 1n).toString();
  return stamp;
}

const name = migrationName(process.argv.slice(2));
const target = await pgliteEngineTarget();
const diff = await diffMigrationsToSchema(target, { schemaPath, migrationsDir }).finally(() => target.close());
if (diff.exitCode === 0) {
  console.error("prisma/schema.prisma matches the migrations: nothing to write.");
  process.exit(1);
}

const folder = join(migrationsDir, `${nextStamp()}_${name}`);
mkdirSync(folder, { recursive: true });
writeFileSync(join(folder, "migration.sql"), diff.stdout ?? "");
const lockfile = join(migrationsDir, "migration_lock.toml");
if (!existsSync(lockfile)) writeFileSync(lockfile, migrationLockToml);
console.log(`wrote ${join(folder, "migration.sql")}`);
console.log("Review it (add what Prisma cannot express, e.g. CHECK constraints), then run the tests.");
