/**
 * Secrets the registry must read back (webhook signing secrets) are stored sealed: AES-256-GCM under a key kept
 * beside the registry's signing keys (`<key dir>/secrets.key`, 32 random bytes, created on first start; or
 * RYE_SECRETS_KEY, base64), so a database dump or a read-only database role does not reveal them. Every API process
 * of one registry shares the key directory (docs/deployment.md), hence the key.
 *
 * Stored form: `sealed:v1:<base64url(iv ‖ ciphertext ‖ tag)>`. A value without the prefix is a secret stored before
 * sealing existed and is returned as it is (`isSealed` tells them apart, so such rows can be re-sealed).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { RyeError } from "@rye/core";

const PREFIX = "sealed:v1:";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_FILE = "secrets.key";

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box of `key` (32 bytes). */
  static fromKey(key: Uint8Array): SecretBox {
    if (key.length !== KEY_BYTES) throw new RyeError("BAD_REQUEST", `A secrets key is ${KEY_BYTES} bytes, not ${key.length}`, { hint: "Generate one with: openssl rand -base64 32" });
    return new SecretBox(Buffer.from(key));
  }

  /** RYE_SECRETS_KEY when set, else `<keyDir>/secrets.key`, created (0600) when missing. */
  static async load(options: { keyDir: string; envKey?: string | undefined }): Promise<SecretBox> {
    if (options.envKey !== undefined && options.envKey !== "") {
      const key = Buffer.from(options.envKey, "base64");
      if (key.length !== KEY_BYTES) throw new RyeError("BAD_REQUEST", "Invalid registry configuration: RYE_SECRETS_KEY is not 32 bytes of base64", { hint: "Generate one with: openssl rand -base64 32" });
      return new SecretBox(key);
    }
    const file = join(options.keyDir, SECRETS_KEY_FILE);
    await mkdir(options.keyDir, { recursive: true, mode: 0o700 });
    // `wx`: of two processes starting together, one creates the key and the other reads it.
    await writeFile(file, randomBytes(KEY_BYTES).toString("base64") + "\n", { mode: 0o600, flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
    const key = Buffer.from((await readFile(file, "utf8")).trim(), "base64");
    if (key.length !== KEY_BYTES) throw new RyeError("INTERNAL", `${file} does not hold a 32-byte key`, { hint: "Restore it from a backup: the webhook secrets sealed with it cannot be read without it." });
    return new SecretBox(key);
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** The secret of a stored value (legacy unsealed values as they are); a value sealed under another key throws. */
  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const bytes = Buffer.from(stored.slice(PREFIX.length), "base64url");
    if (bytes.length < IV_BYTES + TAG_BYTES) throw unreadable();
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw unreadable();
    }
  }
}

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

const unreadable = () =>
  new RyeError("INTERNAL", "A stored secret cannot be unsealed: it was sealed under another secrets key, or it is damaged", {
    hint: `Every registry process must share the key directory (${SECRETS_KEY_FILE}) or RYE_SECRETS_KEY; otherwise rotate the webhook's secret by creating it again.`,
  });
