/**
 * Bundle manifests (rye-format §5.2): YAML `bundle{id, version, entrypoint, description, created_at,
 * type}` and `files{path: {sha256, inline_signed}}`, signed with the tool rule (`# rye:signed:` line).
 */
import { stringify as stringifyYaml, parse as parseYaml } from "yaml";
import { z } from "zod";
import type { KeyPair } from "../crypto/keys.ts";
import { RyeError } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import type { ItemType } from "../item-types.ts";
import { TYPE_FOLDERS } from "../item-types.ts";
import { signItem } from "../signature/sign.ts";
import type { SignOptions } from "../signature/sign.ts";
import { stripSignature } from "../signature/line.ts";
import type { KeyResolver, VerifyResult } from "../signature/verify.ts";
import { verifyItem } from "../signature/verify.ts";
import { isSemver } from "../semver.ts";
import { utf8Decode } from "../text.ts";

export const MAX_BUNDLE_PATH_LENGTH = 512;
export const MAX_BUNDLE_FILES = 10_000;

/** A bundle file path: relative, `/`-separated, no `..`, `.`, empty segments, backslashes or NUL. */
export function validateBundlePath(path: string): string | null {
  if (path.length === 0 || path.length > MAX_BUNDLE_PATH_LENGTH) return "path length must be 1-512";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "path must be relative";
  if (/[\\\0]/.test(path)) return "path must not contain backslashes or NUL";
  if (path.split("/").some((s) => s === "" || s === "." || s === "..")) return "path must not contain empty, '.' or '..' segments";
  return null;
}

/**
 * Why `path` may not be a file of bundle `bundleId`, or null. Bundles hold what `rye bundle create`
 * collects: `.ai/{directives,tools,knowledge}/<bundle_id>/…`. The registry refuses anything else on push
 * and the client refuses it on pull, so a bundle can never write keys, configuration or lockfiles.
 */
export function bundleFilePathProblem(bundleId: string, path: string): string | null {
  const basic = validateBundlePath(path);
  if (basic) return basic;
  const folders = Object.values(TYPE_FOLDERS);
  if (!folders.some((folder) => path.startsWith(`.ai/${folder}/${bundleId}/`))) {
    return `outside the bundle's folders (.ai/{${folders.join(",")}}/${bundleId}/)`;
  }
  return null;
}

const bundlePath = z.string().superRefine((p, ctx) => {
  const problem = validateBundlePath(p);
  if (problem) ctx.addIssue({ code: "custom", message: `${JSON.stringify(p)}: ${problem}` });
});

export const bundleManifestSchema = z.object({
  bundle: z.object({
    id: z.string().min(1).max(256),
    version: z.string().refine(isSemver, "bundle.version must be a semantic version"),
    entrypoint: z.string().default(""),
    description: z.string().default(""),
    created_at: z.string(),
    type: z.string().optional(),
  }),
  files: z
    .record(bundlePath, z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex"), inline_signed: z.boolean() }))
    .refine((files) => Object.keys(files).length <= MAX_BUNDLE_FILES, `a bundle holds at most ${MAX_BUNDLE_FILES} files`),
});
export type BundleManifest = z.infer<typeof bundleManifestSchema>;

const INLINE_MARKERS = ["<!-- rye:signed:", "# rye:signed:", "// rye:signed:"];

export function isInlineSigned(bytes: Uint8Array): boolean {
  let head: string;
  try {
    // 512 characters fit in 2048 bytes; `stream` tolerates a character cut at the 2048-byte boundary.
    head = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, 2048), { stream: true }).slice(0, 512);
  } catch {
    return false;
  }
  return INLINE_MARKERS.some((m) => head.includes(m));
}

/** The item type of a bundle file from its `.ai/<type folder>/` prefix. */
export function itemTypeOfBundlePath(path: string): ItemType | null {
  for (const [type, folder] of Object.entries(TYPE_FOLDERS) as [ItemType, string][]) {
    if (path.startsWith(`.ai/${folder}/`)) return type;
  }
  return null;
}

export interface BundleInfo {
  id: string;
  version?: string;
  entrypoint?: string;
  description?: string;
  type?: string;
  createdAt?: Date;
}

