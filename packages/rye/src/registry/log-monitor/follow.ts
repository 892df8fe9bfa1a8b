/**
 * One pass of `rye log monitor` over a registry's Merkle log (docs/transparency.md, "Monitor"):
 *
 * 1. the signed-note checkpoint, opened with the registry's pinned keys (key-pinning.ts, transparency.ts);
 * 2. against the checkpoint kept last time: a smaller tree is LOG_ROLLBACK, another root at the same size or a
 *    consistency proof that does not verify is LOG_INCONSISTENT;
 * 3. every entry from `start` to the tree size, read from the entry bundles one bundle at a time: each leaf is
 *    hashed into the tree's frontier (frontier.ts) and the root it builds must be the signed one, else
 *    LOG_INCLUSION_INVALID (an entry changed, removed or inserted); an entry naming another index is
 *    LOG_ENTRY_MISMATCH. The frontier at `start` is the one kept last time when `start` is where that left off,
 *    else it is read from the hash tiles (and then checked by the same root comparison);
 * 4. the namespace's entries classified (findings.ts). Findings are returned only once the whole range verified.
 *
 * The state (state.ts) is written only after all of that succeeded.
 */
import {
  decodeEntryBundle,
  fromBase64,
  leafHash as leafHashOf,
  MAX_ENTRY_BYTES,
  perfectSubtrees,
  RyeError,
  TILE_WIDTH,
  tileMap,
  tileNodeReader,
  tilePath,
  tilesForRanges,
  tileWidthAt,
  toBase64,
  verifyConsistency,
} from "@rye/core";
import type { PublicKey } from "@rye/core";
import { answerError, readJson, registryFetch } from "../http.ts";
import { pinnedKeyFor, registryKeyFor } from "../key-pinning.ts";
import { openTreeCheckpoint, type VerifiedTreeCheckpoint } from "../transparency.ts";
import { appendLeaf, emptyFrontier, type Frontier, frontierOf, frontierRoot } from "./frontier.ts";
import { type AllowedSet, type Finding, findingFor, type LogEntry } from "./findings.ts";
import type { NamespaceState, RegistryMonitorState } from "./state.ts";

/** Findings kept per pass; beyond it they are counted (`findings_dropped`), so a flooded namespace cannot exhaust memory. */
export const MAX_FINDINGS_PER_PASS = 10_000;
/** An entry bundle: 256 entries of at most 65 535 bytes, each with a 2-byte length. */
const MAX_BUNDLE_BYTES = TILE_WIDTH * (2 + MAX_ENTRY_BYTES);
const HASH_TILE_BYTES = TILE_WIDTH * 32;

export interface PassInput {
  registryUrl: string;
  namespace: string;
  /** First index to check; default: where the namespace's state left off, else 0. */
  since?: number | undefined;
  allowed: Omit<AllowedSet, "keys"> & { extraKeys: ReadonlySet<string> };
  /** The registry's state from the last pass, if any. */
  state: RegistryMonitorState | undefined;
  /** The namespace's registered keys, asked only when the namespace is followed for the first time. */
  registeredKeys: () => Promise<string[]>;
  env: NodeJS.ProcessEnv;
  warn?: (text: string) => void;
}

export interface PassResult {
  registry: string;
  namespace: string;
  tree_size: number;
  root_hash: string;
  /** The entries checked: [from, to). */
  checked: { from: number; to: number };
  /** The keys allowed for this namespace (recorded ones and --key). */
  allowed_keys: string[];
  findings: Finding[];
  findings_dropped: number;
  /** The state to keep (written by the caller). */
  state: RegistryMonitorState;
}

function refuse(code: "LOG_ROLLBACK" | "LOG_INCONSISTENT" | "LOG_INCLUSION_INVALID" | "LOG_ENTRY_MISMATCH", message: string, details: Record<string, unknown>): RyeError {
  return new RyeError(code, message, { details });
}

/** The keys a checkpoint may be signed with: the pinned key, and the retired keys while revocations could be checked. */
async function checkpointKeys(registryUrl: string, env: NodeJS.ProcessEnv, warn: (text: string) => void): Promise<PublicKey[]> {
  const pinned = await registryKeyFor(registryUrl, { env });
  if (pinned.notice) warn(pinned.notice);
  for (const w of pinned.warnings) warn(w);
  const keys = [pinned.key];
  if (pinned.status !== "offline") {
    for (const retired of pinned.pin.retired_keys) {
      const known = pinnedKeyFor(pinned.pin, retired.fingerprint);
      if (known && "key" in known) keys.push(known.key);
    }
  }
  return keys;
}

