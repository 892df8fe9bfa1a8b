/**
 * Trust on first use of registry signing keys, per registry URL, in
 * `$USER_SPACE/.ai/trusted_keys/registries.json` (atomic, 0600):
 * `{ [url]: { fingerprint, public_key, pinned_at, history: [fingerprints] } }`.
 *
 * `registryKeyFor` reconciles the pin with `GET /v1/keys`:
 * - nothing pinned: pin the active key and return a first-use notice;
 * - the active key is the pinned one: use it;
 * - another active key: accepted only through a chain of rotation statements starting at the pinned
 *   key (each signed by the previous key, fingerprints consistent, each next PEM hashing to its
 *   fingerprint); the pin moves and the old fingerprints go to `history`;
 * - a revoked key on the way (pinned, intermediate or active), or no valid chain: refused (UNTRUSTED_KEY);
 * - `/v1/keys` unreachable: the pinned key, with a warning; nothing pinned: UNAVAILABLE (fail closed).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { PublicKey, SignedDocument } from "@rye/core";
import { fingerprintOfPem, keyRotationSchema, publicKeyFromPem, RyeError, verifyDocument } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { userAiDir } from "../spaces/paths.ts";
import { readJson, registryFetch } from "./http.ts";

/** Longest rotation chain followed in one reconciliation. */
export const MAX_ROTATION_CHAIN = 64;

const pinSchema = z.object({
  fingerprint: z.string(),
  public_key: z.string(),
  pinned_at: z.string(),
  history: z.array(z.string()).default([]),
});
export type RegistryKeyPin = z.infer<typeof pinSchema>;
const pinFileSchema = z.record(z.string(), pinSchema);

const keyEntrySchema = z.object({
  fingerprint: z.string(),
  public_key: z.string(),
  algorithm: z.string().optional(),
  valid_from: z.string().nullable().optional(),
  valid_until: z.string().nullable().optional(),
  previous_fingerprint: z.string().nullable().optional(),
  rotation: z
    .object({ payload: z.unknown(), signature: z.string(), key_fingerprint: z.string().nullable() })
    .nullable()
    .optional(),
  revoked_at: z.string().nullable().optional(),
  revocation_reason: z.string().nullable().optional(),
  active: z.boolean().optional(),
});
export type RegistryKeyEntry = z.infer<typeof keyEntrySchema>;
const keysDocumentSchema = z.object({ registry: z.string(), active: z.string(), keys: z.array(keyEntrySchema) });
export type RegistryKeysDocument = z.infer<typeof keysDocumentSchema>;

export type FetchKeys = (registryUrl: string) => Promise<RegistryKeysDocument>;

export interface RegistryKeyOptions {
  env?: NodeJS.ProcessEnv;
  /** Replaces `GET <url>/v1/keys` (tests, MCP with its own transport). */
  fetchKeys?: FetchKeys;
  /** Shown in hints (`rye registry reset-key <name> --force`); defaults to the URL. */
  name?: string | undefined;
}

export interface RegistryKeyResult {
  url: string;
  /** The key that registry signatures must verify with. */
  key: PublicKey;
  pin: RegistryKeyPin;
  /** first-use: just pinned; pinned: unchanged; rotated: followed a rotation chain; offline: /v1/keys unreachable. */
  status: "first-use" | "pinned" | "rotated" | "offline";
  /** For the CLI / MCP to show (first use, rotation). */
  notice?: string;
  warnings: string[];
  /** Fingerprints the pin moved through, oldest first (rotated only). */
  rotations: string[];
  /** The published key list, when it could be fetched. */
  keys?: RegistryKeysDocument;
}

export function registryPinsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(userAiDir(env), "trusted_keys", "registries.json");
}

