/**
 * Trusted public keys: `$USER_SPACE/.ai/trusted_keys/<fingerprint>.pem`. A lookup re-hashes the PEM,
 * so a file named after a fingerprint it does not have is never trusted (the original trusted names).
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { KeyResolver, PublicKey } from "@rye/core";
import { publicKeyFromPem, RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { userAiDir } from "../spaces/paths.ts";

const FINGERPRINT_RE = /^[0-9a-f]{16}$/;

export interface TrustedKeyEntry {
  fingerprint: string;
  path: string;
  /** False when the file's PEM does not hash to its name (it is then ignored). */
  valid: boolean;
}

export class TrustStore implements KeyResolver {
  readonly dir: string;
  /** Keys trusted in memory only (e.g. the rye release key for the system space). */
  private readonly extra = new Map<string, PublicKey>();

  constructor(options: { env?: NodeJS.ProcessEnv; dir?: string; extraKeys?: PublicKey[] } = {}) {
    this.dir = options.dir ?? join(userAiDir(options.env ?? process.env), "trusted_keys");
    for (const key of options.extraKeys ?? []) this.extra.set(key.fingerprint, key);
  }

  async resolve(fingerprint: string): Promise<PublicKey | undefined> {
    const extra = this.extra.get(fingerprint);
    if (extra) return extra;
    if (!FINGERPRINT_RE.test(fingerprint)) return undefined;
    let pem: string;
    try {
      pem = await readFile(join(this.dir, `${fingerprint}.pem`), "utf8");
    } catch {
      return undefined;
    }
    try {
      const key = publicKeyFromPem(pem);
      return key.fingerprint === fingerprint ? key : undefined;
    } catch {
      return undefined;
    }
  }

  /** Trusts a PEM; returns its fingerprint. Idempotent. */
  async add(pem: string, _options: { label?: string } = {}): Promise<PublicKey> {
    const key = publicKeyFromPem(pem);
    await writeFileAtomic(join(this.dir, `${key.fingerprint}.pem`), key.pem, { mode: 0o644, dirMode: 0o755 });
    return key;
  }

  async remove(fingerprint: string): Promise<boolean> {
    if (!FINGERPRINT_RE.test(fingerprint)) {
      throw new RyeError("INVALID_KEY", `Not a key fingerprint: ${JSON.stringify(fingerprint)}`, { hint: "Fingerprints are 16 lowercase hex characters; see `rye trust list`." });
    }
    try {
      await rm(join(this.dir, `${fingerprint}.pem`));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  }

  async list(): Promise<TrustedKeyEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const entries: TrustedKeyEntry[] = [];
    for (const name of names.filter((n) => n.endsWith(".pem")).sort()) {
      const fingerprint = name.slice(0, -4);
      const path = join(this.dir, name);
      entries.push({ fingerprint, path, valid: (await this.resolve(fingerprint)) !== undefined });
    }
    return entries;
  }
}
