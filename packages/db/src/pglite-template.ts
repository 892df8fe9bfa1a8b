// A migrated, empty PGlite data directory to start test databases from: initdb takes 3-5 s, loading
// this tarball ~0.6 s. node --test runs every test file in its own process, so besides the
// per-process promise the tarball is cached in the OS temp dir, keyed by PGlite version + migrations.
// It is kept gzipped there (5 MB, not 42) and handed to PGlite as a plain tar, gunzipped once per process by zlib:
// PGlite would otherwise gunzip it for every database through web streams (~0.3 s of CPU each).
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { migrate } from "./migrate.ts";
import { readMigrations } from "./migrations-dir.ts";
import { migrationsDir } from "./paths.ts";
import { createPglite } from "./pglite.ts";
import { pgliteSession } from "./sql-session.ts";

const TAR = "application/x-tar";
let template: Promise<Blob> | undefined;

/** The migrated data directory as an uncompressed tarball (`loadDataDir`). */
export function migratedPgliteTemplate(): Promise<Blob> {
  template ??= loadOrBuild().then((gzipped) => new Blob([gunzipSync(gzipped)], { type: TAR }));
  return template;
}

async function loadOrBuild(): Promise<Uint8Array> {
  const file = join(tmpdir(), `rye-pglite-template-${cacheKey()}.tar.gz`);
  try {
    return readFileSync(file);
  } catch {
    // not cached yet
  }
  const db = await createPglite();
  try {
    await migrate(pgliteSession(db));
    const tarball = new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer());
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, tarball);
    renameSync(partial, file); // atomic: concurrent processes never read a half-written file
    return tarball;
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
