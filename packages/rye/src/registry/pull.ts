/**
 * The one verifier of pulled items. Every fetch of an item from a registry (`rye pull`, transparent
 * pulls in search/load/execute, MCP, `rye update`, the registry system tool) ends here, and nothing is
 * written unless all of these hold:
 * - the answer is well formed (`MALFORMED_RESPONSE` otherwise) and is about the item asked for (type,
 *   id, and the version when one was asked);
 * - the inline signature verifies with the registry's pinned key (or a key it rotated away from, not
 *   revoked) and carries the provenance `|rye-registry@<publisher>`;
 * - the publish attestation is signed by a pinned key and is about exactly this item: its subject
 *   (type, id, version) is the one asked for and served, its `file_sha256` is the SHA-256 of the served
 *   bytes and its `content_hash` the inline signature's hash, its publisher the signature's;
 * - the registry's signed Merkle log holds exactly this publish and extends the log seen before (log-proof.ts).
 */
import type { ItemType, PublishAttestation, SignedDocument } from "@rye/core";
import { documentDigest, extensionsFor, parseRegistryItemId, RyeError, sha256Hex } from "@rye/core";
import { pullAnswerSchema } from "./answers.ts";
import { displayText, readJson, registryFetch } from "./http.ts";
import type { FetchKeys } from "./key-pinning.ts";
import { fetchRegistryKeys, registryKeyFor } from "./key-pinning.ts";
import { type LogInclusionRecord, tlogAsk, verifyLogProof } from "./log-proof.ts";
import { mismatch, verifyAttestation, verifyRegistrySignature } from "./registry-signed.ts";
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
  /** The log's proof that this version's publish is in the registry's signed tree (kept in the project lock). */
  log_inclusion: LogInclusionRecord;
  /** Registry metadata, not covered by any signature (shown as warnings only). */
  yanked: boolean;
  deprecated: boolean;
  deprecation_message: string | null;
  /** First-use / rotation notice of the registry key, for the CLI / MCP to show. */
  notice?: string;
  warnings: string[];
}

function pullPath(request: PullRequest, tlogParam: string): string {
  return `/v1/pull/${request.type}/${request.id.split("/").map(encodeURIComponent).join("/")}?${request.version ? `version=${encodeURIComponent(request.version)}&` : ""}${tlogParam}`;
}

/** Fetches and verifies `type id[@version]` from the registry serving its namespace (or `registryUrl`). */
export async function pullItem(request: PullRequest, options: PullOptions = {}): Promise<VerifiedPull> {
  const env = options.env ?? process.env;
  const ref = parseRegistryItemId(request.id);
  const url = options.registryUrl ?? (await resolveRegistryFor(ref.id, { env, projectPath: options.projectPath })).url;
  const label = `${request.type} ${ref.id}${request.version ? `@${request.version}` : ""}`;
  const token = await accessTokenFor(url, env);

  // The item (with its log proof) and the key list are independent requests: made together. The key is pinned
  // (first use) or moved (rotation) only once the registry has answered with an item.
  const keys = (options.fetchKeys ?? ((u: string) => fetchRegistryKeys(u, env)))(url);
  keys.catch(() => undefined);
  const ask = await tlogAsk(url, env);
  const answer = await registryFetch(url, pullPath({ ...request, id: ref.id }, ask.param), { token, kind: "item", env });
  if (answer.status === 404) {
    let message = "";
    try {
      const body = JSON.parse(answer.text) as { error?: { message?: unknown } };
      if (typeof body.error?.message === "string") message = ` (${displayText(body.error.message, 200)})`;
    } catch {
      // a 404 without the error envelope
    }
    throw new RyeError("ITEM_NOT_FOUND", `${label} not found at ${url}${message}`, { hint: `Search for it: rye search "${ref.name}" --type ${request.type}` });
  }
  const body = readJson(answer, pullAnswerSchema);
  const pinned = await registryKeyFor(url, { env, fetchKeys: () => keys });

  if (body.item_type !== request.type || body.item_id !== ref.id) throw mismatch(`it served ${body.item_type} ${displayText(body.item_id, 300)}`, label, url);
  if (request.version && body.version !== request.version) throw mismatch(`it served version ${displayText(body.version, 100)}`, label, url);
  const extension = body.file_extension?.toLowerCase() ?? (request.type === "tool" ? "" : ".md");
  if (!(extensionsFor(request.type) as readonly string[]).includes(extension)) {
    throw new RyeError("MALFORMED_RESPONSE", `The registry at ${url} serves ${label} with an unsupported file extension ${JSON.stringify(displayText(body.file_extension ?? "", 20))}; nothing was written`);
  }
  const content = body.content;

  // 1. The inline signature: a pinned registry key and nothing else, with the registry provenance.
  const signature = await verifyRegistrySignature(content, request.type, pinned, label);
  // 2. The attestation: a pinned key, and about exactly this file.
  const attestation = await verifyAttestation(body.attestation, pinned, {
    subject: { kind: "item", item_type: request.type, id: ref.id, version: body.version },
    served: content,
    signature,
    label,
  });
  const fileSha256 = sha256Hex(content);
  if ((body.file_sha256 !== undefined && body.file_sha256 !== fileSha256) || (body.content_hash !== undefined && body.content_hash !== signature.hash)) {
    throw mismatch("the announced hashes differ from the served file", label, url);
  }
  if (typeof body.log_index === "number" && body.log_index !== attestation.payload.log_index) {
    throw mismatch(`the announced log index ${body.log_index} is not the attestation's ${attestation.payload.log_index}`, label, url);
  }

  // 3. The registry's signed log holds exactly this publish, and extends the log this client verified before.
  const logInclusion = await verifyLogProof(pinned, body.transparency, attestation, ask, { env, projectPath: options.projectPath }, label);

  return {
    type: request.type,
    id: ref.id,
    version: body.version,
    content,
    file_extension: extension,
    content_hash: signature.hash,
    file_sha256: fileSha256,
    registry: url,
    key_fingerprint: signature.key.fingerprint,
    key_pem: signature.key.pem,
    publisher: signature.publisher,
    attestation,
    attestation_digest: documentDigest(attestation),
    log_index: attestation.payload.log_index,
    log_inclusion: logInclusion,
    yanked: body.yanked ?? false,
    deprecated: body.deprecated ?? false,
    deprecation_message: body.deprecation_message ?? null,
    ...(pinned.notice ? { notice: pinned.notice } : {}),
    warnings: pinned.warnings,
  };
}
