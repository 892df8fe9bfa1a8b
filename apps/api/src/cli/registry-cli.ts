/**
 * Operator commands for a registry: `npm run registry -- keys rotate|revoke|list`.
 * Uses the same configuration as `npm start` (DATABASE_URL, RYE_DATA_DIR, RYE_REGISTRY_KEY_DIR).
 * With the embedded database run it while the server is stopped (PGlite allows one process).
 */
import "@rye/core/node";
import { Command, CommanderError } from "commander";
import { DataDirInUseError, openDatabase } from "@rye/db";
import { RyeError, toErrorEnvelope } from "@rye/core";
import { loadConfig } from "../config.ts";
import { revokeRegistryKey, rotateRegistryKey } from "../keys/keyring.ts";
import { keyDirOf } from "../registry.ts";

export async function runRegistryCli(argv: string[], env: NodeJS.ProcessEnv = process.env, out: (s: string) => void = (s) => process.stdout.write(`${s}\n`)): Promise<number> {
  const config = loadConfig(env);
  const open = async () => {
    try {
      return await openDatabase(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { dataDir: config.dataDir });
    } catch (err) {
      if (err instanceof DataDirInUseError) {
        throw new RyeError("UNAVAILABLE", "The embedded database is in use by a running registry", { hint: "Stop the registry (npm start) first, or run it on PostgreSQL (DATABASE_URL)." });
      }
      throw err;
    }
  };
  const program = new Command("registry").exitOverride().configureOutput({ writeOut: out, writeErr: out });
  const keys = program.command("keys").description("the registry's signing keys");
  keys
    .command("rotate")
    .description("create a new signing key; the current key signs the rotation statement clients follow")
    .action(async () => {
      const db = await open();
      try {
        const result = await rotateRegistryKey({ db, keyDir: keyDirOf(config, env), registryUrl: config.publicUrl });
        out(JSON.stringify({ status: "rotated", previous: result.previous, next: result.next, rotation: result.statement }, null, 2));
      } finally {
        await db.close();
      }
    });
  keys
    .command("revoke <fingerprint>")
    .description("mark a registry key revoked (clients refuse it from then on)")
    .requiredOption("--reason <text>", "why (published in /v1/keys)")
    .action(async (fingerprint: string, opts: { reason: string }) => {
      const db = await open();
      try {
        await revokeRegistryKey(db, fingerprint, opts.reason);
        out(JSON.stringify({ status: "revoked", fingerprint }));
      } finally {
        await db.close();
      }
    });
  keys
    .command("list")
    .description("list registry keys")
    .action(async () => {
      const db = await open();
      try {
        const rows = await db.prisma.registryKey.findMany({ orderBy: { validFrom: "asc" } });
        for (const k of rows) out(`${k.fingerprint}  from ${k.validFrom.toISOString()}${k.validUntil ? ` until ${k.validUntil.toISOString()}` : " (active)"}${k.revokedAt ? ` REVOKED: ${k.revocationReason}` : ""}`);
      } finally {
        await db.close();
      }
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
