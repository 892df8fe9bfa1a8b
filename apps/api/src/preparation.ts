/**
 * The one-time work a registry does before it serves a database: apply the migrations (openDatabase does that),
 * seed the system bundle, compute quality and safety signals that are missing or were made under older rules,
 * build the log's Merkle tree over entries logged before it existed (services/log-tree.ts).
 * Done again on a prepared database, every step finds nothing to do.
 */
import { type Database, unappliedMigrations } from "@rye/db";
import { seedSystemBundle, systemBundleSeeded } from "./seed.ts";
import type { AppDeps } from "./services/deps.ts";
import { catchUpTree, treeBehind } from "./services/log-tree.ts";
import { LOG_LOCK_ID } from "./services/publish-log.ts";
import { hasStaleSignals, refreshStaleSignals } from "./services/quality.ts";
import type { SafetyRules } from "./services/safety-rules.ts";

/** Seeds the system bundle and refreshes stale signals on an open, migrated registry. */
export async function prepareData(deps: AppDeps, rules: SafetyRules): Promise<void> {
  const leaves = await catchUpTree(deps.db, LOG_LOCK_ID);
  if (leaves > 0) deps.logger.log("info", "built the log's Merkle tree over existing entries", { leaves });
  const seeded = await seedSystemBundle(deps);
  if (seeded > 0) deps.logger.log("info", "seeded the rye namespace with the system bundle", { items: seeded });
  const refreshed = await refreshStaleSignals(deps.db, rules);
  if (refreshed.versions > 0) deps.logger.log("info", "refreshed quality and safety signals", { ...refreshed, rules_version: rules.version });
}

/**
 * What the preparation still has to do on `db` (opened without migrating), as a reason for the log; undefined
 * when nothing. Cheap: a few queries, each stopping at its first finding.
 */
export async function pendingPreparation(db: Database, rules: SafetyRules): Promise<string | undefined> {
  const missing = await unappliedMigrations(db.raw);
  if (missing.length > 0) return `${missing.length} migration(s) not applied`;
  if (await treeBehind(db)) return "the log's Merkle tree lacks entries";
  if (!(await systemBundleSeeded(db))) return "the system bundle is not seeded";
  if (await hasStaleSignals(db, rules)) return "quality or safety signals are missing or out of date";
  return undefined;
}
