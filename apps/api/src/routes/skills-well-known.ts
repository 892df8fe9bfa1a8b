/**
 * Agent Skills discovery on the website's origin (no /v1 prefix: the `skills` CLI looks for these paths):
 *   GET|HEAD /.well-known/agent-skills/index.json                          every public skill (latest version)
 *   GET|HEAD /<namespace>/.well-known/agent-skills/index.json              one namespace's public skills
 *   GET|HEAD /<namespace>/<name>[@<version>]/.well-known/agent-skills/index.json   one skill (pinned with @version)
 *   GET|HEAD /<namespace>/.well-known/agent-skills/<name>/<version>/SKILL.md | <name>-<version>.tar.gz | .zip
 * Indexes: `application/json`, ETag, `Cache-Control: public, max-age=60`. Artifacts are immutable per version
 * (`max-age=31536000, immutable`). Public answers carry `Access-Control-Allow-Origin: *`. Private skills are in
 * no index, and their artifacts are 404 to anyone who may not read them (and never cached by shared caches). Versions
 * held for approval (services/approval.ts) are in no index either; their artifacts exist only for their reviewers.
 */
import type { Context } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { agentSkillsIndexSchema, isSemver, parseNamespace, parseSkillId, RyeError, sha256Hex } from "@rye/core";
import type { AppEnv } from "../env.ts";
import { access, errors, json, NOT_MODIFIED } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { optionalPrincipalOrSession } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { buildDiscoveryIndex, indexNotFound } from "../services/skills/discovery-index.ts";
import { countDownload } from "../services/download-policy.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { artifactsOf, requiredBlob, storedManifest } from "../services/skills/stored.ts";
import { mirroredIndex, serveMirroredArtifact, skillGoesUpstream, withHeldUpstreamSkills } from "../services/upstream/skill-hooks.ts";

const INDEX = ".well-known/agent-skills/index.json";
const INDEX_CACHE = "public, max-age=60, must-revalidate";
const IMMUTABLE = "public, max-age=31536000, immutable";

const indexRoute = <P extends string>(path: P, operationId: string, summary: string) =>
  createRoute({
    method: "get",
    path,
    operationId,
    summary,
    tags: ["skills"],
    ...access("none"),
    responses: { 200: json(agentSkillsIndexSchema, "The index (Cache-Control: public, max-age=60; Access-Control-Allow-Origin: *)"), ...NOT_MODIFIED, ...errors(404) },
    "x-rye-etag": true,
  });

export const agentSkillsIndexRoute = indexRoute(`/${INDEX}`, "agentSkillsIndex", "Agent Skills discovery: every public skill");
export const namespaceIndexRoute = indexRoute(`/{namespace}/${INDEX}`, "namespaceAgentSkillsIndex", "Agent Skills discovery: one namespace's public skills");
export const skillIndexRoute = indexRoute(`/{namespace}/{skill}/${INDEX}`, "skillAgentSkillsIndex", "Agent Skills discovery: one public skill (name@version pins a version)");

export const skillArtifactRoute = createRoute({
  method: "get",
  path: "/{namespace}/.well-known/agent-skills/{skill_name}/{version}/{file}",
  operationId: "skillArtifact",
  summary: "A skill version's artifact: SKILL.md, .tar.gz or .zip (immutable; private skills only to those who may read them)",
  tags: ["skills"],
  ...access("optional-caller"),
  responses: {
    200: {
      description: "The artifact's bytes (public: Cache-Control immutable, Access-Control-Allow-Origin: *)",
      content: {
        "text/markdown; charset=utf-8": { schema: z.string() },
        "application/gzip": { schema: z.string().meta({ format: "binary" }) },
        "application/zip": { schema: z.string().meta({ format: "binary" }) },
      },
    },
    ...NOT_MODIFIED,
    ...errors(404),
  },
  "x-rye-etag": true,
});

function cors(c: Context<AppEnv>): void {
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Expose-Headers", "ETag, Content-Length");
}

function notModified(c: Context<AppEnv>, etag: string): boolean {
  return c.req.header("if-none-match")?.split(",").map((s) => s.trim()).includes(etag) ?? false;
}

/** `namespace` and `name` or `name@version` of the per-skill index path, checked as the item routes check ids. */
function skillScope(namespace: string, segment: string): { namespace: string; skill: string; version?: string } {
  const at = segment.indexOf("@");
  const ref = parseSkillId(`${namespace}/${at < 0 ? segment : segment.slice(0, at)}`);
  if (at < 0) return { namespace: ref.namespace, skill: ref.name };
  const version = segment.slice(at + 1);
  if (!isSemver(version)) throw new RyeError("INVALID_VERSION", `${JSON.stringify(version)} is not a semantic version`);
  return { namespace: ref.namespace, skill: ref.name, version };
}

