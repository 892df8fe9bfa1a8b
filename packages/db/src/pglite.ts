import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

export interface PgliteOptions {
  /** Directory for a file-backed database; omit for an in-memory one. */
  dataDir?: string;
  /** A `dumpDataDir()` tarball to start from (much faster than initdb). */
  loadDataDir?: Blob | File;
}

/** Every PGlite the registry uses: the pg_trgm extension must be loaded before migrations can create it. */
export function createPglite(options: PgliteOptions = {}): Promise<PGlite> {
  return PGlite.create({ ...options, extensions: { pg_trgm } });
}
