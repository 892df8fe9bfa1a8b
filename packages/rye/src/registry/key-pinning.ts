/**
 * Trust on first use of registry signing keys, per registry URL, in
 * `$USER_SPACE/.ai/trusted_keys/registries.json` (atomic, 0600):
 * `{ [url]: { fingerprint, public_key, pinned_at, history: [fingerprints], retired_keys: [{fingerprint, public_key,
 * retired_at}], revoked: [{fingerprint, revoked_at, reason}] } }` (the last two are optional: older pin files
 * stay readable).
 *
 * `registryKeyFor` reconciles the pin with `GET /v1/keys`:
 * - nothing pinned: pin the active key and return a first-use notice; earlier keys that verified rotation
 *   statements link to it (up to the first revoked one) are kept as retired keys;
 * - the active key is the pinned one: use it;
 * - another active key: accepted only through a chain of rotation statements starting at the pinned
 *   key (each signed by the previous key, fingerprints consistent, each next PEM hashing to its
 *   fingerprint); the pin moves, the old fingerprints go to `history` and the old keys (PEMs) to
 *   `retired_keys`, so items signed before the rotation still verify (rotation is not revocation);
 * - a revoked key on the way (pinned, intermediate or active), or no valid chain: refused (UNTRUSTED_KEY);
 * - a retired or pinned key the registry lists as revoked is dropped from `retired_keys` and recorded
 *   in `revoked`, for good: a revoked key never verifies anything again (even offline, even if a later
 *   key list forgets the revocation) until `rye registry reset-key`;
 * - `/v1/keys` unreachable: the pinned key, with a warning; nothing pinned: UNAVAILABLE (fail closed).
 */
import { join } from "node:path";
import { z } from "zod";
import type { PublicKey, SignedDocument } from "@rye/core";
import { fingerprintOfPem, keyRotationSchema, publicKeyFromPem, RyeError, verifyDocument } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readJsonFileAs } from "../fs/json-file.ts";
import { serialised } from "../fs/serialised.ts";
import { userAiDir } from "../spaces/paths.ts";
import { keysAnswerSchema, registryKeyAnswerSchema } from "./answers.ts";
import { readJson, registryFetch } from "./http.ts";

/** Longest rotation chain followed in one reconciliation. */
export const MAX_ROTATION_CHAIN = 64;

const retiredKeySchema = z.object({ fingerprint: z.string(), public_key: z.string(), retired_at: z.string() });
export type RetiredRegistryKey = z.infer<typeof retiredKeySchema>;
const revokedKeySchema = z.object({ fingerprint: z.string(), revoked_at: z.string(), reason: z.string().nullable().optional() });
export type RevokedRegistryKey = z.infer<typeof revokedKeySchema>;

/** The largest signed log checkpoint seen from a registry: a smaller one later is a rollback of its log. */
const seenCheckpointSchema = z.object({ tree_size: z.number().int().nonnegative(), head_hash: z.string(), issued_at: z.string() });
export type SeenCheckpoint = z.infer<typeof seenCheckpointSchema>;

const treeCheckpointSchema = z.object({ origin: z.string(), size: z.number().int().nonnegative(), root_hash: z.string(), note: z.string() });

const pinSchema = z.object({
  fingerprint: z.string(),
  public_key: z.string(),
  pinned_at: z.string(),
  history: z.array(z.string()).default([]),
  /** Keys the pin rotated away from and that are not revoked: they still verify what they signed. */
  retired_keys: z.array(retiredKeySchema).default([]),
  /** Keys seen revoked (pinned or retired ones): never trusted again. */
  revoked: z.array(revokedKeySchema).default([]),
  checkpoint: seenCheckpointSchema.optional(),
  /** The largest checkpoint of the registry's Merkle log this client verified (transparency.ts): a later one must extend it. */
  tree: treeCheckpointSchema.optional(),
});
export type RegistryKeyPin = z.infer<typeof pinSchema>;
const pinFileSchema = z.record(z.string(), pinSchema);

export type RegistryKeyEntry = z.infer<typeof registryKeyAnswerSchema>;
export type RegistryKeysDocument = z.infer<typeof keysAnswerSchema>;

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
  const pins = await readJsonFileAs(registryPinsPath(env), pinFileSchema, {
    what: "a registry key pin file",
    hint: "Restore the file; deleting it makes rye trust registry keys on first use again.",
  });
  return pins ?? {};
}

