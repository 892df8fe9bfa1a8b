/**
 * Pulling one item from a registry and verifying it BEFORE anything is written:
 * - the inline signature verifies with the registry's pinned key only (any other key is refused);
 * - it carries the provenance suffix `|rye-registry@<publisher>`;
 * - the publish attestation is signed by the same pinned key and its payload matches the item
 *   (subject type/id/version, `file_sha256` = SHA-256 of the served file, `content_hash` = the
 *   signature's hash).
 */
import type { ItemType, PublishAttestation, SignedDocument } from "@rye/core";
import {
  documentDigest,
  extensionsFor,
  extractSignature,
  keyResolverFrom,
  parseRegistryItemId,
  publishAttestationSchema,
  RyeError,
  sha256Hex,
  verifyDocument,
  verifyItem,
} from "@rye/core";
import { readJson, registryFetch } from "./http.ts";
import type { FetchKeys } from "./key-pinning.ts";
import { assertSignedByPinned, registryKeyFor } from "./key-pinning.ts";
import { resolveRegistryFor } from "./registries.ts";
import { accessTokenFor } from "./session.ts";

export interface PullRequest {
  type: ItemType;
  id: string;
  version?: string | undefined;
}

export interface PullOptions {
  projectPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Pull from this registry instead of the one routing picks (a pinned item's registry). */
  registryUrl?: string | undefined;
  timeoutMs?: number;
  fetchKeys?: FetchKeys;
}

/** A pulled item, verified. Nothing is written by `pullItem`. */
export interface VerifiedPull {
  type: ItemType;
  id: string;
  version: string;
  content: string;
  file_extension: string;
  content_hash: string;
  file_sha256: string;
  registry: string;
  key_fingerprint: string;
  /** PEM of the pinned registry key the item verified with. */
  key_pem: string;
  publisher: string;
  attestation: SignedDocument<PublishAttestation>;
  attestation_digest: string;
  log_index: number | null;
  /** First-use / rotation notice of the registry key, for the CLI / MCP to show. */
  notice?: string;
  warnings: string[];
}

interface PullResponse {
  item_type?: unknown;
  item_id?: unknown;
  version?: unknown;
  content?: unknown;
  file_extension?: unknown;
  content_hash?: unknown;
  file_sha256?: unknown;
  attestation?: { payload?: unknown; signature?: unknown; key_fingerprint?: unknown } | null;
  log_index?: unknown;
}

function mismatch(what: string, ref: string, details?: unknown): RyeError {
  return new RyeError("INTEGRITY_MISMATCH", `The registry's answer for ${ref} does not match: ${what}`, {
    hint: "Nothing was written. The registry or the network altered the item; try again later or report it to the registry operators.",
    ...(details !== undefined ? { details } : {}),
  });
}

/** Fetches and verifies `type id[@version]` from the registry serving its namespace. */
export async function pullItem(request: PullRequest, options: PullOptions = {}): Promise<VerifiedPull> {
  const env = options.env ?? process.env;
  const ref = parseRegistryItemId(request.id);
  const url = options.registryUrl ?? (await resolveRegistryFor(ref.id, { env, projectPath: options.projectPath })).url;
  const label = `${request.type} ${ref.id}${request.version ? `@${request.version}` : ""}`;
  const token = await accessTokenFor(url, env);
  const path = `/v1/pull/${request.type}/${ref.id.split("/").map(encodeURIComponent).join("/")}${request.version ? `?version=${encodeURIComponent(request.version)}` : ""}`;
  const res = await registryFetch(url, path, { token, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  if (res.status === 404) {
    const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new RyeError("ITEM_NOT_FOUND", `${label} not found at ${url}${body.error?.message ? ` (${body.error.message})` : ""}`, {
      hint: `Search for it: rye search "${ref.name}" --type ${request.type}`,
    });
  }
  if (res.status >= 500) throw new RyeError("UNAVAILABLE", `The registry at ${url} answered ${res.status} for ${label}`, { hint: "Try again later." });
  const body = await readJson<PullResponse>(res);

  if (typeof body.content !== "string" || typeof body.version !== "string" || !body.attestation) {
    throw new RyeError("UNAVAILABLE", `The registry at ${url} sent a malformed pull response for ${label}`);
  }
  if (body.item_type !== request.type || body.item_id !== ref.id) {
    throw mismatch(`it served ${String(body.item_type)} ${String(body.item_id)}`, label);
  }
  if (request.version && body.version !== request.version) throw mismatch(`it served version ${body.version}`, label);
  const extension = typeof body.file_extension === "string" ? body.file_extension.toLowerCase() : request.type === "tool" ? "" : ".md";
  if (!(extensionsFor(request.type) as readonly string[]).includes(extension)) {
    throw new RyeError("VALIDATION_FAILED", `The registry serves ${label} with an unsupported file extension ${JSON.stringify(body.file_extension)}`);
  }

  const pinned = await registryKeyFor(url, { env, ...(options.fetchKeys ? { fetchKeys: options.fetchKeys } : {}) });
  const content = body.content;

  // 1. The inline signature: the pinned registry key and nothing else, with the registry provenance.
  const extracted = extractSignature(content, request.type);
  if (extracted.status !== "signed") {
    throw new RyeError("BAD_SIGNATURE", `${label} from ${url} carries no registry signature`, { hint: "Nothing was written; registry items are always signed by the registry." });
  }
  const sig = extracted.signature;
  const key = assertSignedByPinned(pinned, sig.fingerprint);
  const verified = await verifyItem(content, request.type, keyResolverFrom([key]));
  if (!verified.ok) {
    throw new RyeError(verified.code === "OK" ? "BAD_SIGNATURE" : verified.code, `${label} from ${url} failed verification: ${verified.message}`, {
      hint: "Nothing was written.",
      details: { fingerprint: sig.fingerprint, code: verified.code },
    });
  }
  if (sig.provider !== "rye-registry" || !sig.username) {
    throw new RyeError("BAD_SIGNATURE", `${label} from ${url} is signed by the registry key but lacks the rye-registry@<publisher> provenance`, { hint: "Nothing was written." });
  }
  const contentHash = verified.contentHash ?? sig.hash;
  const fileSha256 = sha256Hex(content);

  // 2. The attestation: same key, and about exactly this file.
  // The fingerprint field only names the key; the signature must verify with the pinned key regardless.
  // (apps/api GET /v1/pull currently sends "" here: its signature-line regex misses timestamps with ':'.)
  const announced = body.attestation.key_fingerprint;
  const doc = {
    payload: body.attestation.payload,
    signature: body.attestation.signature,
    key_fingerprint: typeof announced === "string" && announced !== "" ? announced : pinned.key.fingerprint,
  } as SignedDocument<unknown>;
  if (typeof doc.signature !== "string") throw mismatch("the attestation is malformed", label);
  const attKey = assertSignedByPinned(pinned, doc.key_fingerprint);
  if (!(await verifyDocument(doc, attKey))) {
    throw new RyeError("BAD_SIGNATURE", `The publish attestation of ${label} does not verify with the pinned key ${attKey.fingerprint} of ${url}`, { hint: "Nothing was written." });
  }
  const payload = publishAttestationSchema.safeParse(doc.payload);
  if (!payload.success) throw mismatch("the attestation payload is malformed", label);
  const p = payload.data;
  if (p.subject.kind !== "item" || p.subject.item_type !== request.type || p.subject.id !== ref.id || p.subject.version !== body.version) {
    throw mismatch(`the attestation is about ${p.subject.item_type ?? p.subject.kind} ${p.subject.id}@${p.subject.version}`, label, { subject: p.subject });
  }
  if (p.file_sha256 !== fileSha256) throw mismatch(`the attestation's file_sha256 ${p.file_sha256} is not the served file's ${fileSha256}`, label);
  if (p.content_hash !== sig.hash || p.content_hash !== contentHash) throw mismatch(`the attestation's content_hash ${p.content_hash} is not the signature's ${sig.hash}`, label);
  if (p.publisher !== sig.username) throw mismatch(`the attestation names publisher ${p.publisher}, the signature ${sig.username}`, label);
  if ((typeof body.file_sha256 === "string" && body.file_sha256 !== fileSha256) || (typeof body.content_hash === "string" && body.content_hash !== contentHash)) {
    throw mismatch("the announced hashes differ from the served file", label);
  }

  // The registry's document as signed (zod would drop fields it does not know from the digest).
  const attestation = doc as SignedDocument<PublishAttestation>;
  return {
    type: request.type,
    id: ref.id,
    version: body.version,
    content,
    file_extension: extension,
    content_hash: contentHash,
    file_sha256: fileSha256,
    registry: url,
    key_fingerprint: key.fingerprint,
    key_pem: key.pem,
    publisher: sig.username,
    attestation,
    attestation_digest: documentDigest(attestation),
    log_index: typeof body.log_index === "number" ? body.log_index : null,
    ...(pinned.notice ? { notice: pinned.notice } : {}),
    warnings: pinned.warnings,
  };
}
