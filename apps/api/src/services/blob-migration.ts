/**
 * Moves the blobs of the `blobs` table into another store (S3) and proves every copy: the source row must hash to
 * its name, and the copy is read back and hashed before it counts. Idempotent and resumable — a blob whose copy is
 * already there and verifies is not uploaded again, so a run stopped anywhere is finished by running it again.
 * Source rows are deleted only when asked, and only those whose copy verified.
 */
import { RyeError, sha256Hex } from "@rye/core";
import type { Database } from "@rye/db";
import type { BlobStore } from "./blob-store.ts";

/** A store the migration can also repair: `replace` writes even when an object of that name exists. */
export interface MigrationTarget extends BlobStore {
  replace(bytes: Uint8Array): Promise<string>;
}

export interface BlobMigrationOptions {
  /** Count and check only: nothing is written or deleted. */
  dryRun: boolean;
  /** Delete each source row whose copy verified (never in a dry run). */
  deleteSource: boolean;
  /** Rows read per page (ids and sizes; contents one by one). */
  batchSize: number;
  /** Blobs copied at once. */
  concurrency: number;
  /** Called after each page with the totals so far. */
  onProgress?: (report: BlobMigrationReport) => void;
}

export interface BlobMigrationReport {
  dry_run: boolean;
  /** Rows read from the table, and their bytes. */
  scanned: number;
  scanned_bytes: number;
  /** Uploaded (in a dry run: would be). */
  copied: number;
  copied_bytes: number;
  /** Already in the target with the right bytes. */
  already_present: number;
  /** In the target with wrong bytes, and rewritten from the source (in a dry run: would be). */
  repaired: number;
  /** Copies read back from the target whose bytes hash to their name (every copied, present and repaired blob). */
  verified: number;
  /** Source rows deleted after their copy verified. */
  deleted: number;
  deleted_bytes: number;
  /** Blobs left where they are, with why (a source row that does not hash to its name is never copied). */
  failed: { sha256: string; reason: string }[];
}

type Outcome = { kind: "copied" | "already_present" | "repaired"; verified: boolean } | { kind: "failed"; reason: string };

function isCorruption(err: unknown): boolean {
  return err instanceof RyeError && err.code === "INTERNAL" && /corrupted/.test(err.message);
}

async function migrateOne(db: Database, target: MigrationTarget, sha256: string, dryRun: boolean): Promise<Outcome> {
  const row = await db.prisma.blob.findUnique({ where: { sha256 }, select: { content: true } });
  if (!row) return { kind: "failed", reason: "the row disappeared during the run" };
  const bytes = new Uint8Array(row.content);
  if (sha256Hex(bytes) !== sha256) return { kind: "failed", reason: "the source row is corrupted: its bytes hash differently; left in place" };

  let kind: "copied" | "already_present" | "repaired";
  if (!(await target.has(sha256))) kind = "copied";
  else {
    try {
      kind = (await target.get(sha256)) ? "already_present" : "copied";
    } catch (err) {
      if (!isCorruption(err)) throw err;
      kind = "repaired";
    }
  }
  if (dryRun) return { kind, verified: kind === "already_present" };
  if (kind !== "already_present") await target.replace(bytes);
  // Read back: the store's get hashes what it returns; an equal length guards against a short read too.
  const copy = await target.get(sha256).catch((err: unknown) => {
    if (isCorruption(err)) return null;
    throw err;
  });
  if (!copy || copy.length !== bytes.length) return { kind: "failed", reason: "the copy does not read back with the same bytes; the source row is kept" };
  return { kind, verified: true };
}

export async function migrateBlobs(db: Database, target: MigrationTarget, options: BlobMigrationOptions): Promise<BlobMigrationReport> {
  const report: BlobMigrationReport = {
    dry_run: options.dryRun,
    scanned: 0,
    scanned_bytes: 0,
    copied: 0,
    copied_bytes: 0,
    already_present: 0,
    repaired: 0,
    verified: 0,
    deleted: 0,
    deleted_bytes: 0,
    failed: [],
  };
  let after = "";
  for (;;) {
    const page = await db.prisma.blob.findMany({ where: { sha256: { gt: after } }, orderBy: { sha256: "asc" }, take: options.batchSize, select: { sha256: true, size: true } });
    if (page.length === 0) break;
    after = page[page.length - 1]!.sha256;
    const verified: { sha256: string; size: number }[] = [];
    for (let i = 0; i < page.length; i += options.concurrency) {
      const slice = page.slice(i, i + options.concurrency);
      const outcomes = await Promise.all(slice.map((blob) => migrateOne(db, target, blob.sha256, options.dryRun)));
      slice.forEach((blob, j) => {
        const outcome = outcomes[j]!;
        report.scanned += 1;
        report.scanned_bytes += blob.size;
        if (outcome.kind === "failed") {
          report.failed.push({ sha256: blob.sha256, reason: outcome.reason });
          return;
        }
        report[outcome.kind] += 1;
        if (outcome.kind === "copied") report.copied_bytes += blob.size;
        if (outcome.verified) {
          report.verified += 1;
          verified.push(blob);
        }
      });
    }
    if (options.deleteSource && !options.dryRun && verified.length > 0) {
      const { count } = await db.prisma.blob.deleteMany({ where: { sha256: { in: verified.map((b) => b.sha256) } } });
      report.deleted += count;
      report.deleted_bytes += verified.reduce((sum, b) => sum + b.size, 0);
    }
    options.onProgress?.(report);
  }
  return report;
}