async function writeRegistryPins(pins: Record<string, RegistryKeyPin>, env: NodeJS.ProcessEnv): Promise<void> {
  await writeFileAtomic(registryPinsPath(env), `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600, dirMode: 0o755 });
}

export async function getRegistryPin(url: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryKeyPin | undefined> {
  return (await readRegistryPins(env))[url];
}

async function savePin(url: string, pin: RegistryKeyPin, env: NodeJS.ProcessEnv): Promise<void> {
  const pins = await readRegistryPins(env);
  // `pin` was read before: a log checkpoint kept meanwhile (recordTreeCheckpoint) must not go back.
  const kept = pins[url]?.tree;
  pins[url] = kept && (!pin.tree || kept.size > pin.tree.size) ? { ...pin, tree: kept } : pin;
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

/**
 * Keeps `tree` as the registry's verified log checkpoint unless a larger one is kept already (a concurrent pull got
 * further); returns the one kept. Serialised within the process, so parallel pulls never move it back.
 */
export async function recordTreeCheckpoint(url: string, tree: NonNullable<RegistryKeyPin["tree"]>, env: NodeJS.ProcessEnv = process.env): Promise<NonNullable<RegistryKeyPin["tree"]>> {
  return serialised(registryPinsPath(env), async () => {
    const pins = await readRegistryPins(env);
    const pin = pins[url];
    if (!pin) return tree;
    if (pin.tree && pin.tree.size >= tree.size) return pin.tree;
    pins[url] = { ...pin, tree };
    await writeRegistryPins(pins, env);
    return tree;
  });
}

/** `GET <url>/v1/keys`, validated. Network and HTTP failures throw (UNAVAILABLE / TIMEOUT / …). */
export async function fetchRegistryKeys(registryUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<RegistryKeysDocument> {
  return readJson(await registryFetch(registryUrl, "/v1/keys", { env }), keysAnswerSchema);
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

/**
 * On first use: the registry's earlier keys, newest first, from which verified rotation statements lead to
 * the active key, up to the first revoked or unverifiable one. They become retired keys, so items
 * published before a rotation can be pulled (trust on first use covers them as much as the active key).
 */
async function verifiedPredecessors(doc: RegistryKeysDocument, active: PublicKey, context: { url: string; target: string }): Promise<RetiredRegistryKey[]> {
  const byFingerprint = new Map(doc.keys.map((k) => [k.fingerprint, k]));
  const out: RetiredRegistryKey[] = [];
  let cursor = byFingerprint.get(active.fingerprint);
  while (cursor && out.length < MAX_ROTATION_CHAIN) {
    const statement = cursor.rotation ? keyRotationSchema.safeParse(cursor.rotation.payload) : undefined;
    const previousFp = statement?.success ? statement.data.previous_fingerprint : cursor.previous_fingerprint;
    const previous = previousFp ? byFingerprint.get(previousFp) : undefined;
    if (!previous || previous.revoked_at || previous.fingerprint === active.fingerprint || out.some((k) => k.fingerprint === previous.fingerprint)) break;
    const key = parsePem(previous.public_key, previous.fingerprint);
    if (!key) break;
    try {
      await verifyRotationChain(doc, key, active.fingerprint, context);
    } catch {
      break;
    }
    out.push({ fingerprint: key.fingerprint, public_key: key.pem, retired_at: previous.valid_until ?? new Date().toISOString() });
    cursor = previous;
  }
  return out;
}

/**
 * Keys of `pin` that the registry's key list marks revoked are recorded in `revoked` (for good) and
 * dropped from `retired_keys`. Returns the same object when nothing changed.
 */
function recordRevocations(pin: RegistryKeyPin, doc: RegistryKeysDocument): { pin: RegistryKeyPin; dropped: RevokedRegistryKey[] } {
  const known = new Set(pin.revoked.map((r) => r.fingerprint));
  const ours = new Set([pin.fingerprint, ...pin.retired_keys.map((k) => k.fingerprint)]);
  const added: RevokedRegistryKey[] = doc.keys
    .filter((k) => k.revoked_at && ours.has(k.fingerprint) && !known.has(k.fingerprint))
    .map((k) => ({ fingerprint: k.fingerprint, revoked_at: k.revoked_at!, reason: k.revocation_reason ?? null }));
  const revoked = [...pin.revoked, ...added];
  const isRevoked = new Set(revoked.map((r) => r.fingerprint));
  const retired = pin.retired_keys.filter((k) => !isRevoked.has(k.fingerprint));
  if (added.length === 0 && retired.length === pin.retired_keys.length) return { pin, dropped: [] };
  const dropped = revoked.filter((r) => pin.retired_keys.some((k) => k.fingerprint === r.fingerprint));
  return { pin: { ...pin, retired_keys: retired, revoked }, dropped };
}

function recordedRevocationError(url: string, revoked: RevokedRegistryKey, role: string, target: string): RyeError {
  const reason = revoked.reason ? ` (${revoked.reason})` : "";
  return new RyeError("UNTRUSTED_KEY", `The ${role} key ${revoked.fingerprint} of ${url} was revoked at ${revoked.revoked_at}${reason}`, {
    hint: `Signatures by a revoked key are not trusted. ${resetHint(target)}`,
  });
}

/**
 * What the pin says about a registry signing key: the pinned key or a retired (rotated-out, not revoked)
 * key, its PEM re-hashed to the fingerprint; `revoked` for a key recorded as revoked; undefined otherwise.
 */
export function pinnedKeyFor(pin: RegistryKeyPin, fingerprint: string): { key: PublicKey; retired: boolean } | { revoked: RevokedRegistryKey } | undefined {
  const revoked = pin.revoked.find((r) => r.fingerprint === fingerprint);
  if (revoked) return { revoked };
  if (pin.fingerprint === fingerprint) {
    const key = parsePem(pin.public_key, fingerprint);
    return key ? { key, retired: false } : undefined;
  }
  const entry = pin.retired_keys.find((k) => k.fingerprint === fingerprint);
  const key = entry ? parsePem(entry.public_key, fingerprint) : undefined;
  return key ? { key, retired: true } : undefined;
}

/** The registry's pinned signing key, reconciled with its published key list (see the module comment). */
export async function registryKeyFor(url: string, options: RegistryKeyOptions = {}): Promise<RegistryKeyResult> {
  const env = options.env ?? process.env;
  const target = options.name ?? url;
  const fetchKeys = options.fetchKeys ?? ((u: string) => fetchRegistryKeys(u, env));
  let pin = await getRegistryPin(url, env);
  const pinnedKey = pin ? parsePem(pin.public_key, pin.fingerprint) : undefined;
  if (pin && !pinnedKey) {
    throw new RyeError("UNTRUSTED_KEY", `The pinned key for ${url} does not hash to its fingerprint ${pin.fingerprint}`, {
      hint: `The pin file ${registryPinsPath(env)} was altered. ${resetHint(target)}`,
    });
  }
  const pinnedRevoked = pin?.revoked.find((r) => r.fingerprint === pin!.fingerprint);
  if (pinnedRevoked) throw recordedRevocationError(url, pinnedRevoked, "pinned", target);

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

  // Revocations of keys we hold are recorded first, whatever happens next.
  const warnings: string[] = [];
  if (pin) {
    const reconciled = recordRevocations(pin, doc);
    if (reconciled.pin !== pin) {
      pin = reconciled.pin;
      await savePin(url, pin, env);
      for (const r of reconciled.dropped) {
        warnings.push(`The retired key ${r.fingerprint} of ${url} was revoked at ${r.revoked_at}${r.reason ? ` (${r.reason})` : ""}; items it signed are no longer trusted.`);
      }
    }
  }
  const recorded = (fingerprint: string) => pin?.revoked.find((r) => r.fingerprint === fingerprint);

  const active = doc.keys.find((k) => k.fingerprint === doc.active);
  if (!active) throw new RyeError("UNTRUSTED_KEY", `The registry at ${url} names an active key ${doc.active} that it does not publish`, { hint: resetHint(target) });
  if (active.revoked_at) throw revokedError(url, active, "active", target);
  const activeRecorded = recorded(active.fingerprint);
  if (activeRecorded) throw recordedRevocationError(url, activeRecorded, "active", target);
  const activeKey = parsePem(active.public_key, active.fingerprint);
  if (!activeKey) throw new RyeError("UNTRUSTED_KEY", `The active key of ${url} does not hash to its fingerprint ${active.fingerprint}`, { hint: resetHint(target) });

  if (!pin || !pinnedKey) {
    const earlier = await verifiedPredecessors(doc, activeKey, { url, target });
    const fresh: RegistryKeyPin = { fingerprint: activeKey.fingerprint, public_key: activeKey.pem, pinned_at: new Date().toISOString(), history: [], retired_keys: earlier, revoked: [] };
    await savePin(url, fresh, env);
    const also = earlier.length ? `; also trusting the earlier key(s) it rotated from (${earlier.map((k) => k.fingerprint).join(", ")}) for what they signed` : "";
    return { url, key: activeKey, pin: fresh, status: "first-use", notice: `Pinned registry key ${activeKey.fingerprint} for ${url} (first use)${also}`, warnings, rotations: [], keys: doc };
  }

  const pinnedEntry = doc.keys.find((k) => k.fingerprint === pin.fingerprint);
  if (pinnedEntry?.revoked_at) throw revokedError(url, pinnedEntry, "pinned", target);
  if (activeKey.fingerprint === pin.fingerprint) {
    if (activeKey.pem !== pin.public_key) throw new RyeError("UNTRUSTED_KEY", `The registry at ${url} publishes a different PEM for the pinned key ${pin.fingerprint}`, { hint: resetHint(target) });
    return { url, key: pinnedKey, pin, status: "pinned", warnings, rotations: [], keys: doc };
  }

  const chain = await verifyRotationChain(doc, pinnedKey, activeKey.fingerprint, { url, target });
  for (const key of chain) {
    const entry = doc.keys.find((k) => k.fingerprint === key.fingerprint);
    if (entry?.revoked_at) throw revokedError(url, entry, "intermediate", target);
    const seen = recorded(key.fingerprint);
    if (seen) throw recordedRevocationError(url, seen, "intermediate", target);
  }
  const passed = [pin.fingerprint, ...chain.slice(0, -1).map((k) => k.fingerprint)];
  const now = new Date().toISOString();
  const retiring: RetiredRegistryKey[] = [pinnedKey, ...chain.slice(0, -1)].map((k) => ({ fingerprint: k.fingerprint, public_key: k.pem, retired_at: now }));
  const next: RegistryKeyPin = {
    fingerprint: activeKey.fingerprint,
    public_key: activeKey.pem,
    pinned_at: now,
    history: [...pin.history.filter((fp) => !passed.includes(fp)), ...passed],
    retired_keys: [...pin.retired_keys.filter((k) => !passed.includes(k.fingerprint) && k.fingerprint !== activeKey.fingerprint), ...retiring],
    revoked: pin.revoked,
    ...(pin.checkpoint ? { checkpoint: pin.checkpoint } : {}),
    ...(pin.tree ? { tree: pin.tree } : {}),
  };
  await savePin(url, next, env);
  return {
    url,
    key: activeKey,
    pin: next,
    status: "rotated",
    notice: `Registry ${url} rotated its key ${passed.concat(activeKey.fingerprint).join(" → ")} (rotation statements verified); pinned ${activeKey.fingerprint}`,
    warnings,
    rotations: passed.concat(activeKey.fingerprint),
    keys: doc,
  };
}

/**
 * Refuses a registry signature (item, attestation, checkpoint…) made by any key but the pinned one or,
 * when the key list was just checked for revocations (not offline), one of the pin's retired keys
 * (an item published before a rotation). Returns the key to verify the signature with.
 */
export function assertSignedByPinned(pinned: Pick<RegistryKeyResult, "url" | "key"> & Partial<Pick<RegistryKeyResult, "pin" | "status">>, fingerprint: string): PublicKey {
  if (fingerprint === pinned.key.fingerprint) return pinned.key;
  const known = pinned.pin ? pinnedKeyFor(pinned.pin, fingerprint) : undefined;
  if (known && "key" in known && known.retired && pinned.status !== undefined && pinned.status !== "offline") return known.key;
  const why = known && "revoked" in known ? `; ${fingerprint} was revoked at ${known.revoked.revoked_at}` : known ? "; it is a retired key, and the key list could not be checked for revocations" : "";
  throw new RyeError("UNTRUSTED_KEY", `Signed by key ${fingerprint}, but the pinned key of ${pinned.url} is ${pinned.key.fingerprint}${why}`, {
    hint: `Run \`rye registry keys ${pinned.url}\` to follow a key rotation; a key without a rotation statement is never trusted.`,
  });
}
