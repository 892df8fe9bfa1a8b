/**
 * The checks `rye skill add <namespace>/<name>` runs on a registry skill (packages/rye/src/skills/from-registry.ts),
 * as steps a page can show one by one, plus one result per file: the registry-signed manifest verifies with a key
 * the registry publishes and carries the rye-registry@<publisher> provenance, the publish attestation is signed by
 * the registry and is about exactly this skill, version and manifest, and every served file hashes to what the
 * signed manifest lists (none missing, none added, SKILL.md naming the same skill and version: @rye/core's
 * verifySkill). Pure functions of their inputs (no fetching, no DOM); the same @rye/core code in the browser.
 */
import type { PublicKey, SignatureInfo, SignedDocument, SkillFile, SkillManifest } from "@rye/core";
import { extractSignature, getEd25519, keyResolverFrom, parseSkillManifest, publishAttestationSchema, sha256Hex, verifyDocument, verifyItem, verifySkill } from "@rye/core";
import { CheckFailed, type CheckDefinition, type CheckResult, type KeysAnswer, registryKey } from "./verify";

export type SkillCheckId = "manifest-signature" | "provenance" | "attestation-signature" | "attestation-subject" | "files";

export type SkillCheckDefinition = CheckDefinition<SkillCheckId>;

/** In the order they run. */
export const SKILL_CHECKS: readonly SkillCheckDefinition[] = [
  { id: "manifest-signature", label: "Manifest signature verifies with a published registry key" },
  { id: "provenance", label: "Provenance names the publisher (rye-registry@…)" },
  { id: "attestation-signature", label: "Publish attestation is signed by the registry" },
  { id: "attestation-subject", label: "Attestation is about this skill, version and manifest" },
  { id: "files", label: "Every file matches its SHA-256 in the signed manifest" },
];

export type SkillCheckResult = CheckResult<SkillCheckId>;

export interface SkillFileResult {
  path: string;
  ok: boolean;
  detail: string;
}

/** The parts of GET /v1/skills/{ns}/{name}?version=&files=1 the checks read. */
export interface SkillAnswer {
  item_id?: unknown;
  version?: unknown;
  manifest?: unknown;
  files?: unknown;
  attestation?: { payload?: unknown; signature?: unknown; key_fingerprint?: unknown } | null;
}

export interface SkillVerifyInput {
  /** `namespace/name` */
  id: string;
  name: string;
  version: string;
  answer: SkillAnswer;
  keys: KeysAnswer;
}

export interface SkillVerifyOutcome {
  ok: boolean;
  results: SkillCheckResult[];
  files: SkillFileResult[];
  failed?: SkillCheckDefinition;
  provider: string;
}

const short = (hex: string) => `${hex.slice(0, 16)}…`;

