// A migrated, empty PGlite data directory to start test databases from: initdb takes 3-5 s, loading
// this tarball ~0.6 s. node --test runs every test file in its own process, so besides the
// per-process promise the tarball is cached in the OS temp dir, keyed by PGlite version + migrations.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { migrate } from "./migrate.ts";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir } from "./paths.ts";
import { createPglite } from "./pglite.ts";
import { pgliteSession } from "./sql-session.ts";

const GZIP = "application/x-gzip";
let template: Promise<Blob> | undefined;

export function migratedPgliteTemplate(): Promise<Blob> {
  template ??= loadOrBuild();
  return template;
}

async function loadOrBuild(): Promise<Blob> {
  const file = join(tmpdir(), `rye-pglite-template-${cacheKey()}.tar.gz`);
  try {
    return new Blob([readFileSync(file)], { type: GZIP });
  } catch {
    // not cached yet
  }
  const db = await createPglite();
  try {
    await migrate(pgliteSession(db));
    const tarball = await db.dumpDataDir("gzip");
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, new Uint8Array(await tarball.arrayBuffer()));
    renameSync(partial, file); // atomic: concurrent processes never read a half-written file
    return new Blob([tarball], { type: GZIP });
  } finally {
    await db.close();
  }
}

function cacheKey(): string {
  const require = createRequire(import.meta.url);
  const pglitePackage = join(dirname(require.resolve("@electric-sql/pglite")), "..", "package.json");
  const hash = createHash("sha256").update(JSON.parse(readFileSync(pglitePackage, "utf8")).version);
  for (const m of readMigrations(migrationsDir)) hash.update(`\n${m.name}:${m.checksum}`);
  return hash.digest("hex").slice(0, 24);
}
