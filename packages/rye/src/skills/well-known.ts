/**
 * Skills from any web host that serves the Agent Skills discovery index (`/.well-known/agent-skills/index.json`,
 * schema 0.2.0): the index is looked up under the given path first, then at the host's root; each artifact is
 * downloaded within the client's limits and must match the index's SHA-256 digest before anything else happens.
 * A plain host's skill carries no signature: the digest only proves the bytes are the ones the index names.
 */
import type { SkillFile } from "@rye/core";
import { MAX_SKILL_TOTAL_BYTES, RyeError, sha256Hex, skillNameProblem } from "@rye/core";
import { z } from "zod";
import type { RegistryAnswer } from "../registry/http.ts";
import { displayText, registryFetch } from "../registry/http.ts";
import { normalizeRegistryUrl } from "../registry/registry-url.ts";
import type { ArchiveFormat } from "./archive.ts";
import { sniffArchive, unpackSkillArchive } from "./archive.ts";

export const DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";
export const INDEX_PATH = "/.well-known/agent-skills/index.json";

const entrySchema = z.object({
  name: z.string().refine((n) => skillNameProblem(n) === null, "not a valid skill name"),
  type: z.string(),
  description: z.string().max(1024),
  url: z.string().min(1),
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, "digest must be sha256:<64 lowercase hex>"),
  version: z.string().optional(),
});
export type IndexEntry = z.infer<typeof entrySchema>;

export interface DiscoveredIndex {
  url: string;
  entries: IndexEntry[];
  /** Entries the client skipped (unknown type, invalid fields), with why. */
  skipped: { name: string; reason: string }[];
}

export interface FetchedSkill {
  entry: IndexEntry;
  artifactUrl: string;
  files: SkillFile[];
  manifest?: string;
}

/** The index URLs to try for a source URL: under its path, then at the root. */
export function indexCandidates(source: string): string[] {
  const base = new URL(normalizeRegistryUrl(source));
  const path = base.pathname.replace(/\/+$/, "");
  const candidates = [`${base.origin}${path}${INDEX_PATH}`];
  if (path !== "") candidates.push(`${base.origin}${INDEX_PATH}`);
  return candidates;
}

async function get(url: string, env: NodeJS.ProcessEnv, binary: boolean): Promise<RegistryAnswer> {
  const parsed = new URL(url);
  return registryFetch(parsed.origin, `${parsed.pathname}${parsed.search}`, {
    env,
    headers: { accept: binary ? "application/gzip, application/zip, text/markdown, text/plain, */*" : "application/json" },
    ...(binary ? { binary: true, kind: "bundle" as const, limits: { maxBytes: MAX_SKILL_TOTAL_BYTES } } : {}),
  });
}

