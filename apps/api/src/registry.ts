/** Opens everything a registry process needs (database, keys, auth) — shared by the server, the operator CLI and tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Database, OpenDatabaseOptions } from "@rye/db";
import { DataDirInUseError, MEMORY, openDatabase } from "@rye/db";
import { RyeError } from "@rye/core";
import { ApiTokenAuthenticator } from "./auth/api-tokens.ts";
import { AccessTokenRevocations } from "./auth/access-token-revocations.ts";
import { CompositeAuthenticator } from "./auth/composite-authenticator.ts";
import { AccessTokens } from "./auth/jwt.ts";
import type { RegistryConfig } from "./config.ts";
import { RegistryKeyring } from "./keys/keyring.ts";
import type { Logger } from "./logger.ts";
import type { AppDeps } from "./services/deps.ts";
import { openBlobStore } from "./services/open-blob-store.ts";
import { openReadPath } from "./services/pull.ts";
import { Mirror } from "./services/upstream/mirror.ts";
import { SecretBox } from "./keys/secret-box.ts";
import { requestCountersFor } from "./services/batched-window-counters.ts";
import { windowCountersFor } from "./services/window-counters.ts";

export const REGISTRY_VERSION = "0.1.0";

/**
 * Where the registry's keys live: $RYE_REGISTRY_KEY_DIR, else `<data dir>/keys`. An in-memory registry
 * (`RYE_DATA_DIR=memory://`) has no data directory: its keys are as short-lived as its database, in a private
 * temporary folder of this process (0700, removed when it exits), so a restart is a new registry with a new key;
 * a PostgreSQL registry outlives its process and needs RYE_REGISTRY_KEY_DIR then.
 */
export function keyDirOf(config: RegistryConfig, env: NodeJS.ProcessEnv): string {
  if (env.RYE_REGISTRY_KEY_DIR) return resolve(env.RYE_REGISTRY_KEY_DIR);
  if (config.dataDir === MEMORY) {
    if (env.DATABASE_URL) {
      throw new RyeError("BAD_REQUEST", "Invalid registry configuration: RYE_DATA_DIR=memory:// leaves a PostgreSQL registry (DATABASE_URL) no folder for its keys", {
        hint: "Set RYE_REGISTRY_KEY_DIR to a folder the registry keeps, or RYE_DATA_DIR to a folder (docs/deployment.md).",
      });
    }
    return ephemeralKeyDir();
  }
  return resolve(join(config.dataDir, "keys"));
}

let ephemeralKeys: string | undefined;
function ephemeralKeyDir(): string {
  if (!ephemeralKeys) {
    const dir = mkdtempSync(join(tmpdir(), "rye-registry-keys-")); // created 0700
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    ephemeralKeys = dir;
  }
  return ephemeralKeys;
}

/** The registry's database: PostgreSQL at $DATABASE_URL, else the embedded PGlite in the data directory. */
export function databaseOptionsOf(config: RegistryConfig, env: NodeJS.ProcessEnv, logger: Logger): OpenDatabaseOptions {
  const pglite = env.DATABASE_URL ? {} : { dataDir: config.dataDir, ...(config.pgliteSharedBuffersMb === undefined ? {} : { pgliteSharedBuffersMb: config.pgliteSharedBuffersMb }) };
  return { ...pglite, log: (m) => logger.log("info", m) };
}

/** openDatabase, with a data directory held by another process answered as DATA_DIR_IN_USE (not a bug in rye). */
export async function openRegistryDatabase(options: OpenDatabaseOptions): Promise<Database> {
  try {
    return await openDatabase(options);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw new RyeError("DATA_DIR_IN_USE", err.message, { hint: err.hint });
    throw err;
  }
}

export async function openRegistry(config: RegistryConfig, logger: Logger, options: { env?: NodeJS.ProcessEnv; db?: Database; database?: OpenDatabaseOptions } = {}): Promise<AppDeps> {
  const env = options.env ?? process.env;
  const db = options.db ?? (await openRegistryDatabase({ ...databaseOptionsOf(config, env, logger), ...options.database }));
  const keyDir = keyDirOf(config, env);
  const reads = await openReadPath(db, config, logger);
  const keyring = await RegistryKeyring.load({ db, keyDir, registryUrl: config.publicUrl, envPrivateKey: env.RYE_REGISTRY_PRIVATE_KEY, generation: () => reads.generation.current() });
  const secrets = await SecretBox.load({ keyDir, envKey: env.RYE_SECRETS_KEY });
  const accessTokens = await AccessTokens.load({ issuer: config.publicUrl, keyDir, envPrivateKey: env.RYE_TOKEN_PRIVATE_KEY, registryKeyFingerprint: keyring.current().publicKey.fingerprint });
  const authenticator = new CompositeAuthenticator({ db, apiTokens: new ApiTokenAuthenticator(db), accessTokens, revocations: new AccessTokenRevocations(db) });
  const counters = windowCountersFor(db, { store: config.rateLimit.store, onSweepError: (error) => logger.log("warn", "could not delete ended rate-limit windows", { error: error.message }) });
  const requestCounters = requestCountersFor(counters, { onFlushError: (error) => logger.log("warn", "could not write rate-limit counts; kept for the next batch", { error: error.message }) });
  const blobs = openBlobStore(config.blobs, db);
  const mirror = config.mirror ? new Mirror(db, config.mirror, keyring, config.publicUrl, logger, blobs) : undefined;
  return { db, config, keyring, accessTokens, authenticator, logger, version: REGISTRY_VERSION, reads, blobs, secrets, ...(mirror ? { mirror } : {}), counters, requestCounters, lifecycle: { draining: false } };
}