async function fetchCheckpoint(registryUrl: string, env: NodeJS.ProcessEnv, keys: readonly PublicKey[]): Promise<VerifiedTreeCheckpoint> {
  const answer = await registryFetch(registryUrl, "/v1/tlog/checkpoint", { env, headers: { accept: "text/plain" } });
  if (!answer.ok) throw answerError(answer);
  return openTreeCheckpoint(registryUrl, answer.text, keys);
}

async function fetchBinary(registryUrl: string, path: string, maxBytes: number, env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  const answer = await registryFetch(registryUrl, `/v1/tlog/${path}`, { env, binary: true, headers: { accept: "application/octet-stream" }, limits: { maxBytes } });
  if (!answer.ok) throw answerError(answer);
  return answer.bytes ?? new Uint8Array(0);
}

function malformed(registryUrl: string, what: string): RyeError {
  return new RyeError("MALFORMED_RESPONSE", `${registryUrl} sent ${what}; the log was not checked`, { details: { registry: registryUrl } });
}

/** Checks that `checkpoint` extends the one kept last time (LOG_ROLLBACK / LOG_INCONSISTENT otherwise). */
async function checkExtends(registryUrl: string, kept: RegistryMonitorState["checkpoint"], checkpoint: VerifiedTreeCheckpoint, env: NodeJS.ProcessEnv): Promise<void> {
  const details = { registry: registryUrl, kept: { size: kept.size, root_hash: kept.root_hash }, served: { size: checkpoint.size, root_hash: checkpoint.root_hash } };
  if (checkpoint.size < kept.size) {
    throw refuse("LOG_ROLLBACK", `${registryUrl} serves a log of ${checkpoint.size} entries, older than the ${kept.size} this monitor verified before`, details);
  }
  if (checkpoint.size === kept.size) {
    if (checkpoint.root_hash !== kept.root_hash) throw refuse("LOG_INCONSISTENT", `${registryUrl} signed another tree of ${kept.size} entries than the one this monitor verified before`, details);
    return;
  }
  if (kept.size === 0) return;
  const proof = readJson<{ proof?: unknown }>(await registryFetch(registryUrl, `/v1/tlog/proof/consistency?from=${kept.size}&to=${checkpoint.size}`, { env }));
  if (!Array.isArray(proof.proof) || proof.proof.length > 128 || proof.proof.some((h) => typeof h !== "string")) throw malformed(registryUrl, "a consistency proof that is not a list of hashes");
  let hashes: Uint8Array[];
  try {
    hashes = (proof.proof as string[]).map((h) => fromBase64(h));
  } catch {
    throw malformed(registryUrl, "a consistency proof that is not base64");
  }
  if (!verifyConsistency(kept.size, checkpoint.size, hashes, fromBase64(kept.root_hash), fromBase64(checkpoint.root_hash))) {
    throw refuse("LOG_INCONSISTENT", `${registryUrl}'s log of ${checkpoint.size} entries does not extend the ${kept.size} this monitor verified before (history rewritten)`, details);
  }
}

/** The frontier at `start`: the kept one when it is at `start`, else read from the hash tiles of the tree of `size`. */
async function frontierAt(registryUrl: string, start: number, size: number, state: RegistryMonitorState | undefined, env: NodeJS.ProcessEnv): Promise<Frontier> {
  if (start === 0) return emptyFrontier();
  if (state && state.checkpoint.size === start) {
    const kept = frontierOf(start, state.frontier.map((h) => fromBase64(h)));
    if (kept) return kept;
  }
  const ranges = perfectSubtrees({ lo: 0, hi: start }).map((n) => ({ lo: n.index * 2 ** n.level, hi: (n.index + 1) * 2 ** n.level }));
  const rows: { level: number; index: number; hashes: Uint8Array }[] = [];
  for (const tile of tilesForRanges(ranges)) {
    const width = tileWidthAt(tile, size);
    if (width === 0) throw malformed(registryUrl, `a checkpoint of ${size} entries but no tile ${tile.level}/${tile.index}`);
    rows.push({ ...tile, hashes: await fetchBinary(registryUrl, tilePath(tile.level, tile.index, width), HASH_TILE_BYTES, env) });
  }
  const read = tileNodeReader(tileMap(rows));
  try {
    return frontierOf(start, ranges.map((r) => read(Math.log2(r.hi - r.lo), r.lo / (r.hi - r.lo))))!;
  } catch {
    throw malformed(registryUrl, "hash tiles shorter than its checkpoint calls for");
  }
}