/** Finds and parses the discovery index for `source` (https, or http on loopback). */
export async function discoverIndex(source: string, env: NodeJS.ProcessEnv): Promise<DiscoveredIndex> {
  const tried: string[] = [];
  for (const url of indexCandidates(source)) {
    const answer = await get(url, env, false);
    tried.push(`${url} (${answer.status})`);
    if (answer.status === 404) continue;
    if (!answer.ok) {
      throw new RyeError("UNAVAILABLE", `${url} answered ${answer.status}`, { hint: "Check the address, or try again later." });
    }
    let data: unknown;
    try {
      data = JSON.parse(answer.text);
    } catch {
      throw new RyeError("MALFORMED_RESPONSE", `${url} is not JSON`, { hint: "The host must serve the discovery index as application/json." });
    }
    const top = z.object({ $schema: z.string().optional(), skills: z.array(z.unknown()) }).safeParse(data);
    if (!top.success) throw new RyeError("MALFORMED_RESPONSE", `${url} is not a skills discovery index (no skills list)`, { hint: `See the discovery schema ${DISCOVERY_SCHEMA}.` });
    if (top.data.$schema !== DISCOVERY_SCHEMA) {
      throw new RyeError("MALFORMED_RESPONSE", `${url} declares the index schema ${JSON.stringify(displayText(top.data.$schema ?? "(none)", 200))}; rye reads ${DISCOVERY_SCHEMA}`, {
        hint: "Ask the host to publish a 0.2.0 index, or install from a folder or a rye registry.",
      });
    }
    const entries: IndexEntry[] = [];
    const skipped: DiscoveredIndex["skipped"] = [];
    for (const raw of top.data.skills) {
      const parsed = entrySchema.safeParse(raw);
      const name = typeof (raw as { name?: unknown })?.name === "string" ? displayText((raw as { name: string }).name, 80) : "(no name)";
      if (!parsed.success) skipped.push({ name, reason: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
      else if (parsed.data.type !== "skill-md" && parsed.data.type !== "archive") skipped.push({ name, reason: `unknown type ${JSON.stringify(displayText(parsed.data.type, 40))}` });
      else entries.push(parsed.data);
    }
    return { url: answer.url, entries, skipped };
  }
  throw new RyeError("NOT_FOUND", `No skills discovery index at ${source}`, { hint: `rye looked for ${tried.join(", ")}. The host must serve ${INDEX_PATH}.`, details: { tried } });
}

/** The archive format: Content-Type first, then the URL's extension, then the bytes. */
function archiveFormat(answer: RegistryAnswer, url: string, bytes: Uint8Array): ArchiveFormat | null {
  const type = answer.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/zip") return "zip";
  if (type === "application/gzip" || type === "application/x-gzip" || type === "application/x-tar+gzip") return "tar.gz";
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith(".zip")) return "zip";
  if (path.endsWith(".tar.gz") || path.endsWith(".tgz")) return "tar.gz";
  return sniffArchive(bytes);
}

/** Downloads one entry's artifact, checks its digest, and unpacks it (in memory). */
export async function fetchSkill(index: DiscoveredIndex, entry: IndexEntry, env: NodeJS.ProcessEnv): Promise<FetchedSkill> {
  let artifactUrl: string;
  try {
    artifactUrl = new URL(entry.url, index.url).href;
    normalizeRegistryUrl(artifactUrl);
  } catch (err) {
    throw new RyeError("MALFORMED_RESPONSE", `The index entry ${entry.name} points to an unusable URL ${JSON.stringify(displayText(entry.url, 200))}: ${err instanceof Error ? err.message : String(err)}`, {
      hint: "Artifacts must be served over https (http only on localhost).",
    });
  }
  const answer = await get(artifactUrl, env, true);
  if (!answer.ok) throw new RyeError(answer.status === 404 ? "NOT_FOUND" : "UNAVAILABLE", `${artifactUrl} answered ${answer.status}`, { hint: "The index names an artifact the host does not serve; try again later or tell the host." });
  const bytes = answer.bytes ?? new Uint8Array();
  const digest = `sha256:${sha256Hex(bytes)}`;
  if (digest !== entry.digest) {
    throw new RyeError("INTEGRITY_MISMATCH", `${entry.name}: the artifact's digest is ${digest}, the index says ${entry.digest}; nothing was written`, {
      hint: "The download was altered or the index is stale. Do not install it; try again later or tell the host.",
      details: { url: artifactUrl, expected: entry.digest, actual: digest },
    });
  }
  if (entry.type === "skill-md") return { entry, artifactUrl, files: [{ path: "SKILL.md", bytes }] };
  const format = archiveFormat(answer, artifactUrl, bytes);
  if (!format) throw new RyeError("MALFORMED_RESPONSE", `${artifactUrl} is neither a .tar.gz nor a .zip archive`, { hint: "Archive entries must be .tar.gz or .zip files." });
  const unpacked = await unpackSkillArchive(bytes, format, artifactUrl);
  return { entry, artifactUrl, files: unpacked.files, ...(unpacked.manifest !== undefined ? { manifest: unpacked.manifest } : {}) };
}