export function buildManifest(info: BundleInfo, files: { path: string; bytes: Uint8Array }[]): BundleManifest {
  const entries: BundleManifest["files"] = {};
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const problem = validateBundlePath(file.path);
    if (problem) throw new RyeError("PATH_TRAVERSAL", `Bundle file ${JSON.stringify(file.path)}: ${problem}`);
    entries[file.path] = { sha256: sha256Hex(file.bytes), inline_signed: isInlineSigned(file.bytes) };
  }
  const bundle: BundleManifest["bundle"] = {
    id: info.id,
    version: info.version ?? "0.1.0",
    entrypoint: info.entrypoint ?? "",
    description: info.description ?? "",
    created_at: (info.createdAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
  if (info.type) bundle.type = info.type;
  return bundleManifestSchema.parse({ bundle, files: entries });
}

export function serializeManifest(manifest: BundleManifest): string {
  return stringifyYaml(manifest, { lineWidth: 0, defaultStringType: "PLAIN", defaultKeyType: "PLAIN" });
}

export function parseManifest(text: string): BundleManifest {
  let data: unknown;
  try {
    data = parseYaml(stripSignature(text, "tool"), { schema: "core", maxAliasCount: 16 });
  } catch (err) {
    throw new RyeError("BUNDLE_INVALID", `The manifest is not valid YAML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
  const result = bundleManifestSchema.safeParse(data);
  if (!result.success) {
    // A bad file path fails the record's key schema: zod reports it as `invalid_key` with the inner issues.
    const traversal = result.error.issues.some((i) => i.path[0] === "files" && i.code === "invalid_key");
    throw new RyeError(traversal ? "PATH_TRAVERSAL" : "BUNDLE_INVALID", "The bundle manifest is invalid", {
      details: result.error.issues.map((i) => ({
        field: i.path.map(String).join("."),
        message: i.code === "invalid_key" && i.issues.length > 0 ? i.issues.map((inner) => inner.message).join("; ") : i.message,
      })),
    });
  }
  return result.data;
}

export async function signManifest(text: string, key: KeyPair, options: Omit<SignOptions, "path"> = {}): Promise<string> {
  return (await signItem(text, "tool", key, { ...options, path: "manifest.yaml" })).content;
}

export interface BundleVerification {
  ok: boolean;
  code: "OK" | "BUNDLE_INVALID" | "BUNDLE_FILES_MISSING" | "BUNDLE_FILES_TAMPERED" | VerifyResult["code"];
  manifestSignature: VerifyResult;
  manifest?: BundleManifest;
  files_ok: string[];
  files_missing: string[];
  files_tampered: { path: string; reason: string }[];
}

/**
 * Verifies the manifest signature, then every file: present, same sha256, and for inline-signed files
 * a valid inline signature too. `readFile` returns undefined for a missing file.
 */
export async function verifyBundle(
  manifestText: string,
  keys: KeyResolver,
  readFile: (path: string) => Promise<Uint8Array | undefined>,
): Promise<BundleVerification> {
  const manifestSignature = await verifyItem(manifestText, "tool", keys);
  const result: BundleVerification = { ok: false, code: "OK", manifestSignature, files_ok: [], files_missing: [], files_tampered: [] };
  try {
    result.manifest = parseManifest(manifestText);
  } catch (err) {
    result.code = "BUNDLE_INVALID";
    return result;
  }
  for (const [path, entry] of Object.entries(result.manifest.files)) {
    const bytes = await readFile(path);
    if (bytes === undefined) {
      result.files_missing.push(path);
      continue;
    }
    if (sha256Hex(bytes) !== entry.sha256) {
      result.files_tampered.push({ path, reason: "sha256 differs from the manifest" });
      continue;
    }
    const type = itemTypeOfBundlePath(path);
    if (entry.inline_signed && type) {
      let text: string;
      try {
        text = utf8Decode(bytes);
      } catch {
        result.files_tampered.push({ path, reason: "not valid UTF-8" });
        continue;
      }
      const inline = await verifyItem(text, type, keys);
      if (!inline.ok) {
        result.files_tampered.push({ path, reason: `inline signature: ${inline.code}` });
        continue;
      }
    }
    result.files_ok.push(path);
  }
  if (!manifestSignature.ok) result.code = manifestSignature.code;
  else if (result.files_missing.length > 0) result.code = "BUNDLE_FILES_MISSING";
  else if (result.files_tampered.length > 0) result.code = "BUNDLE_FILES_TAMPERED";
  result.ok = result.code === "OK";
  return result;
}
