/**
 * Content-addressed blob storage (bundle files): a blob's name is the SHA-256 of its bytes, so `put`
 * is idempotent and `get` can prove that what it returns is what was stored. Two implementations:
 * the `blobs` table (default: nothing else to run) and a directory (`<dir>/<aa>/<sha256>`); an S3-compatible
 * bucket in s3-blob-store.ts. open-blob-store.ts picks one from the configuration.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { RyeError, sha256Hex } from "@rye/core";
import type { Database } from "@rye/db";

export interface BlobStore {
  /** Stores the bytes (a no-op when they are already stored) and returns their SHA-256 (hex). */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes named `sha256`, or null when there are none; a corrupted blob throws. */
  get(sha256: string): Promise<Uint8Array | null>;
  has(sha256: string): Promise<boolean>;
}

const SHA256_RE = /^[0-9a-f]{64}$/;

/** Only well-formed names reach the storage: anything else cannot name a blob (nor a path). */
export function isBlobName(sha256: string): boolean {
  return SHA256_RE.test(sha256);
}

/** `bytes` when they hash to `sha256`; otherwise the one INTERNAL error every store throws for a corrupted blob. */
export function verified(sha256: string, bytes: Uint8Array): Uint8Array {
  if (sha256Hex(bytes) !== sha256) {
    throw new RyeError("INTERNAL", `Stored blob ${sha256} is corrupted: its bytes hash differently`, { details: { sha256 } });
  }
  return bytes;
}

/** Blobs in the `blobs` table (bytea). */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly db: Database) {}

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    // ON CONFLICT DO NOTHING: concurrent puts of the same bytes both succeed.
    await this.db.prisma.blob.createMany({ data: [{ sha256, size: bytes.length, content: new Uint8Array(bytes) }], skipDuplicates: true });
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!isBlobName(sha256)) return null;
    const row = await this.db.prisma.blob.findUnique({ where: { sha256 }, select: { content: true } });
    return row ? verified(sha256, row.content) : null;
  }

  async has(sha256: string): Promise<boolean> {
    if (!isBlobName(sha256)) return false;
    return (await this.db.prisma.blob.count({ where: { sha256 } })) > 0;
  }
}

/** Makes a rename durable (POSIX); platforms that cannot open directories skip it. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r").catch(() => null);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // not supported for directories here
  } finally {
    await handle.close();
  }
}

/** Blobs as files `<dir>/<first two hex>/<sha256>`, written to a temp file, synced, then renamed into place. */
export class FileSystemBlobStore implements BlobStore {
  constructor(private readonly dir: string) {}

  private pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    if (await this.has(sha256)) return sha256;
    const path = this.pathOf(sha256);
    await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true });
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const file = await open(temp, "wx", 0o644);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } catch (err) {
      await file.close();
      await rm(temp, { force: true });
      throw err;
    }
    await file.close();
    // rename is atomic: readers see no file or the whole file; a concurrent writer renames identical bytes.
    await rename(temp, path);
    await syncDirectory(join(this.dir, sha256.slice(0, 2)));
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!isBlobName(sha256)) return null;
    try {
      return verified(sha256, await readFile(this.pathOf(sha256)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    if (!isBlobName(sha256)) return false;
    return stat(this.pathOf(sha256)).then(
      (s) => s.isFile(),
      () => false,
    );
  }
}
