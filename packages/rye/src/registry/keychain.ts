/**
 * The OS credential store, where one exists: macOS Keychain, Windows Credential Manager, a Secret Service on
 * Linux (gnome-keyring, KWallet, KeePassXC) — through the optional native package @napi-rs/keyring. Feature
 * detected, never assumed: the package may be missing (it is an optional dependency), its binary may not load,
 * or no store may answer (a server without a D-Bus session, a locked keyring). Detection is a real round trip
 * (write, read back, delete a probe entry) with a deadline; any failure means "no keychain" and the caller
 * keeps the 0600 file. On Linux only the Secret Service counts: the kernel keyring forgets everything at reboot.
 */
import { randomBytes } from "node:crypto";

/** What the credential store needs from a keychain: secrets by account name, under one service name. */
export interface Keychain {
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

export const KEYCHAIN_SERVICE = "rye";
/** A keychain that does not answer within this time (a prompt nobody sees, a hung D-Bus) counts as absent. */
export const KEYCHAIN_PROBE_TIMEOUT_MS = 3000;

interface AsyncEntryLike {
  getPassword(signal?: AbortSignal): Promise<string | null | undefined>;
  setPassword(password: string, signal?: AbortSignal): Promise<void>;
  deletePassword(signal?: AbortSignal): Promise<boolean>;
}
type EntryConstructor = new (service: string, account: string, options?: { linux?: { store: "secret-service" } }) => AsyncEntryLike;

/** Loads the native binding; the specifier is not a literal so the CLI bundle keeps it an optional, external import. */
export async function loadKeyringBinding(): Promise<EntryConstructor | null> {
  const specifier = ["@napi-rs", "keyring"].join("/");
  try {
    const mod = (await import(specifier)) as { AsyncEntry?: EntryConstructor; default?: { AsyncEntry?: EntryConstructor } };
    return mod.AsyncEntry ?? mod.default?.AsyncEntry ?? null;
  } catch {
    return null;
  }
}

function keychainOver(AsyncEntry: EntryConstructor, service: string, timeoutMs: number): Keychain {
  const entry = (account: string) => new AsyncEntry(service, account, { linux: { store: "secret-service" } });
  const signal = () => AbortSignal.timeout(timeoutMs);
  return {
    async get(account) {
      return (await entry(account).getPassword(signal())) ?? null;
    },
    async set(account, secret) {
      await entry(account).setPassword(secret, signal());
    },
    async delete(account) {
      try {
        return await entry(account).deletePassword(signal());
      } catch {
        return false; // no such entry
      }
    },
  };
}

/** A working keychain, or null; never throws. */
export async function detectKeychain(load: () => Promise<EntryConstructor | null> = loadKeyringBinding, timeoutMs = KEYCHAIN_PROBE_TIMEOUT_MS): Promise<Keychain | null> {
  try {
    const AsyncEntry = await load();
    if (!AsyncEntry) return null;
    const keychain = keychainOver(AsyncEntry, KEYCHAIN_SERVICE, timeoutMs);
    const probe = `probe-${randomBytes(6).toString("hex")}`;
    const value = randomBytes(12).toString("hex");
    const roundTrip = async () => {
      await keychain.set(probe, value);
      const back = await keychain.get(probe);
      await keychain.delete(probe);
      return back === value;
    };
    // The binding's own deadline covers each call; this one covers a binding that ignores it.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs * 3);
    });
    const works = await Promise.race([roundTrip(), deadline]).finally(() => clearTimeout(timer));
    return works ? keychain : null;
  } catch {
    return null;
  }
}
