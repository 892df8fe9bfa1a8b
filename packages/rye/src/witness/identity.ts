/**
 * A witness's identity and the logs it witnesses. Its directory (`--dir`, default `$USER_SPACE/.ai/witness`) holds
 * `witness_key.pem` (the Ed25519 cosigning key, 0600; a witness key is never the user's signing key: one key, one
 * cosigner), `witness.json` (`{ "name": … }`, the witness's name, a schema-less URL) and `state/` (state.ts).
 * The logs come from `--log <verifier key>` flags (the origin is the key's name, as in rye's checkpoints) and/or a
 * JSON file `{ "logs": [{ "origin": …, "keys": [<verifier key>…] }] }`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { KeyPair, NoteVerifier } from "@rye/core";
import { cosignerVerifierKey, generateKeyPair, isValidKeyName, keyPairFromPrivatePem, parseNoteVerifierKey, privateKeyToPem, RyeError } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { userAiDir } from "../spaces/paths.ts";

export interface WitnessIdentity {
  name: string;
  key: KeyPair;
  /** `<name>+<hex key ID>+<base64(0x04 ‖ key)>`: what a registry (RYE_WITNESSES) and clients (`rye trust witness add`) configure. */
  verifierKey: string;
}

export interface WitnessedLog {
  origin: string;
  keys: NoteVerifier[];
}

export function defaultWitnessDir(env: NodeJS.ProcessEnv): string {
  return join(userAiDir(env), "witness");
}

const KEY_FILE = "witness_key.pem";
const NAME_FILE = "witness.json";
const nameSchema = z.object({ name: z.string().refine(isValidKeyName, "a key name: no spaces, no '+'") }).strict();

/** Creates the witness key and name; refuses to replace an existing key unless `force` (a new key is a new witness). */
export async function createWitnessIdentity(dir: string, name: string, options: { force?: boolean } = {}): Promise<WitnessIdentity> {
  if (!isValidKeyName(name)) throw new RyeError("BAD_REQUEST", `"${name}" is not a valid witness name`, { hint: "Use a schema-less URL without spaces or '+', e.g. witness.example.com/w1." });
  if (!options.force && (await loadWitnessIdentity(dir).then(() => true, () => false))) {
    throw new RyeError("CONFLICT", `${dir} already holds a witness key`, { hint: "Print its verifier key with `rye witness key`; --force replaces it (clients and registries must then be given the new key, and the witness state is kept)." });
  }
  const key = await generateKeyPair();
  await writeFileAtomic(join(dir, KEY_FILE), privateKeyToPem(key.seed), { mode: 0o600, dirMode: 0o700 });
  await writeFileAtomic(join(dir, NAME_FILE), `${JSON.stringify({ name }, null, 2)}\n`, { mode: 0o644, dirMode: 0o700 });
  return { name, key, verifierKey: cosignerVerifierKey(name, key.publicKey.raw) };
}

export async function loadWitnessIdentity(dir: string): Promise<WitnessIdentity> {
  const hint = "Create it with `rye witness keygen --name <name>`.";
  const named = await readJsonFileAs(join(dir, NAME_FILE), nameSchema, { what: "a witness name file", hint });
  let pem: string;
  try {
    pem = await readFile(join(dir, KEY_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    throw new RyeError("KEY_NOT_FOUND", `No witness key in ${dir}`, { hint });
  }
  if (!named) throw new RyeError("KEY_NOT_FOUND", `No ${NAME_FILE} in ${dir}`, { hint });
  const key = await keyPairFromPrivatePem(pem);
  return { name: named.name, key, verifierKey: cosignerVerifierKey(named.name, key.publicKey.raw) };
}

const logsFileSchema = z.object({ logs: z.array(z.object({ origin: z.string().min(1).optional(), keys: z.array(z.string()).min(1) }).strict()) }).strict();

/** The logs from `--log` verifier keys and a config file; VALIDATION_FAILED naming the bad key. */
export async function loadWitnessedLogs(options: { logKeys?: readonly string[]; configPath?: string | undefined }): Promise<WitnessedLog[]> {
  const entries: { origin?: string | undefined; keys: string[] }[] = (options.logKeys ?? []).map((k) => ({ keys: [k] }));
  if (options.configPath) {
    const file = await readJsonFileAs(options.configPath, logsFileSchema, { what: "a witness log list", hint: 'The file is {"logs": [{"origin": "registry.example/v1/tlog", "keys": ["<verifier key>"]}]}.' });
    if (!file) throw new RyeError("NOT_FOUND", `No such file: ${options.configPath}`);
    entries.push(...file.logs);
  }
  const logs = new Map<string, WitnessedLog>();
  for (const entry of entries) {
    for (const text of entry.keys) {
      const key = parseNoteVerifierKey(text);
      if (!key) throw new RyeError("VALIDATION_FAILED", `Not a log verifier key: ${JSON.stringify(text.slice(0, 200))}`, { hint: "A log's key is `<origin>+<hex key id>+<base64(0x01 ‖ Ed25519 key)>`, as GET /v1/tlog/info lists it." });
      const origin = entry.origin ?? key.name;
      const log = logs.get(origin) ?? { origin, keys: [] };
      log.keys.push(key);
      logs.set(origin, log);
    }
  }
  if (logs.size === 0) throw new RyeError("BAD_REQUEST", "The witness has no log to witness", { hint: "Give --log <verifier key> (GET /v1/tlog/info of the registry) or --config <file>." });
  return [...logs.values()];
}
