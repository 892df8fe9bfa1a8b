/**
 * The registry's signing key. Sources, in order: `$RYE_REGISTRY_PRIVATE_KEY` (PKCS#8 PEM, for a KMS or
 * secret manager), else `private_key.pem` in the key directory (`$RYE_REGISTRY_KEY_DIR`, default
 * `<data dir>/keys`), generated with mode 0600 on first start. Every key the registry ever used is a
 * `registry_keys` row, published by GET /v1/keys with its rotation statement and revocation.
 *
 * Several processes: they share the key directory (one host, or the same secret volume mounted in each) and the
 * database. A rotation, made by any process's admin endpoint or by the operator CLI, closes the old key's row
 * (`valid_until`), which moves the read generation (services/read-generation.ts). Each process compares that
 * generation before signing (free on PGlite, one shared primary-key read on PostgreSQL); when it moved, the
 * process checks its key in `registry_keys` and, if it was retired, loads the new key file. So no process keeps
 * signing with a retired key: it either serves the new key or refuses to sign (UNAVAILABLE) when its key
 * directory does not hold the new key.
 */
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { KeyPair } from "@rye/core";
import { setTimeout as sleep } from "node:timers/promises";
import { generateKeyPair, keyPairFromPrivatePem, RyeError, signDocument } from "@rye/core";
import type { KeyRotation } from "@rye/core";
import type { Database } from "@rye/db";
import { appendLogEntry } from "../services/publish-log.ts";

export interface KeyringOptions {
  db: Database;
  keyDir: string;
  registryUrl: string;
  /** PKCS#8 PEM from the environment; when set no key file is read or written. */
  envPrivateKey?: string | undefined;
  /** The read generation (moved by every registry_keys change); unset → only the key file's mtime is watched. */
  generation?: (() => Promise<bigint>) | undefined;
  /** How long to wait for a rotated key's file (default NEW_KEY_FILE_WAIT_MS). */
  newKeyFileWaitMs?: number;
}

const PRIVATE_KEY_FILE = "private_key.pem";
/** A rotation commits the database, then renames the new key file into place: how long a process waits for the file. */
export const NEW_KEY_FILE_WAIT_MS = 5_000;
/**
 * How long after a rotation the retired key still cosigns the log's signed-note checkpoints (next to the new key),
 * so a client or monitor that knows only the old key keeps verifying while it learns the new one.
 */
export const CHECKPOINT_COSIGN_OVERLAP_MS = 7 * 24 * 3600 * 1000;

export class RegistryKeyring {
  private db: Database | null = null;
  private keysDb: Database | null = null;
  private generation: (() => Promise<bigint>) | null = null;
  private checkedGeneration: bigint | null = null;
  private checking: Promise<void> | null = null;
  private newKeyFileWaitMs = NEW_KEY_FILE_WAIT_MS;

  private constructor(
    private active: KeyPair,
    private readonly path: string | null,
    private mtimeMs: number,
  ) {}

  static async load(options: KeyringOptions): Promise<RegistryKeyring> {
    let keyring: RegistryKeyring;
    if (options.envPrivateKey) {
      keyring = new RegistryKeyring(await keyPairFromPrivatePem(options.envPrivateKey), null, 0);
    } else {
      const path = join(options.keyDir, PRIVATE_KEY_FILE);
      await ensureKeyFile(options.keyDir);
      keyring = new RegistryKeyring(await keyPairFromPrivatePem(await readFile(path, "utf8")), path, (await stat(path)).mtimeMs);
    }
    await registerKey(options.db, keyring.active);
    keyring.keysDb = options.db;
    if (options.generation) {
      keyring.db = options.db;
      keyring.generation = options.generation;
      keyring.newKeyFileWaitMs = options.newKeyFileWaitMs ?? NEW_KEY_FILE_WAIT_MS;
    }
    return keyring;
  }

  /**
   * The active signing key; picks up a rotation done by any process or by `npm run registry -- keys rotate`
   * (a new key file, or this key retired in the database).
   */
  async signer(): Promise<KeyPair> {
    await this.reloadIfFileChanged();
    if (this.generation) {
      const generation = await this.generation();
      if (generation !== this.checkedGeneration) {
        this.checking ??= this.followRotation(generation).finally(() => {
          this.checking = null;
        });
        await this.checking;
      }
    }
    return this.active;
  }

  /** After a registry_keys change: if the active key was retired, load its successor from the key file. */
  private async followRotation(generation: bigint): Promise<void> {
    const deadline = Date.now() + this.newKeyFileWaitMs;
    while (await this.isRetired(this.active)) {
      if (!this.path || Date.now() >= deadline) {
        throw new RyeError("UNAVAILABLE", `The registry key ${this.active.publicKey.fingerprint} was rotated and this process does not hold its successor`, {
          hint: this.path
            ? `Every API process must read the same key directory (RYE_REGISTRY_KEY_DIR); ${this.path} still holds the retired key.`
            : "RYE_REGISTRY_PRIVATE_KEY holds a retired key: set it to the new key and restart this process.",
        });
      }
      await sleep(50);
      await this.reloadIfFileChanged(true);
    }
    this.checkedGeneration = generation;
  }

  private async isRetired(key: KeyPair): Promise<boolean> {
    const row = await this.db!.prisma.registryKey.findUnique({ where: { fingerprint: key.publicKey.fingerprint }, select: { validUntil: true } });
    // Any end of validity counts (a rotation sets it to its own "now"; comparing with this host's clock would let a
    // skewed process decide "not yet" and never look again until the next generation change).
    return row?.validUntil != null;
  }

