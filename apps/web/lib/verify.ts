/**
 * The checks the `rye` CLI runs on a pulled item (packages/rye/src/registry/pull.ts), as a list of
 * steps a page can show one by one. Same @rye/core code in the browser: Ed25519 through WebCrypto
 * where the browser supports it, @noble/ed25519 otherwise (core's getEd25519 probes once with an
 * RFC 8032 test vector and falls back).
 *
 * The registry's keys come from the same registry here (GET /v1/keys), so a passing run proves that
 * the served file is the one the registry signed and attested; the CLI additionally pins the key on
 * first use. Pure functions of their inputs: no fetching, no DOM.
 */
import type { ItemType, PublicKey, SignatureInfo, SignedDocument } from "@rye/core";
import {
  computeContentHash,
  extractSignature,
  getEd25519,
  keyResolverFrom,
  publicKeyFromPem,
  publishAttestationSchema,
  sha256Hex,
  verifyDocument,
  verifyItem,
} from "@rye/core";

export type CheckId = "content-hash" | "registry-signature" | "provenance" | "attestation-signature" | "attestation-subject" | "page-match";

export interface CheckDefinition<Id extends string = CheckId> {
  id: Id;
  /** What is checked, shown before and while it runs. */
  label: string;
}

/** In the order they run. */
export const CHECKS: readonly CheckDefinition[] = [
  { id: "content-hash", label: "Content hash matches the signature line" },
  { id: "registry-signature", label: "Registry signature verifies with a published registry key" },
  { id: "provenance", label: "Provenance names the publisher (rye-registry@…)" },
  { id: "attestation-signature", label: "Publish attestation is signed by the registry" },
  { id: "attestation-subject", label: "Attestation is about this file (type, id, version, hashes)" },
  { id: "page-match", label: "The verified file is the one shown on this page" },
];

export interface CheckResult<Id extends string = CheckId> {
  id: Id;
  ok: boolean;
  /** One sentence: what was found. */
  detail: string;
}

/** The parts of GET /v1/pull/{type}/{id} the checks read. */
export interface PullAnswer {
  item_type?: unknown;
  item_id?: unknown;
  version?: unknown;
  content?: unknown;
  attestation?: { payload?: unknown; signature?: unknown; key_fingerprint?: unknown } | null;
}

/** The parts of GET /v1/keys the checks read. */
export interface KeysAnswer {
  active?: string;
  keys?: { fingerprint: string; public_key: string; revoked_at?: string | null; active?: boolean }[];
}

export interface VerifyInput {
  type: ItemType;
  id: string;
  version: string;
  pull: PullAnswer;
  keys: KeysAnswer;
  /** SHA-256 of the file the page rendered: the last check compares it with the verified file. */
  expectedFileSha256?: string;
}

export interface VerifyOutcome {
  ok: boolean;
  results: CheckResult[];
  /** The first failed check. */
  failed?: CheckDefinition;
  /** "webcrypto" or "noble" (or "node" in Node processes). */
  provider: string;
}

const short = (hex: string) => `${hex.slice(0, 16)}…`;

/** A check that failed, with its one-sentence reason (also used by lib/skill-verify.ts). */
export class CheckFailed extends Error {}

/** The registry key with this fingerprint, if the registry publishes it and has not revoked it. */
export function registryKey(keys: KeysAnswer, fingerprint: string): { key: PublicKey; active: boolean } {
  const entry = (keys.keys ?? []).find((k) => k.fingerprint === fingerprint);
  if (!entry) throw new CheckFailed(`Signed with key ${fingerprint}, which this registry does not publish at /v1/keys`);
  if (entry.revoked_at) throw new CheckFailed(`Signed with registry key ${fingerprint}, revoked on ${entry.revoked_at.slice(0, 10)}`);
  let key: PublicKey;
  try {
    key = publicKeyFromPem(entry.public_key);
  } catch {
    throw new CheckFailed(`The registry's key ${fingerprint} is not a valid Ed25519 public key`);
  }
  if (key.fingerprint !== fingerprint) throw new CheckFailed(`The registry's key listed as ${fingerprint} has fingerprint ${key.fingerprint}`);
  return { key, active: entry.active === true || keys.active === fingerprint };
}

/**
 * Runs every check in order, reporting each result through `onResult` as soon as it is known, and
 * stops at the first failure (later checks build on the earlier ones).
 */
