/**
 * Operator commands for a registry: `npm run registry -- <command>`. Same configuration as `npm start`
 * (DATABASE_URL, RYE_DATA_DIR, RYE_REGISTRY_KEY_DIR). While the server runs on the embedded database
 * (single process) the commands go through its loopback admin endpoint; otherwise straight to the database.
 */
import "@rye/core/node";
import { Command, CommanderError, Option } from "commander";
import { type Database, MEMORY } from "@rye/db";
import { isErrorCode, RyeError, toErrorEnvelope } from "@rye/core";
import type { RegistryConfig } from "../config.ts";
import { loadConfig } from "../config.ts";
import { revokeRegistryKey, rotateRegistryKey } from "../keys/keyring.ts";
import { keyDirOf, openRegistryDatabase } from "../registry.ts";
import { adminCreateOrg, adminCreateToken, adminCreateUser, adminRevokeToken } from "../services/admin.ts";
import { readAdminFile } from "../services/admin-endpoint.ts";
import { migrateBlobs } from "../services/blob-migration.ts";
import { S3BlobStore } from "../services/s3-blob-store.ts";
import { refreshStaleSignals } from "../services/quality.ts";
import { systemSafetyRules } from "../services/safety-rules.ts";

type Out = (s: string) => void;

/**
 * The registry's database for a command that works on it directly. An in-memory one (RYE_DATA_DIR=memory://) lives
 * inside the server's process: opening it here would make an empty one, and what the command wrote would be lost.
 */
async function operatorDatabase(config: RegistryConfig, env: NodeJS.ProcessEnv): Promise<Database> {
  if (env.DATABASE_URL) return openRegistryDatabase({ databaseUrl: env.DATABASE_URL });
  if (config.dataDir === MEMORY) {
    throw new RyeError("BAD_REQUEST", "RYE_DATA_DIR=memory:// is a database inside the server's own process: operator commands cannot reach it", {
      hint: "Run the registry on a data folder (RYE_DATA_DIR=<folder>) or PostgreSQL (DATABASE_URL) to manage it with `npm run registry`.",
    });
  }
  return openRegistryDatabase({ dataDir: config.dataDir });
}

/** operatorDatabase, with the embedded one refused while a server holds it. */
async function openOperatorDatabase(config: RegistryConfig, env: NodeJS.ProcessEnv, why: string, hint: string): Promise<Database> {
  try {
    return await operatorDatabase(config, env);
  } catch (err) {
    if (err instanceof RyeError && err.code === "DATA_DIR_IN_USE") throw new RyeError("DATA_DIR_IN_USE", `The embedded database is in use and ${why}`, { hint });
    throw err;
  }
}