  private async reloadIfFileChanged(force = false): Promise<void> {
    if (!this.path) return;
    const info = await stat(this.path).catch(() => null);
    if (info && (force || info.mtimeMs !== this.mtimeMs)) {
      this.active = await keyPairFromPrivatePem(await readFile(this.path, "utf8"));
      this.mtimeMs = info.mtimeMs;
    }
  }

  current(): KeyPair {
    return this.active;
  }

  /**
   * Retired (not revoked) keys inside the cosigning overlap whose private key this process holds (the key
   * directory's `retired/<fingerprint>.pem`, written by the rotation), newest first. Empty with a key from the environment.
   */
  async overlapSigners(now: Date = new Date()): Promise<KeyPair[]> {
    if (!this.path || !this.keysDb) return [];
    const rows = await this.keysDb.prisma.registryKey.findMany({
      where: { validUntil: { gt: new Date(now.getTime() - CHECKPOINT_COSIGN_OVERLAP_MS) }, revokedAt: null, fingerprint: { not: this.active.publicKey.fingerprint } },
      orderBy: { validUntil: "desc" },
      select: { fingerprint: true },
    });
    const keys: KeyPair[] = [];
    for (const row of rows) {
      if (!/^[0-9a-f]{16}$/.test(row.fingerprint)) continue;
      const pem = await readFile(join(dirname(this.path), "retired", `${row.fingerprint}.pem`), "utf8").catch(() => null);
      if (pem) keys.push(await keyPairFromPrivatePem(pem));
    }
    return keys;
  }
}

async function ensureKeyFile(keyDir: string): Promise<void> {
  await mkdir(keyDir, { recursive: true, mode: 0o700 });
  const path = join(keyDir, PRIVATE_KEY_FILE);
  try {
    await stat(path);
  } catch {
    const key = await generateKeyPair();
    await writeFile(path, key.privateKeyPem, { mode: 0o600, flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err; // another process created it first
    });
    await writeFile(join(keyDir, "public_key.pem"), key.publicKey.pem, { mode: 0o644 });
  }
  await chmod(path, 0o600);
}

async function registerKey(db: Database, key: KeyPair): Promise<void> {
  await db.prisma.registryKey.upsert({
    where: { fingerprint: key.publicKey.fingerprint },
    create: { fingerprint: key.publicKey.fingerprint, publicKeyPem: key.publicKey.pem },
    update: {},
  });
}

/**
 * Rotates the file-based key: a new key, a rotation statement signed by the old one, the old key's
 * validity closed. The old private key is kept as `retired/<fingerprint>.pem`.
 */
export async function rotateRegistryKey(options: Omit<KeyringOptions, "envPrivateKey">): Promise<{ previous: string; next: string; statement: KeyRotation }> {
  const path = join(options.keyDir, PRIVATE_KEY_FILE);
  let previous: KeyPair;
  try {
    previous = await keyPairFromPrivatePem(await readFile(path, "utf8"));
  } catch {
    throw new RyeError("KEY_NOT_FOUND", `No registry key at ${path}`, { hint: "Start the registry once to create its key, or set RYE_REGISTRY_KEY_DIR." });
  }
  const next = await generateKeyPair();
  const now = new Date();
  const statement: KeyRotation = {
    _type: "https://rye.dev/key-rotation/v1",
    registry: options.registryUrl,
    previous_fingerprint: previous.publicKey.fingerprint,
    next_fingerprint: next.publicKey.fingerprint,
    next_public_key: next.publicKey.pem,
    issued_at: now.toISOString(),
  };
  const signed = await signDocument(statement, previous);
  await options.db.prisma.$transaction(async (tx) => {
    await tx.registryKey.upsert({
      where: { fingerprint: previous.publicKey.fingerprint },
      create: { fingerprint: previous.publicKey.fingerprint, publicKeyPem: previous.publicKey.pem, validUntil: now },
      update: { validUntil: now },
    });
    await tx.registryKey.create({
      data: {
        fingerprint: next.publicKey.fingerprint,
        publicKeyPem: next.publicKey.pem,
        validFrom: now,
        previousFingerprint: previous.publicKey.fingerprint,
        rotationStatement: statement,
        rotationSignature: signed.signature,
      },
    });
    // Mirrors and indexers learn of it from the changes feed, in log order with the items it signs.
    await appendLogEntry(tx, "key_rotate", { kind: "registry_key", previous_fingerprint: previous.publicKey.fingerprint, next_fingerprint: next.publicKey.fingerprint });
  });
  await mkdir(join(options.keyDir, "retired"), { recursive: true, mode: 0o700 });
  await writeFile(join(options.keyDir, "retired", `${previous.publicKey.fingerprint}.pem`), previous.privateKeyPem, { mode: 0o600 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, next.privateKeyPem, { mode: 0o600 });
  await rename(temp, path);
  await writeFile(join(options.keyDir, "public_key.pem"), next.publicKey.pem, { mode: 0o644 });
  return { previous: previous.publicKey.fingerprint, next: next.publicKey.fingerprint, statement };
}

export async function revokeRegistryKey(db: Database, fingerprint: string, reason: string): Promise<void> {
  await db.prisma.$transaction(async (tx) => {
    const updated = await tx.registryKey.updateMany({ where: { fingerprint, revokedAt: null }, data: { revokedAt: new Date(), revocationReason: reason } });
    if (updated.count === 0) throw new RyeError("KEY_NOT_FOUND", `No unrevoked registry key ${fingerprint}`);
    await appendLogEntry(tx, "key_revoke", { kind: "registry_key", fingerprint, reason });
  });
}