function parseLeaf(registryUrl: string, leaf: Uint8Array, index: number): LogEntry {
  let entry: unknown;
  try {
    entry = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(leaf));
  } catch {
    throw malformed(registryUrl, `log entry ${index} that is not UTF-8 JSON`);
  }
  const e = entry as { index?: unknown; kind?: unknown; payload?: unknown };
  if (typeof entry !== "object" || entry === null || typeof e.kind !== "string" || typeof e.payload !== "object" || e.payload === null || Array.isArray(e.payload)) {
    throw malformed(registryUrl, `log entry ${index} that is not {index, kind, payload}`);
  }
  if (e.index !== index) throw refuse("LOG_ENTRY_MISMATCH", `${registryUrl} serves, at position ${index} of its log, an entry that names index ${String(e.index)}`, { registry: registryUrl, index });
  return { index, kind: e.kind, payload: e.payload as Record<string, unknown> };
}

/** Verifies the log and classifies the namespace's entries; throws (nothing to keep) when any check fails. */
export async function monitorPass(input: PassInput): Promise<PassResult> {
  const { registryUrl, namespace, env } = input;
  const warn = input.warn ?? (() => undefined);
  const checkpoint = await fetchCheckpoint(registryUrl, env, await checkpointKeys(registryUrl, env, warn));
  if (input.state) await checkExtends(registryUrl, input.state.checkpoint, checkpoint, env);

  const known: NamespaceState | undefined = input.state?.namespaces[namespace];
  const now = new Date().toISOString();
  const nsState: NamespaceState = known ?? { keys: (await input.registeredKeys()).map((fingerprint) => ({ fingerprint, recorded_at: now })), next_index: 0, followed_at: now };
  const start = input.since ?? nsState.next_index;
  if (!Number.isSafeInteger(start) || start < 0 || start > checkpoint.size) {
    throw new RyeError("BAD_REQUEST", `--since ${start} is beyond the log's ${checkpoint.size} entries`, { hint: `Use an index from 0 to ${checkpoint.size}.` });
  }
  const allowed: AllowedSet = { keys: new Set([...nsState.keys.map((k) => k.fingerprint), ...input.allowed.extraKeys]), publishers: input.allowed.publishers, credentials: input.allowed.credentials };

  const frontier = await frontierAt(registryUrl, start, checkpoint.size, input.state, env);
  const findings: Finding[] = [];
  let dropped = 0;
  for (let bundle = Math.floor(start / TILE_WIDTH); bundle * TILE_WIDTH < checkpoint.size; bundle++) {
    const first = bundle * TILE_WIDTH;
    const width = Math.min(TILE_WIDTH, checkpoint.size - first);
    const leaves = decodeEntryBundle(await fetchBinary(registryUrl, tilePath("entries", bundle, width), MAX_BUNDLE_BYTES, env));
    if (!leaves || leaves.length !== width) throw malformed(registryUrl, `entry bundle ${bundle} that does not hold ${width} entries`);
    for (let i = Math.max(start, first) - first; i < width; i++) {
      const index = first + i;
      appendLeaf(frontier, leafHashOf(leaves[i]!));
      const finding = findingFor(parseLeaf(registryUrl, leaves[i]!, index), namespace, allowed);
      if (finding && findings.length < MAX_FINDINGS_PER_PASS) findings.push(finding);
      else if (finding) dropped += 1;
    }
  }
  const root = toBase64(frontierRoot(frontier));
  if (root !== checkpoint.root_hash) {
    throw refuse("LOG_INCLUSION_INVALID", `The entries ${registryUrl} serves from index ${start} do not build the tree its checkpoint of ${checkpoint.size} entries signs (an entry was changed, removed or inserted); nothing was reported or kept`, {
      registry: registryUrl,
      check: "entries",
      from: start,
      tree_size: checkpoint.size,
      signed_root: checkpoint.root_hash,
      computed_root: root,
    });
  }

  const state: RegistryMonitorState = {
    origin: checkpoint.origin,
    checkpoint: { size: checkpoint.size, root_hash: checkpoint.root_hash, note: checkpoint.note, verified_at: now },
    frontier: frontier.nodes.map((n) => toBase64(n.hash)),
    namespaces: { ...input.state?.namespaces, [namespace]: { ...nsState, next_index: checkpoint.size } },
  };
  return {
    registry: registryUrl,
    namespace,
    tree_size: checkpoint.size,
    root_hash: checkpoint.root_hash,
    checked: { from: start, to: checkpoint.size },
    allowed_keys: [...allowed.keys],
    findings,
    findings_dropped: dropped,
    state,
  };
}