/** Standard base64 to bytes (atob: browsers and Node alike); null when it is not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

interface ServedFile {
  path: string;
  sha256: unknown;
  executable: boolean;
  bytes: Uint8Array | null;
}

function servedFiles(files: unknown): ServedFile[] {
  if (!Array.isArray(files)) return [];
  return files
    .filter((f): f is Record<string, unknown> => typeof f === "object" && f !== null && typeof (f as { path?: unknown }).path === "string")
    .map((f) => ({
      path: f.path as string,
      sha256: f.sha256,
      executable: f.executable === true,
      bytes: typeof f.content_base64 === "string" ? decodeBase64(f.content_base64) : null,
    }));
}

/** One result per file of the signed manifest and per served file it does not list, in path order. */
export function checkSkillFiles(manifest: SkillManifest, files: unknown): SkillFileResult[] {
  const served = new Map(servedFiles(files).map((f) => [f.path, f]));
  const out: SkillFileResult[] = [];
  for (const [path, entry] of Object.entries(manifest.files)) {
    const file = served.get(path);
    if (!file) out.push({ path, ok: false, detail: "Listed in the signed manifest but not served" });
    else if (!file.bytes) out.push({ path, ok: false, detail: "Served without its content" });
    else {
      const digest = sha256Hex(file.bytes);
      if (digest !== entry.sha256) out.push({ path, ok: false, detail: `Hashes to ${short(digest)}, the signed manifest says ${short(entry.sha256)}` });
      else if (file.bytes.length !== entry.size) out.push({ path, ok: false, detail: `${file.bytes.length} bytes, the signed manifest says ${entry.size}` });
      else if (file.executable !== (entry.executable === true)) out.push({ path, ok: false, detail: `Served ${file.executable ? "as" : "not as"} executable, signed ${entry.executable ? "as" : "not as"} executable` });
      else out.push({ path, ok: true, detail: `SHA-256 ${short(digest)}, as signed` });
    }
  }
  for (const path of served.keys()) if (!Object.hasOwn(manifest.files, path)) out.push({ path, ok: false, detail: "Served but not in the signed manifest" });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Runs every check in order, reporting each as soon as it is known, and stops at the first failure. The file
 * results come with the last check (empty when an earlier check failed).
 */
export async function verifySkillAnswer(
  input: SkillVerifyInput,
  onResult: (result: SkillCheckResult, files?: SkillFileResult[]) => void = () => undefined,
): Promise<SkillVerifyOutcome> {
  const provider = (await getEd25519()).name;
  const { answer } = input;
  const manifest = typeof answer.manifest === "string" ? answer.manifest : null;
  const results: SkillCheckResult[] = [];
  let files: SkillFileResult[] = [];
  let sig: SignatureInfo | undefined;
  let signingKey: PublicKey | undefined;

  const steps: Record<SkillCheckId, () => Promise<string> | string> = {
    "manifest-signature": async () => {
      if (manifest === null) throw new CheckFailed("The registry's answer has no manifest");
      if (answer.item_id !== input.id || answer.version !== input.version) throw new CheckFailed(`The registry answered with skill ${String(answer.item_id)}@${String(answer.version)}`);
      const extracted = extractSignature(manifest, "tool");
      if (extracted.status !== "signed") throw new CheckFailed("The manifest carries no registry signature");
      sig = extracted.signature;
      const { key, active } = registryKey(input.keys, sig.fingerprint);
      const verified = await verifyItem(manifest, "tool", keyResolverFrom([key]));
      if (!verified.ok) throw new CheckFailed(`${verified.message} (key ${key.fingerprint})`);
      signingKey = key;
      return `Ed25519 signature verifies with the registry's ${active ? "active" : "published"} key ${key.fingerprint}`;
    },
    provenance: () => {
      if (sig!.provider !== "rye-registry" || !sig!.username) throw new CheckFailed("The manifest's signature lacks the rye-registry@<publisher> provenance");
      return `Re-signed by the registry for publisher ${sig!.username}`;
    },
    "attestation-signature": async () => {
      const att = answer.attestation;
      if (!att || typeof att.signature !== "string") throw new CheckFailed("The registry sent no publish attestation");
      const named = typeof att.key_fingerprint === "string" && att.key_fingerprint !== "" ? att.key_fingerprint : sig!.fingerprint;
      const { key } = named === signingKey!.fingerprint ? { key: signingKey! } : registryKey(input.keys, named);
      const doc = { payload: att.payload, signature: att.signature, key_fingerprint: named } as SignedDocument<unknown>;
      if (!(await verifyDocument(doc, key))) throw new CheckFailed(`The attestation's signature does not verify with registry key ${key.fingerprint}`);
      return `Signed by registry key ${key.fingerprint}`;
    },
    "attestation-subject": () => {
      const parsed = publishAttestationSchema.safeParse(answer.attestation?.payload);
      if (!parsed.success) throw new CheckFailed("The attestation payload is malformed");
      const p = parsed.data;
      if (p.subject.kind !== "item" || p.subject.item_type !== "skill" || p.subject.id !== input.id || p.subject.version !== input.version) {
        throw new CheckFailed(`The attestation is about ${p.subject.item_type ?? p.subject.kind} ${p.subject.id}@${p.subject.version}`);
      }
      const manifestSha256 = sha256Hex(manifest!);
      if (p.file_sha256 !== manifestSha256) throw new CheckFailed(`The attestation is about manifest ${short(p.file_sha256)}, the served one is ${short(manifestSha256)}`);
      if (p.publisher !== sig!.username) throw new CheckFailed(`The attestation names publisher ${p.publisher}, the signature ${sig!.username}`);
      return `skill ${input.id}@${input.version}, manifest SHA-256 ${short(manifestSha256)}, log entry ${p.log_index}`;
    },
    files: async () => {
      let parsed: SkillManifest;
      try {
        parsed = parseSkillManifest(manifest!);
      } catch (err) {
        throw new CheckFailed(`The manifest cannot be read: ${err instanceof Error ? err.message : String(err)}`);
      }
      files = checkSkillFiles(parsed, answer.files);
      const bad = files.filter((f) => !f.ok);
      if (bad.length > 0) throw new CheckFailed(`${bad.length} of ${files.length} files do not match the signed manifest: ${bad.map((f) => f.path).join(", ")}`);
      // The whole skill as the CLI checks it before writing: exactly the listed files, SKILL.md naming this skill and version.
      const skillFiles: SkillFile[] = servedFiles(answer.files).map((f) => ({ path: f.path, bytes: f.bytes!, ...(f.executable ? { executable: true } : {}) }));
      const verified = await verifySkill(manifest!, keyResolverFrom([signingKey!]), skillFiles);
      if (!verified.ok) throw new CheckFailed(verified.message);
      if (parsed.skill.name !== input.name || parsed.skill.version !== input.version) throw new CheckFailed(`The manifest is for ${parsed.skill.name}@${parsed.skill.version}`);
      return `${files.length} ${files.length === 1 ? "file" : "files"} verified`;
    },
  };

  for (const check of SKILL_CHECKS) {
    let result: SkillCheckResult;
    try {
      result = { id: check.id, ok: true, detail: await steps[check.id]() };
    } catch (err) {
      result = { id: check.id, ok: false, detail: err instanceof CheckFailed ? err.message : `Unexpected error: ${err instanceof Error ? err.message : String(err)}` };
    }
    results.push(result);
    onResult(result, check.id === "files" ? files : undefined);
    if (!result.ok) return { ok: false, results, files, failed: check, provider };
  }
  return { ok: true, results, files, provider };
}
