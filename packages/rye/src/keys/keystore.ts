/** The user's signing key pair: `$USER_SPACE/.ai/keys/{private_key.pem,public_key.pem}` (0600/0644, dir 0700). */
import { chmod, mkdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type { KeyPair } from "@rye/core";
import { generateKeyPair, keyPairFromPrivatePem, RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { userAiDir } from "../spaces/paths.ts";
import { TrustStore } from "../trust/store.ts";

export interface KeyStoreOptions {
  env?: NodeJS.ProcessEnv;
}

export class KeyStore {
  readonly dir: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(options: KeyStoreOptions = {}) {
    this.env = options.env ?? process.env;
    this.dir = join(userAiDir(this.env), "keys");
  }

  get privateKeyPath(): string {
    return join(this.dir, "private_key.pem");
  }

  get publicKeyPath(): string {
    return join(this.dir, "public_key.pem");
  }

  /** The existing key pair, or undefined when none was created yet. */
  async load(): Promise<KeyPair | undefined> {
    let pem: string;
    try {
      pem = await readFile(this.privateKeyPath, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    try {
      return await keyPairFromPrivatePem(pem);
    } catch (err) {
      throw new RyeError("INVALID_KEY", `Cannot read the private key at ${this.privateKeyPath}`, {
        hint: "Restore the key from a backup or create a new one with `rye keygen --force`.",
        cause: err,
      });
    }
  }

  /** Loads the key pair, creating (and trusting) one on first use. */
  async loadOrCreate(): Promise<{ key: KeyPair; created: boolean }> {
    const existing = await this.load();
    if (existing) return { key: existing, created: false };
    return { key: await this.create(), created: true };
  }

  /** Creates a new key pair; an existing one is kept as `*.pem.bak-<time>` when `replace` is set. */
  async create(options: { replace?: boolean } = {}): Promise<KeyPair> {
    const existing = await this.load().catch(() => undefined);
    if (existing && !options.replace) {
      throw new RyeError("ITEM_EXISTS", `A key pair already exists at ${this.dir}`, { hint: "Pass --force to replace it (the old one is backed up)." });
    }
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    if (existing) {
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      await rename(this.privateKeyPath, `${this.privateKeyPath}.bak-${stamp}`);
      await rename(this.publicKeyPath, `${this.publicKeyPath}.bak-${stamp}`).catch(() => undefined);
    }
    const key = await generateKeyPair();
    await writeFileAtomic(this.privateKeyPath, key.privateKeyPem, { mode: 0o600 });
    await writeFileAtomic(this.publicKeyPath, key.publicKey.pem, { mode: 0o644 });
    await new TrustStore({ env: this.env }).add(key.publicKey.pem, { label: "own key" });
    return key;
  }
}