/** Runs an operation through the running server's admin endpoint when there is one, else on the database. */
class Transport {
  constructor(
    private readonly config: RegistryConfig,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private async server(): Promise<{ url: string; secret: string } | null> {
    const admin = await readAdminFile(this.config.dataDir);
    if (!admin) return null;
    try {
      const res = await fetch(`${admin.url}/health`, { signal: AbortSignal.timeout(2000) });
      return res.ok ? admin : null;
    } catch {
      return null; // a stale file from a server that is gone
    }
  }

  async run<T>(path: string, body: unknown, direct: (db: Database) => Promise<T>): Promise<T> {
    const server = await this.server();
    if (server) {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-rye-admin-secret": server.secret },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as T & { error?: { code: string; message: string; hint: string; details?: unknown } };
      if (!res.ok && json.error) throw new RyeError(isErrorCode(json.error.code) ? json.error.code : "INTERNAL", json.error.message, { hint: json.error.hint, details: json.error.details });
      return json;
    }
    const db = await openOperatorDatabase(this.config, this.env, "the running server's admin endpoint did not answer", `Check that the registry started by npm start is healthy (its ${this.config.dataDir}/admin.json), or stop it.`);
    try {
      return await direct(db);
    } finally {
      await db.close();
    }
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

function positiveInt(value: string, option: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new RyeError("BAD_REQUEST", `${option} takes a whole number from 1 to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

function parseDays(value: string): number {
  const m = /^(\d+)d?$/.exec(value);
  if (!m) throw new RyeError("BAD_REQUEST", `--expires takes a number of days such as 30d, not ${JSON.stringify(value)}`);
  return Number(m[1]);
}

export async function runRegistryCli(argv: string[], env: NodeJS.ProcessEnv = process.env, out: Out = (s) => process.stdout.write(`${s}\n`), stdin: () => Promise<string> = readStdin): Promise<number> {
  const config = loadConfig(env);
  const transport = new Transport(config, env);
  const print = (value: unknown) => out(JSON.stringify(value, null, 2));
  const program = new Command("registry").exitOverride().configureOutput({ writeOut: out, writeErr: out });

  const users = program.command("users").description("accounts");
  users
    .command("create <username>")
    .requiredOption("--email <email>", "the account's email (treated as verified)")
    .option("--password-stdin", "read a password from standard input (otherwise the account signs in through an identity provider or tokens)")
    .option("--admin", "make the account a registry administrator")
    .action(async (username: string, opts: { email: string; passwordStdin?: boolean; admin?: boolean }) => {
      const input = { username, email: opts.email, ...(opts.passwordStdin ? { password: await stdin() } : {}), admin: Boolean(opts.admin) };
      print(await transport.run("/v1/admin/users", input, (db) => adminCreateUser(db, input)));
    });

  const tokens = program.command("tokens").description("personal and CI tokens");
  tokens
    .command("create <username>")
    .option("--scope <scope...>", "scopes (default items:read items:write)")
    .option("--expires <days>", "lifetime such as 30d (default 90d, at most 365d)")
    .option("--name <name>", "a label for the token", "operator token")
    .option("--namespace <namespace>", "restrict publishing to one namespace")
    .action(async (username: string, opts: { scope?: string[]; expires?: string; name: string; namespace?: string }) => {
      const input = { username, name: opts.name, scopes: opts.scope, expiresInDays: opts.expires ? parseDays(opts.expires) : undefined, namespace: opts.namespace };
      const result = await transport.run("/v1/admin/tokens", { username, name: opts.name, scopes: opts.scope, expires_in_days: input.expiresInDays, namespace: opts.namespace }, (db) => adminCreateToken(db, input));
      print(result);
      out("The token is shown only once: store it now.");
    });
  tokens
    .command("revoke <id_or_prefix>")
    .action(async (id: string) => print(await transport.run("/v1/admin/tokens/revoke", { id }, (db) => adminRevokeToken(db, id))));

  const orgs = program.command("orgs").description("organizations");
  orgs
    .command("create <name>")
    .requiredOption("--owner <username>", "the first owner")
    .option("--display-name <name>", "a display name")
    .action(async (name: string, opts: { owner: string; displayName?: string }) => {
      const input = { name, owner: opts.owner, displayName: opts.displayName };
      print(await transport.run("/v1/admin/orgs", { name, owner: opts.owner, display_name: opts.displayName }, (db) => adminCreateOrg(db, input)));
    });

  const keys = program.command("keys").description("the registry's signing keys");
  keys
    .command("rotate")
    .description("create a new signing key; the current key signs the rotation statement clients follow")
    .action(async () => {
      const result = await transport.run("/v1/admin/keys/rotate", {}, async (db) => {
        const r = await rotateRegistryKey({ db, keyDir: keyDirOf(config, env), registryUrl: config.publicUrl });
        return { status: "rotated", previous: r.previous, next: r.next, rotation: r.statement };
      });
      print(result);
    });
  keys
    .command("revoke <fingerprint>")
    .description("mark a registry key revoked (clients refuse it from then on)")
    .addOption(new Option("--reason <text>", "why (published in /v1/keys)").makeOptionMandatory())
    .action(async (fingerprint: string, opts: { reason: string }) => {
      const db = await operatorDatabase(config, env);
      try {
        await revokeRegistryKey(db, fingerprint, opts.reason);
        print({ status: "revoked", fingerprint });
      } finally {
        await db.close();
      }
    });
  keys
    .command("list")
    .description("list registry keys")
    .action(async () => {
      const db = await operatorDatabase(config, env);
      try {
        const rows = await db.prisma.registryKey.findMany({ orderBy: { validFrom: "asc" } });
        for (const k of rows) out(`${k.fingerprint}  from ${k.validFrom.toISOString()}${k.validUntil ? ` until ${k.validUntil.toISOString()}` : " (active)"}${k.revokedAt ? ` REVOKED: ${k.revocationReason}` : ""}`);
      } finally {
        await db.close();
      }
    });

  const blobs = program.command("blobs").description("the blob store (bundle and skill files)");
  blobs
    .command("migrate")
    .description("copy the blobs of the PostgreSQL `blobs` table to the S3 store named by RYE_S3_*, verifying every hash; safe to run again")
    .addOption(new Option("--to <store>", "the target store").choices(["s3"]).makeOptionMandatory())
    .option("--dry-run", "count and check only; write and delete nothing")
    .option("--delete-source", "delete each table row once its copy verified (needs RYE_BLOB_STORE=s3: the registry must already read from S3)")
    .option("--batch-size <n>", "rows per page", "100")
    .option("--concurrency <n>", "blobs copied at once", "4")
    .action(async (opts: { to: "s3"; dryRun?: boolean; deleteSource?: boolean; batchSize: string; concurrency: string }) => {
      const s3 = config.blobs.s3;
      if (!s3) throw new RyeError("BAD_REQUEST", "blobs migrate --to s3 needs the S3 store's settings", { hint: "Set RYE_S3_BUCKET and the other RYE_S3_* variables the registry will use (docs/deployment.md, Blob storage)." });
      if (opts.deleteSource && config.blobs.store !== "s3") {
        throw new RyeError("BAD_REQUEST", "--delete-source would remove blobs the registry still reads from PostgreSQL", {
          hint: "Switch the registry to RYE_BLOB_STORE=s3 first (and run this command with the same setting), then delete the source rows.",
        });
      }
      const batchSize = positiveInt(opts.batchSize, "--batch-size", 10_000);
      const concurrency = positiveInt(opts.concurrency, "--concurrency", 64);
      const db = await openOperatorDatabase(config, env, "this command reads it directly", `Stop the registry started by npm start, or run it on PostgreSQL (DATABASE_URL), then migrate.`);
      const target = new S3BlobStore(s3);
      try {
        const report = await migrateBlobs(db, target, {
          dryRun: Boolean(opts.dryRun),
          deleteSource: Boolean(opts.deleteSource),
          batchSize,
          concurrency,
          onProgress: (r) => out(`… ${r.scanned} blobs (${r.scanned_bytes} bytes) scanned: ${r.copied} ${r.dry_run ? "to copy" : "copied"}, ${r.already_present} present, ${r.verified} verified, ${r.deleted} deleted, ${r.failed.length} failed`),
        });
        print(report);
        if (report.failed.length > 0) throw new RyeError("INTERNAL", `${report.failed.length} blob(s) were not migrated (listed above); their rows are kept`, { hint: "A corrupted source row needs its bundle or skill pushed again; run the command again for the others." });
      } finally {
        target.close();
        await db.close();
      }
    });

  const signals = program.command("signals").description("quality and safety signals of published items (docs/quality.md)");
  signals
    .command("refresh")
    .description("compute missing quality factors and make again every tool safety report made under other rules than the current ones")
    .action(async () => {
      const result = await transport.run("/v1/admin/signals/refresh", {}, async (db) => {
        const rules = await systemSafetyRules();
        return { status: "refreshed", rules_version: rules.version, ...(await refreshStaleSignals(db, rules)) };
      });
      print(result);
    });

  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const { error } = toErrorEnvelope(err);
    out(`error[${error.code}]: ${error.message}\nhint: ${error.hint}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await runRegistryCli(process.argv.slice(2));
}
