/**
 * `rye push <skill dir>`: pushes an Agent Skill folder (SKILL.md + files) to a registry. The folder's own signed
 * `.rye/manifest.yaml` is sent when it verifies with your key and matches the files; otherwise the manifest is
 * built and signed with your key in memory (the folder is left untouched: SKILL.md is never rewritten). The
 * registry answers with the manifest re-signed by its key, which is verified with the pinned registry key.
 */
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { KeyPair } from "@rye/core";
import { buildSkillManifest, checkSkillFiles, keyResolverFrom, RyeError, sha256Hex, SKILL_MANIFEST_PATH, signSkillManifest, skillVersionNote, verifySkill } from "@rye/core";
import { KeyStore } from "../keys/keystore.ts";
import { readSkillFolder } from "../skills/folder.ts";
import { type SkillPushAnswer, skillPushAnswerSchema } from "./answers.ts";
import { readJson, registryFetch } from "./http.ts";
import { whoAmI } from "./login.ts";
import type { PublishContext, PushApproval, PushReview, Visibility } from "./publish.ts";
import { ensureKeyRegistered, pushApprovalOf, verifyWithPinnedKey } from "./publish.ts";
import { resolveRegistryFor } from "./registries.ts";
import { normalizeRegistryUrl } from "./registry-url.ts";
import { accessTokenFor } from "./session.ts";

export interface PushSkillOptions {
  dir: string;
  visibility?: Visibility;
  registryUrl?: string;
  namespace?: string;
  /** The version, given beside the files, of a skill whose SKILL.md declares none (or none readable as semver). */
  version?: string;
}

export interface PushSkillResult {
  status: "pushed";
  registry: string;
  item_type: "skill";
  item_id: string;
  version: string;
  /** SKILL.md's metadata.version as written (null: none), and how the version was read from it when not as is. */
  declared_version: string | null;
  version_note: string | null;
  path: string;
  files: number;
  /** "folder": the folder's .rye/manifest.yaml was sent; "signed": a manifest was signed in memory. */
  manifest: "folder" | "signed";
  author_fingerprint: string;
  registry_fingerprint: string;
  key_created: boolean;
  key_registration: "registered" | "already_registered";
  log_index: number | null;
  /** True when the registry holds the version for approval: invisible until approved. */
  held: boolean;
  approval: PushApproval | null;
  /** The registry's publish-time review: risk and findings, each with file and line. */
  review: PushReview | null;
}

/** The folder's signed manifest when it verifies with `key` against the files and names `version`, else null. */
async function folderManifest(dir: string, key: KeyPair, files: Awaited<ReturnType<typeof readSkillFolder>>, version: string): Promise<string | null> {
  const text = await readFile(join(dir, ...SKILL_MANIFEST_PATH.split("/")), "utf8").catch(() => null);
  if (text === null) return null;
  const result = await verifySkill(text, keyResolverFrom([key.publicKey]), files);
  return result.ok && result.manifest?.skill.version === version ? text : null;
}

export async function pushSkill(options: PushSkillOptions, ctx: PublishContext): Promise<PushSkillResult> {
  const dir = resolve(ctx.projectPath, options.dir);
  const files = await readSkillFolder(dir);
  // Validates as `rye skill validate` does (name = folder name, version, limits): VALIDATION_FAILED lists the issues.
  // The version is SKILL.md's (MAJOR.MINOR read as MAJOR.MINOR.0) or the one given: it travels in the manifest, and
  // not a byte of the files changes.
  const manifest = buildSkillManifest(files, basename(dir), options.version === undefined ? {} : { version: options.version });
  const declaredVersion = checkSkillFiles(files).frontmatter?.metadata?.version ?? null;

  const registryUrl = options.registryUrl ? normalizeRegistryUrl(options.registryUrl) : (await resolveRegistryFor(options.namespace, { env: ctx.env, projectPath: ctx.projectPath })).url;
  const token = await accessTokenFor(registryUrl, ctx.env);
  if (!token) throw new RyeError("UNAUTHORIZED", `Not signed in to ${registryUrl}`, { hint: `Run: rye login --registry ${registryUrl} (or set RYE_TOKEN)` });
  const namespace = options.namespace ?? (await whoAmI(registryUrl, token)).username;

  const { key, created } = await new KeyStore({ env: ctx.env }).loadOrCreate();
  if (created) ctx.info?.(`Created your signing key ${key.publicKey.fingerprint} (trusted automatically).`);
  const existing = await folderManifest(dir, key, files, manifest.skill.version);
  const manifestText = existing ?? (await signSkillManifest(manifest, key));
  const registration = await ensureKeyRegistered(registryUrl, token, { fingerprint: key.publicKey.fingerprint, pem: key.publicKey.pem }, ctx);

  const res = await registryFetch(registryUrl, "/v1/skills/push", {
    token,
    kind: "bundle",
    env: ctx.env,
    json: {
      namespace,
      manifest: manifestText,
      version: manifest.skill.version,
      files: Object.fromEntries(files.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: sha256Hex(f.bytes) }])),
      ...(options.visibility ? { visibility: options.visibility } : {}),
    },
  });
  let pushed: SkillPushAnswer;
  try {
    pushed = readJson(res, skillPushAnswerSchema);
  } catch (err) {
    if (err instanceof RyeError && err.code === "UNAUTHORIZED") throw new RyeError("UNAUTHORIZED", `${err.message} (${registryUrl})`, { hint: `Run: rye login --registry ${registryUrl}` });
    throw err;
  }
  const registryFingerprint = await verifyWithPinnedKey(pushed.signed_manifest, "tool", registryUrl, ctx, `The signed manifest of skill ${pushed.item_id}@${pushed.version}`).catch((err: unknown) => {
    if (!(err instanceof RyeError)) throw err;
    throw new RyeError(err.code, `The registry accepted skill ${pushed.item_id}@${pushed.version}, but its signed manifest was refused: ${err.message}`, { hint: err.hint });
  });
  return {
    status: "pushed",
    registry: registryUrl,
    item_type: "skill",
    item_id: pushed.item_id,
    version: pushed.version,
    declared_version: declaredVersion,
    version_note: skillVersionNote(declaredVersion, pushed.version),
    path: dir,
    files: files.length,
    manifest: existing ? "folder" : "signed",
    author_fingerprint: key.publicKey.fingerprint,
    registry_fingerprint: registryFingerprint,
    key_created: created,
    key_registration: registration,
    log_index: pushed.log_index ?? null,
    ...pushApprovalOf(pushed),
  };
}