/** The pin file. A damaged file is an error (never silently re-trusted on first use). */
export async function readRegistryPins(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, RegistryKeyPin>> {
  const path = registryPinsPath(env);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new RyeError("VALIDATION_FAILED", `${path} is not valid JSON`, { hint: "Restore the file; deleting it makes rye trust registry keys on first use again." });
  }
  const parsed = pinFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new RyeError("VALIDATION_FAILED", `${path} is not a registry key pin file`, {
      hint: "Restore the file; deleting it makes rye trust registry keys on first use again.",
      details: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}

async function writeRegistryPins(pins: Record<string, RegistryKeyPin>, env: NodeJS.ProcessEnv): Promise<void> {
  await writeFileAtomic(registryPinsPath(env), `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600, dirMode: 0o755 });
}

export async function getRegistryPin(url: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryKeyPin | undefined> {
  return (await readRegistryPins(env))[url];
}

async function savePin(url: string, pin: RegistryKeyPin, env: NodeJS.ProcessEnv): Promise<void> {
  const pins = await readRegistryPins(env);
  pins[url] = pin;
  await writeRegistryPins(pins, env);
}

/** Forgets the pinned key of a registry (the next contact is a first use again). False when none. */
export async function resetRegistryPin(url: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryKeyPin | undefined> {
  const pins = await readRegistryPins(env);
  const pin = pins[url];
  if (!pin) return undefined;
  delete pins[url];
  await writeRegistryPins(pins, env);
  return pin;
}

/** `GET <url>/v1/keys`, validated. Network and HTTP failures throw (UNAVAILABLE / TIMEOUT / …). */
export async function fetchRegistryKeys(registryUrl: string): Promise<RegistryKeysDocument> {
  const res = await registryFetch(registryUrl, "/v1/keys", { timeoutMs: 10_000 });
  const body = await readJson<unknown>(res);
  const parsed = keysDocumentSchema.safeParse(body);
  if (!parsed.success) throw new RyeError("UNAVAILABLE", `The registry at ${registryUrl} published a malformed key list`);
  return parsed.data;
}

function resetHint(target: string): string {
  return `If the registry really changed its key, confirm the new fingerprint with its operators, then run: rye registry reset-key ${target} --force`;
}

function parsePem(pem: string, fingerprint: string): PublicKey | undefined {
  try {
    const key = publicKeyFromPem(pem);
    return key.fingerprint === fingerprint ? key : undefined;
  } catch {
    return undefined;
  }
}

function revokedError(url: string, entry: RegistryKeyEntry, role: string, target: string): RyeError {
  const reason = entry.revocation_reason ? ` (${entry.revocation_reason})` : "";
  return new RyeError("UNTRUSTED_KEY", `The ${role} key ${entry.fingerprint} of ${url} was revoked at ${entry.revoked_at}${reason}`, {
    hint: `Signatures by a revoked key are not trusted. ${resetHint(target)}`,
  });
}

/**
 * Walks rotation statements from `pinned` to `activeFingerprint`; returns the verified keys after the
 * pinned one (the last is the active key). Throws UNTRUSTED_KEY when there is no valid chain.
 */
export async function verifyRotationChain(
  doc: RegistryKeysDocument,
  pinned: PublicKey,
  activeFingerprint: string,
  context: { url: string; target: string },
): Promise<PublicKey[]> {
  const byFingerprint = new Map(doc.keys.map((k) => [k.fingerprint, k]));
  const refuse = (why: string) =>
    new RyeError("UNTRUSTED_KEY", `The registry at ${context.url} now signs with key ${activeFingerprint}, but ${why}; refusing it (the pinned key is ${pinned.fingerprint})`, {
      hint: resetHint(context.target),
    });
  // Backwards from the active key to the pinned one, following previous_fingerprint.
  const steps: RegistryKeyEntry[] = [];
  let cursor = byFingerprint.get(activeFingerprint);
  const seen = new Set<string>();
  while (cursor && cursor.fingerprint !== pinned.fingerprint) {
    if (seen.has(cursor.fingerprint) || steps.length >= MAX_ROTATION_CHAIN) throw refuse("its rotation chain loops or is too long");
    seen.add(cursor.fingerprint);
    steps.unshift(cursor);
    const previous = cursor.rotation ? keyRotationSchema.safeParse(cursor.rotation.payload) : undefined;
    const prevFp = previous?.success ? previous.data.previous_fingerprint : cursor.previous_fingerprint;
    if (!prevFp) throw refuse(`no rotation statement links key ${cursor.fingerprint} to the pinned key`);
    if (prevFp === pinned.fingerprint) break; // reached the pinned key (the registry need not list it)
    cursor = byFingerprint.get(prevFp);
    if (!cursor) throw refuse(`the rotation chain refers to an unknown key ${prevFp}`);
  }
  if (steps.length === 0) throw refuse("no rotation statement leads to it");
  // Forwards from the pinned key (our copy, never the registry's), verifying every statement.
  const verified: PublicKey[] = [];
  let current = pinned;
  for (const step of steps) {
    const rotation = step.rotation;
    if (!rotation) throw refuse(`key ${step.fingerprint} has no rotation statement`);
    const payload = keyRotationSchema.safeParse(rotation.payload);
    if (!payload.success) throw refuse(`the rotation statement for ${step.fingerprint} is malformed`);
    const p = payload.data;
    if (p.previous_fingerprint !== current.fingerprint || rotation.key_fingerprint !== current.fingerprint) {
      throw refuse(`the rotation statement for ${step.fingerprint} is not issued by ${current.fingerprint}`);
    }
    if (p.next_fingerprint !== step.fingerprint) throw refuse(`the rotation statement names ${p.next_fingerprint}, not ${step.fingerprint}`);
    if (fingerprintOfPem(p.next_public_key) !== p.next_fingerprint) throw refuse(`the next public key in the rotation to ${step.fingerprint} does not hash to its fingerprint`);
    if (step.public_key !== p.next_public_key) throw refuse(`the published key ${step.fingerprint} differs from the one its rotation statement names`);
    if (p.registry.replace(/\/+$/, "") !== doc.registry.replace(/\/+$/, "")) throw refuse(`the rotation statement for ${step.fingerprint} is for another registry (${p.registry})`);
    const ok = await verifyDocument({ payload: rotation.payload, signature: rotation.signature, key_fingerprint: rotation.key_fingerprint } as SignedDocument<unknown>, current);
    if (!ok) throw refuse(`the rotation statement for ${step.fingerprint} has an invalid signature`);
    const next = parsePem(p.next_public_key, p.next_fingerprint);
    if (!next) throw refuse(`the next public key ${p.next_fingerprint} is not a valid Ed25519 key`);
    verified.push(next);
    current = next;
  }
  return verified;
}

/** The registry's pinned signing key, reconciled with its published key list (see the module comment). */
export async function registryKeyFor(url: string, options: RegistryKeyOptions = {}): Promise<RegistryKeyResult> {
  const env = options.env ?? process.env;
  const target = options.name ?? url;
  const fetchKeys = options.fetchKeys ?? fetchRegistryKeys;
  const pin = await getRegistryPin(url, env);
  const pinnedKey = pin ? parsePem(pin.public_key, pin.fingerprint) : undefined;
  if (pin && !pinnedKey) {
    throw new RyeError("UNTRUSTED_KEY", `The pinned key for ${url} does not hash to its fingerprint ${pin.fingerprint}`, {
      hint: `The pin file ${registryPinsPath(env)} was altered. ${resetHint(target)}`,
    });
  }

  let doc: RegistryKeysDocument;
  try {
    doc = await fetchKeys(url);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (pin && pinnedKey) {
      return {
        url,
        key: pinnedKey,
        pin,
        status: "offline",
        warnings: [`Could not fetch the keys of ${url} (${why}); using the pinned key ${pin.fingerprint} without checking for rotation or revocation.`],
        rotations: [],
      };
    }
    throw new RyeError("UNAVAILABLE", `Cannot fetch the signing keys of ${url} and none is pinned (${why})`, {
      hint: "rye never skips signature verification: connect to the registry once so its key can be pinned.",
    });
  }

  const active = doc.keys.find((k) => k.fingerprint === doc.active);
  if (!active) throw new RyeError("UNTRUSTED_KEY", `The registry at ${url} names an active key ${doc.active} that it does not publish`, { hint: resetHint(target) });
  if (active.revoked_at) throw revokedError(url, active, "active", target);
  const activeKey = parsePem(active.public_key, active.fingerprint);
  if (!activeKey) throw new RyeError("UNTRUSTED_KEY", `The active key of ${url} does not hash to its fingerprint ${active.fingerprint}`, { hint: resetHint(target) });

  if (!pin || !pinnedKey) {
    const fresh: RegistryKeyPin = { fingerprint: activeKey.fingerprint, public_key: activeKey.pem, pinned_at: new Date().toISOString(), history: [] };
    await savePin(url, fresh, env);
    return { url, key: activeKey, pin: fresh, status: "first-use", notice: `Pinned registry key ${activeKey.fingerprint} for ${url} (first use)`, warnings: [], rotations: [], keys: doc };
  }

  const pinnedEntry = doc.keys.find((k) => k.fingerprint === pin.fingerprint);
  if (pinnedEntry?.revoked_at) throw revokedError(url, pinnedEntry, "pinned", target);
  if (activeKey.fingerprint === pin.fingerprint) {
    if (activeKey.pem !== pin.public_key) throw new RyeError("UNTRUSTED_KEY", `The registry at ${url} publishes a different PEM for the pinned key ${pin.fingerprint}`, { hint: resetHint(target) });
    return { url, key: pinnedKey, pin, status: "pinned", warnings: [], rotations: [], keys: doc };
  }

  const chain = await verifyRotationChain(doc, pinnedKey, activeKey.fingerprint, { url, target });
  for (const key of chain) {
    const entry = doc.keys.find((k) => k.fingerprint === key.fingerprint);
    if (entry?.revoked_at) throw revokedError(url, entry, "intermediate", target);
  }
  const passed = [pin.fingerprint, ...chain.slice(0, -1).map((k) => k.fingerprint)];
  const next: RegistryKeyPin = {
    fingerprint: activeKey.fingerprint,
    public_key: activeKey.pem,
    pinned_at: new Date().toISOString(),
    history: [...pin.history.filter((fp) => !passed.includes(fp)), ...passed],
  };
  await savePin(url, next, env);
  return {
    url,
    key: activeKey,
    pin: next,
    status: "rotated",
    notice: `Registry ${url} rotated its key ${passed.concat(activeKey.fingerprint).join(" → ")} (rotation statements verified); pinned ${activeKey.fingerprint}`,
    warnings: [],
    rotations: passed.concat(activeKey.fingerprint),
    keys: doc,
  };
}

/**
 * Refuses a registry signature (attestation, checkpoint…) made by any key but the pinned one.
 * Returns the pinned key to verify the signature with.
 */
export function assertSignedByPinned(pinned: Pick<RegistryKeyResult, "url" | "key">, fingerprint: string): PublicKey {
  if (fingerprint !== pinned.key.fingerprint) {
    throw new RyeError("UNTRUSTED_KEY", `Signed by key ${fingerprint}, but the pinned key of ${pinned.url} is ${pinned.key.fingerprint}`, {
      hint: `Run \`rye registry keys ${pinned.url}\` to follow a key rotation; a key without a rotation statement is never trusted.`,
    });
  }
  return pinned.key;
}