export function skillWellKnownRoutes(deps: AppDeps) {
  const blobs = deps.blobs;

  /** A mirror lists an upstream namespace's skills (never for a namespace of its own) and, at the root, those it holds. */
  const indexFor = async (c: Context<AppEnv>, scope: { namespace?: string; skill?: string; version?: string }) => {
    const mirror = deps.mirror;
    if (mirror && scope.namespace !== undefined && !(await mirror.ownsNamespace(scope.namespace))) return await mirroredIndex(c, mirror, deps.config.publicUrl, { ...scope, namespace: scope.namespace });
    const local = await buildDiscoveryIndex(deps.db, deps.config.publicUrl, scope);
    return mirror && local && scope.namespace === undefined && scope.version === undefined ? await withHeldUpstreamSkills(local, mirror, deps.config.publicUrl) : local;
  };

  const serveIndex = async (c: Context<AppEnv>, scope: { namespace?: string; skill?: string; version?: string }, what: string) => {
    const index = await indexFor(c, scope);
    if (!index) throw indexNotFound(what);
    const body = JSON.stringify(index);
    const etag = `"${sha256Hex(new TextEncoder().encode(body))}"`;
    cors(c);
    c.header("ETag", etag);
    c.header("Cache-Control", INDEX_CACHE);
    if (notModified(c, etag)) return c.body(null, 304);
    return c.body(body, 200, { "Content-Type": "application/json; charset=utf-8" });
  };

  return contractRouter()
    .openapi(agentSkillsIndexRoute, (c) => serveIndex(c, {}, "this registry"))
    .openapi(namespaceIndexRoute, (c) => serveIndex(c, { namespace: parseNamespace(c.req.param("namespace")) }, c.req.param("namespace")))
    .openapi(skillIndexRoute, (c) => {
      const namespace = c.req.param("namespace");
      return serveIndex(c, skillScope(namespace, c.req.param("skill")), `${namespace}/${c.req.param("skill")}`);
    })
    .openapi(skillArtifactRoute, async (c) => {
      const { namespace, skill_name: name, version, file } = c.req.param();
      if (!isSemver(version)) throw new RyeError("NOT_FOUND", `No artifact ${file} for ${namespace}/${name}@${version}`);
      let found;
      try {
        found = await findReadableSkillVersion(deps.db, await optionalPrincipalOrSession(c, deps.db), namespace, name, version);
      } catch (err) {
        if (!deps.mirror || !(await skillGoesUpstream(deps.mirror, err, namespace))) throw err;
        return await serveMirroredArtifact(c, deps.mirror, blobs, { namespace, name, version, file });
      }
      const { item, row } = found;
      const artifacts = artifactsOf(row.skillArtifacts);
      const base = `${item.name}-${row.version}`;
      const pick =
        file === "SKILL.md" ? { sha256: skillMdSha(row.content) ?? "", type: "text/markdown; charset=utf-8" }
        : file === `${base}.tar.gz` ? { sha256: artifacts.tar_gz.sha256, type: "application/gzip" }
        : file === `${base}.zip` ? { sha256: artifacts.zip.sha256, type: "application/zip" }
        : null;
      if (!pick || !pick.sha256) {
        throw new RyeError("NOT_FOUND", `No artifact ${JSON.stringify(file)} for skill ${item.namespace.name}/${item.name}@${row.version}`, {
          hint: `Artifacts are SKILL.md, ${base}.tar.gz and ${base}.zip.`,
        });
      }
      const etag = `"${pick.sha256}"`;
      c.header("ETag", etag);
      // Authors' bytes on the website's origin: never sniffed or rendered as a page, archives downloaded.
      c.header("X-Content-Type-Options", "nosniff");
      c.header("Content-Security-Policy", "default-src 'none'; sandbox");
      if (file !== "SKILL.md") c.header("Content-Disposition", `attachment; filename="${file}"`);
      if ((item.visibility === "public" || item.visibility === "unlisted") && row.status === "published") {
        cors(c);
        c.header("Cache-Control", IMMUTABLE);
      } else {
        c.header("Cache-Control", "private, no-store");
        c.header("Vary", "Authorization, Cookie");
      }
      if (notModified(c, etag)) return c.body(null, 304);
      const bytes = await requiredBlob(blobs, pick.sha256);
      // An archive is the whole skill; SKILL.md only when it is the skill's one file (services/download-policy.ts).
      countDownload(c, deps.reads.downloads, item.id, row.version, { status: row.status, whole: file !== "SKILL.md" || artifacts.skill_md !== undefined });
      return c.body(new Uint8Array(bytes), 200, { "Content-Type": pick.type, "Content-Length": String(bytes.length) });
    });
}

/** SHA-256 of SKILL.md as the signed manifest lists it (every skill has one). */
function skillMdSha(manifestText: string): string | null {
  return storedManifest(manifestText).files["SKILL.md"]?.sha256 ?? null;
}
