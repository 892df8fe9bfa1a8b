import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/**
 * PostgreSQL's page cache inside PGlite, in MB. initdb writes 128MB into postgresql.conf; inside the WebAssembly
 * memory that is ~60 MB more resident memory than 32MB, and pages PGlite does not cache are read from its data
 * files through the operating system's cache (docs/deployment.md, "Memory").
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 32;
/** PGlite's WebAssembly memory is at most 2 GB (32 768 pages of 64 KB); the page cache must leave room for the rest. */
export const MAX_PGLITE_SHARED_BUFFERS_MB = 1024;

export interface PgliteOptions {
  /** Directory for a file-backed database; omit for an in-memory one. */
  dataDir?: string;
  /** A `dumpDataDir()` tarball to start from (much faster than initdb). */
  loadDataDir?: Blob | File;
  /** shared_buffers in MB (1 to MAX_PGLITE_SHARED_BUFFERS_MB); default DEFAULT_PGLITE_SHARED_BUFFERS_MB. */
  sharedBuffersMb?: number;
}

/** Every PGlite the registry uses: the pg_trgm extension must be loaded before migrations can create it. */
export function createPglite(options: PgliteOptions = {}): Promise<PGlite> {
  const { sharedBuffersMb = DEFAULT_PGLITE_SHARED_BUFFERS_MB, ...pgliteOptions } = options;
  if (!Number.isInteger(sharedBuffersMb) || sharedBuffersMb < 1 || sharedBuffersMb > MAX_PGLITE_SHARED_BUFFERS_MB) {
    throw new RangeError(`PGlite shared_buffers must be a whole number of MB from 1 to ${MAX_PGLITE_SHARED_BUFFERS_MB}, got ${sharedBuffersMb}`);
  }
  return PGlite.create({
    ...pgliteOptions,
    // A server start parameter overrides postgresql.conf, so existing data directories get it too.
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffersMb}MB`],
    extensions: { pg_trgm },
  });
}