export async function verifyPulledItem(input: VerifyInput, onResult: (result: CheckResult) => void = () => undefined): Promise<VerifyOutcome> {
  const provider = (await getEd25519()).name;
  const results: CheckResult[] = [];
  const { type, pull } = input;
  const content = typeof pull.content === "string" ? pull.content : null;
  let sig: SignatureInfo | undefined;
  let signingKey: PublicKey | undefined;

  const steps: Record<CheckId, () => Promise<string> | string> = {
    "content-hash": () => {
      if (content === null) throw new CheckFailed("The registry's answer has no file content");
      if (pull.item_type !== type || pull.item_id !== input.id || pull.version !== input.version) {
        throw new CheckFailed(`The registry answered with ${String(pull.item_type)} ${String(pull.item_id)}@${String(pull.version)}`);
      }
      const extracted = extractSignature(content, type);
      if (extracted.status === "unsigned" || extracted.status === "legacy") throw new CheckFailed("The file has no rye:signed line");
      if (extracted.status === "malformed") throw new CheckFailed(`The signature line is malformed: ${extracted.reason}`);
      sig = extracted.signature;
      let hash: string;
      try {
        hash = computeContentHash(content, type);
      } catch (err) {
        throw new CheckFailed(`The content hash cannot be computed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (hash !== sig.hash) throw new CheckFailed(`The content hashes to ${short(hash)}, the signature line says ${short(sig.hash)}: the file changed after signing`);
      return `SHA-256 of the signed content is ${short(hash)}, as the signature line states`;
    },
    "registry-signature": async () => {
      const { key, active } = registryKey(input.keys, sig!.fingerprint);
      const verified = await verifyItem(content!, type, keyResolverFrom([key]));
      if (!verified.ok) throw new CheckFailed(`${verified.message} (key ${key.fingerprint})`);
      signingKey = key;
      return `Ed25519 signature verifies with the registry's ${active ? "active" : "published"} key ${key.fingerprint}`;
    },
    provenance: () => {
      if (sig!.provider !== "rye-registry" || !sig!.username) throw new CheckFailed("The signature line lacks the rye-registry@<publisher> provenance");
      return `Re-signed by the registry for publisher ${sig!.username} (rye-registry@${sig!.username})`;
    },
    "attestation-signature": async () => {
      const att = pull.attestation;
      if (!att || typeof att.signature !== "string") throw new CheckFailed("The registry sent no publish attestation");
      // The fingerprint field only names the key (older registries sent ""): the signature must verify regardless.
      const named = typeof att.key_fingerprint === "string" && att.key_fingerprint !== "" ? att.key_fingerprint : sig!.fingerprint;
      const { key } = named === signingKey!.fingerprint ? { key: signingKey! } : registryKey(input.keys, named);
      const doc = { payload: att.payload, signature: att.signature, key_fingerprint: named } as SignedDocument<unknown>;
      if (!(await verifyDocument(doc, key))) throw new CheckFailed(`The attestation's signature does not verify with registry key ${key.fingerprint}`);
      return `Signed by registry key ${key.fingerprint}`;
    },
    "attestation-subject": () => {
      const parsed = publishAttestationSchema.safeParse(pull.attestation?.payload);
      if (!parsed.success) throw new CheckFailed("The attestation payload is malformed");
      const p = parsed.data;
      if (p.subject.kind !== "item" || p.subject.item_type !== type || p.subject.id !== input.id || p.subject.version !== input.version) {
        throw new CheckFailed(`The attestation is about ${p.subject.item_type ?? p.subject.kind} ${p.subject.id}@${p.subject.version}`);
      }
      const fileSha256 = sha256Hex(content!);
      if (p.file_sha256 !== fileSha256) throw new CheckFailed(`The attestation's file SHA-256 ${short(p.file_sha256)} is not the served file's ${short(fileSha256)}`);
      if (p.content_hash !== sig!.hash) throw new CheckFailed(`The attestation's content hash ${short(p.content_hash)} is not the signature's ${short(sig!.hash)}`);
      if (p.publisher !== sig!.username) throw new CheckFailed(`The attestation names publisher ${p.publisher}, the signature ${sig!.username}`);
      return `${type} ${input.id}@${input.version}, file SHA-256 ${short(fileSha256)}, log entry ${p.log_index}`;
    },
    "page-match": () => {
      const fileSha256 = sha256Hex(content!);
      if (input.expectedFileSha256 === undefined) return "No page copy to compare";
      if (fileSha256 !== input.expectedFileSha256) throw new CheckFailed(`The page shows a file with SHA-256 ${short(input.expectedFileSha256)}, the registry now serves ${short(fileSha256)}`);
      return `Same SHA-256 ${short(fileSha256)}`;
    },
  };

  for (const check of CHECKS) {
    if (check.id === "page-match" && input.expectedFileSha256 === undefined) continue;
    let result: CheckResult;
    try {
      result = { id: check.id, ok: true, detail: await steps[check.id]() };
    } catch (err) {
      const detail = err instanceof CheckFailed ? err.message : `Unexpected error: ${err instanceof Error ? err.message : String(err)}`;
      result = { id: check.id, ok: false, detail };
    }
    results.push(result);
    onResult(result);
    if (!result.ok) return { ok: false, results, failed: check, provider };
  }
  return { ok: true, results, provider };
}
