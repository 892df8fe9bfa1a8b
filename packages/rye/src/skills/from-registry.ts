/**
 * A skill from a rye registry (`namespace/name[@version]`, routed like other ids): the registry-signed manifest is
 * verified with the pinned registry key, every file against it, and the publish attestation (signed by the same
 * key) must be about exactly this skill and version and these manifest bytes — before anything is written.
 * See docs/registry-skills.md for the endpoint.
 */
import type { PublishAttestation, SignedDocument, SkillFile } from "@rye/core";
import { keyResolverFrom, publishAttestationSchema, RyeError, sha256Hex, skillNameProblem, verifyDocument, verifySkill } from "@rye/core";
import { readJson, registryFetch } from "../registry/http.ts";
import { assertSignedByPinned, registryKeyFor } from "../registry/key-pinning.ts";
import { tlogAsk, verifyLogProof } from "../registry/log-proof.ts";
import { splitVersion } from "../registry/publish.ts";
import { skillPullAnswerSchema } from "../registry/answers.ts";
import { mismatch, verifyRegistrySignature } from "../registry/registry-signed.ts";
import { resolveRegistryFor } from "../registry/registries.ts";
import { accessTokenFor } from "../registry/session.ts";

const NAMESPACE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** `namespace/name[@version]` of a registry skill, or null when `source` is not shaped like one. */
export function parseSkillRef(source: string): { namespace: string; name: string; version?: string } | null {
  const { id, version } = splitVersion(source);
  const parts = id.split("/");
  if (parts.length !== 2 || !NAMESPACE.test(parts[0]!) || skillNameProblem(parts[1]!) !== null) return null;
  return { namespace: parts[0]!, name: parts[1]!, ...(version ? { version } : {}) };
}

export interface RegistrySkill {
  registry: string;
  id: string;
  name: string;
  version: string;
  files: SkillFile[];
  /** The registry key that signed the manifest, and the publisher its provenance names. */
  registryFingerprint: string;
  publisher: string;
  notices: string[];
}

export async function fetchRegistrySkill(ref: { namespace: string; name: string; version?: string }, ctx: { projectPath: string; env: NodeJS.ProcessEnv }): Promise<RegistrySkill> {
  const id = `${ref.namespace}/${ref.name}`;
  const route = await resolveRegistryFor(id, { env: ctx.env, projectPath: ctx.projectPath });
  const registry = route.url;
  const token = await accessTokenFor(registry, ctx.env);
  const pinned = await registryKeyFor(registry, { env: ctx.env, name: route.name });
  const ask = await tlogAsk(registry, ctx.env);
  const query = `?files=1${ref.version ? `&version=${encodeURIComponent(ref.version)}` : ""}&${ask.param}`;
  const answer = await registryFetch(registry, `/v1/skills/${ref.namespace}/${ref.name}${query}`, { token, env: ctx.env, kind: "bundle" });
  if (answer.status === 404) {
    throw new RyeError("ITEM_NOT_FOUND", `${registry} has no skill ${id}${ref.version ? `@${ref.version}` : ""}`, { hint: token ? "Check the name and version." : "Check the name; a private skill needs `rye login`." });
  }
  const body = readJson(answer, skillPullAnswerSchema);
  const label = `skill ${id}@${body.version}`;
  if (body.item_id !== id) throw mismatch(`it answered for ${body.item_id}`, label, registry);
  if (ref.version && body.version !== ref.version) throw mismatch(`it answered version ${body.version}`, label, registry);

  const signature = await verifyRegistrySignature(body.manifest, "tool", pinned, `The manifest of ${label}`);
  const files: SkillFile[] = body.files.map((f) => {
    const bytes = new Uint8Array(Buffer.from(f.content_base64, "base64"));
    if (sha256Hex(bytes) !== f.sha256) throw mismatch(`${f.path} does not match its own sha256`, label, registry);
    return { path: f.path, bytes, ...(f.executable ? { executable: true } : {}) };
  });
  const verified = await verifySkill(body.manifest, keyResolverFrom([signature.key]), files);
  if (!verified.ok) {
    throw new RyeError(verified.code === "OK" ? "INTEGRITY_MISMATCH" : verified.code, `${label} from ${registry}: ${verified.message}; nothing was written`, {
      hint: "The registry (or something between) served files that are not the signed ones. Do not install it; try again later or tell the registry's operators.",
      details: { missing: verified.missing, changed: verified.changed, added: verified.added },
    });
  }
  if (verified.manifest!.skill.version !== body.version || verified.manifest!.skill.name !== ref.name) throw mismatch(`its manifest is for ${verified.manifest!.skill.name}@${verified.manifest!.skill.version}`, label, registry);

  // The publish attestation: signed by the pinned key, about exactly this skill, version and manifest.
  const doc = { payload: body.attestation.payload, signature: body.attestation.signature, key_fingerprint: body.attestation.key_fingerprint || pinned.key.fingerprint } as SignedDocument<unknown>;
  const attestKey = assertSignedByPinned(pinned, doc.key_fingerprint);
  if (!(await verifyDocument(doc, attestKey))) throw new RyeError("BAD_SIGNATURE", `The publish attestation of ${label} does not verify with the pinned key of ${registry}; nothing was written`, { hint: "The answer was altered; try again later or tell the registry's operators." });
  const attestation = publishAttestationSchema.safeParse(doc.payload);
  if (!attestation.success) throw mismatch("its attestation is malformed", label, registry);
  const a = attestation.data;
  if (a.subject.kind !== "item" || a.subject.item_type !== "skill" || a.subject.id !== id || a.subject.version !== body.version) throw mismatch(`its attestation is about ${a.subject.item_type ?? a.subject.kind} ${a.subject.id}@${a.subject.version}`, label, registry);
  if (a.file_sha256 !== sha256Hex(body.manifest)) throw mismatch("its attestation is about other manifest bytes", label, registry);
  if (a.publisher !== signature.publisher) throw mismatch(`its attestation names publisher ${a.publisher}, the signature ${signature.publisher}`, label, registry);
  await verifyLogProof(pinned, body.transparency, doc as SignedDocument<PublishAttestation>, ask, ctx, label);

  const notices = [...(pinned.notice ? [pinned.notice] : [])];
  if (body.yanked) notices.push(`${label} is yanked${body.yanked_reason ? `: ${body.yanked_reason}` : ""}`);
  if (body.deprecated) notices.push(`${id} is deprecated${body.deprecation_message ? `: ${body.deprecation_message}` : ""}`);
  return { registry, id, name: ref.name, version: body.version, files, registryFingerprint: signature.key.fingerprint, publisher: signature.publisher, notices };
}
