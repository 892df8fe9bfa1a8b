/**
 * Credentials per registry. Where the OS has a keychain (registry/keychain.ts), the tokens live there and
 * `$USER_SPACE/.ai/auth/credentials.json` keeps only what is not secret (method, user, expiry, scope); otherwise
 * the tokens are in that file (0600, directory 0700), written atomically — the fallback on machines without a
 * keychain or Secret Service. `RYE_CREDENTIAL_STORE` chooses: `auto` (default: the keychain when one works),
 * `keychain` (required: an error when none works), `file`. `$RYE_TOKEN` (CI) overrides the store for every registry.
 */
import { chmod, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { userAiDir } from "../spaces/paths.ts";
import { detectKeychain, type Keychain } from "./keychain.ts";

const credentialSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string().optional(),
  /** Epoch milliseconds; absent for personal access tokens that the CLI cannot refresh. */
  expires_at: z.number().optional(),
  scope: z.string().optional(),
  username: z.string().optional(),
  method: z.enum(["device", "web", "token"]),
  client_id: z.string().optional(),
  saved_at: z.string(),
});
export type Credential = z.infer<typeof credentialSchema>;

/** In the file: the tokens, or `secret_store: "keychain"` and no tokens. */
const storedSchema = credentialSchema.extend({ access_token: z.string().optional(), secret_store: z.literal("keychain").optional() });
type Stored = z.infer<typeof storedSchema>;
const secretsSchema = z.object({ access_token: z.string(), refresh_token: z.string().optional() });

const fileSchema = z.object({ version: z.literal(1), registries: z.record(z.string(), storedSchema) });

export type CredentialStoreChoice = "auto" | "keychain" | "file";

export function credentialStoreChoice(env: NodeJS.ProcessEnv): CredentialStoreChoice {
  const raw = (env.RYE_CREDENTIAL_STORE ?? "auto").trim().toLowerCase() || "auto";
  if (raw === "auto" || raw === "keychain" || raw === "file") return raw;
  throw new RyeError("BAD_REQUEST", `RYE_CREDENTIAL_STORE=${JSON.stringify(raw.slice(0, 40))} is not auto, keychain or file`);
}

let detected: Promise<Keychain | null> | undefined;
/** One detection per process (a probe round trip). */
const detectOnce = (): Promise<Keychain | null> => (detected ??= detectKeychain());

export interface CredentialStoreOptions {
  /** The keychain finder (tests give one); default: detect the OS keychain once per process. */
  keychain?: () => Promise<Keychain | null>;
}

export class CredentialStore {
  readonly dir: string;
  readonly path: string;
  private readonly choice: CredentialStoreChoice;
  private readonly findKeychain: () => Promise<Keychain | null>;

  constructor(env: NodeJS.ProcessEnv = process.env, options: CredentialStoreOptions = {}) {
    this.dir = join(userAiDir(env), "auth");
    this.path = join(this.dir, "credentials.json");
    this.choice = credentialStoreChoice(env);
    this.findKeychain = options.keychain ?? detectOnce;
  }

  /** Where new credentials go: the keychain, or the file when there is none (or `file` was chosen). */
  async backend(): Promise<"keychain" | "file"> {
    return (await this.keychainForWrite()) ? "keychain" : "file";
  }

  private async keychainForWrite(): Promise<Keychain | null> {
    if (this.choice === "file") return null;
    const keychain = await this.findKeychain();
    if (!keychain && this.choice === "keychain") {
      throw new RyeError("UNAVAILABLE", "RYE_CREDENTIAL_STORE=keychain, but no OS keychain answered", {
        hint: "Unlock or start your keychain (on Linux a Secret Service such as gnome-keyring, with a D-Bus session), or set RYE_CREDENTIAL_STORE=auto to use the 0600 file.",
      });
    }
    return keychain;
  }

  private async readAll(): Promise<Record<string, Stored>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch {
      return {};
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return {}; // a damaged file is treated as empty; the next login rewrites it
    }
    const parsed = fileSchema.safeParse(data);
    return parsed.success ? parsed.data.registries : {};
  }

  /** The credential; one whose tokens are in a keychain that is gone or lost them counts as absent. */
  async get(registryUrl: string): Promise<Credential | undefined> {
    const stored = (await this.readAll())[registryUrl];
    if (!stored) return undefined;
    const { secret_store: secretStore, ...rest } = stored;
    if (secretStore !== "keychain") return rest.access_token === undefined ? undefined : { ...rest, access_token: rest.access_token };
    const keychain = await this.findKeychain();
    const raw = keychain ? await keychain.get(registryUrl).catch(() => null) : null;
    const secrets = raw === null ? null : secretsSchema.safeParse(safeJson(raw));
    if (!secrets?.success) return undefined;
    return { ...rest, ...secrets.data };
  }

  async set(registryUrl: string, credential: Omit<Credential, "saved_at">): Promise<"keychain" | "file"> {
    const all = await this.readAll();
    const saved = { ...credential, saved_at: new Date().toISOString() };
    const keychain = await this.keychainForWrite();
    let where: "keychain" | "file" = "file";
    if (keychain) {
      const { access_token, refresh_token, ...rest } = saved;
      try {
        await keychain.set(registryUrl, JSON.stringify({ access_token, ...(refresh_token ? { refresh_token } : {}) }));
        all[registryUrl] = { ...rest, secret_store: "keychain" };
        where = "keychain";
      } catch (err) {
        if (this.choice === "keychain") throw new RyeError("UNAVAILABLE", `The OS keychain refused the credential: ${(err as Error).message}`, { hint: "Unlock your keychain, or set RYE_CREDENTIAL_STORE=auto to use the 0600 file." });
      }
    }
    if (where === "file") all[registryUrl] = saved;
    await this.write(all);
    return where;
  }

  async delete(registryUrl: string): Promise<boolean> {
    const all = await this.readAll();
    if (!(registryUrl in all)) return false;
    if (all[registryUrl]!.secret_store === "keychain") {
      const keychain = await this.findKeychain();
      await keychain?.delete(registryUrl).catch(() => false);
    }
    delete all[registryUrl];
    await this.write(all);
    return true;
  }

  private async write(registries: Record<string, Stored>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await writeFileAtomic(this.path, `${JSON.stringify({ version: 1, registries }, null, 2)}\n`, { mode: 0o600 });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
