/**
 * Agent Skills over the v1 API: POST /v1/skills/push (signed manifest + files, base64) and
 * GET /v1/skills/{namespace}/{name}[?version=&files=1] (the registry-signed manifest, its attestation and the
 * files: their paths, digests and, with files=1, their bytes). Versions, yank, deprecate, visibility, transfer
 * and delete are the item routes with item_type `skill` and id `namespace/name`.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { extractSignature, MAX_SKILL_FILES, MAX_SKILL_TOTAL_BYTES, type PublishAttestation, type PublishReview, type SkillPullResponse, skillPullResponseSchema, skillPushResponseSchema } from "@rye/core";
import { access, errors, json, NOT_MODIFIED } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import { limitBody } from "../middleware/body-limit.ts";
import { optionalPrincipalOrSession, requirePrincipal } from "../middleware/auth.ts";
import type { AppDeps } from "../services/deps.ts";
import { findReadableSkillVersion } from "../services/skills/lookup.ts";
import { publishSkill } from "../services/skills/publish-skill.ts";
import { skillPullContents } from "../services/skills/pull-contents.ts";
import { setCacheHeaders, writerFirst } from "./bundles.ts";
import { countDownload } from "../services/download-policy.ts";
import { serveMirroredSkill, skillGoesUpstream } from "../services/upstream/skill-hooks.ts";
import { pullTransparency, tlogFromQuery } from "../services/pull-transparency.ts";

/** base64 of the largest skill plus room for the manifest and JSON: bodies above this are refused (413). */
export const MAX_SKILL_PUSH_BODY_BYTES = Math.ceil(MAX_SKILL_TOTAL_BYTES / 3) * 4 + 2 * 1024 * 1024;

const isBase64 = (s: string) => s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);

export const skillPushRequestSchema = z
  .object({
  namespace: z.string().min(1).max(64).meta({ description: "Your username or an organization you publish to." }),
  manifest: z.string().min(1).max(1024 * 1024).meta({ description: ".rye/manifest.yaml, signed with a key registered to the publisher." }),
  files: z
    .record(
      z.string().max(1024),
      z.object({
        content_base64: z.string().refine(isBase64, "content_base64 must be padded standard base64"),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex"),
      }),
    )
    .refine((files) => Object.keys(files).length <= MAX_SKILL_FILES, `A skill holds at most ${MAX_SKILL_FILES} files`)
    .meta({ description: "Relative path → file: exactly the files the manifest lists (never .rye/)." }),
  version: z
    .string()
    .max(256)
    .optional()
    .meta({ description: "Defaults to the manifest's skill.version, which it must equal. The manifest's version is SKILL.md's metadata.version (MAJOR.MINOR read as MAJOR.MINOR.0), or, when SKILL.md declares none readable as a semantic version, one chosen by the signer: the files are never changed." }),
  visibility: z.enum(["public", "unlisted", "private"]).optional().meta({ description: "Applies when the skill is created; default public." }),
  })
  .meta({ id: "SkillPushRequest" });

const skillPushAnswer = (description: string) => json(skillPushResponseSchema, description);

export const skillPushRoute = createRoute({
  method: "post",
  path: "/v1/skills/push",
  operationId: "pushSkill",
  summary: "Publish a version of an Agent Skill (its signed manifest and files)",
  tags: ["skills"],
  ...access("required", ["items:write"]),
  request: { body: { required: true, content: { "application/json": { schema: skillPushRequestSchema } } } },
  responses: { 201: skillPushAnswer("Published"), 202: skillPushAnswer("Stored but held for approval (status held): invisible until approved"), ...errors(400, 401, 403, 404, 409, 413) },
});

export const skillPullRoute = createRoute({
  method: "get",
  path: "/v1/skills/{namespace}/{skill_name}",
  operationId: "pullSkill",
  summary: "A skill version: registry-signed manifest, attestation, files and artifact links",
  tags: ["skills"],
  ...access("optional-caller"),
  // Not validated here: findReadableSkillVersion answers INVALID_VERSION, and files is 1/true or not.
  request: {
    query: z.object({
      version: z.string().optional().meta({ description: "Default: the highest non-yanked version." }),
      files: z.string().optional().meta({ description: "1: include every file's bytes (content_base64).", enum: ["1", "0", "true", "false"] }),
      tlog_from: tlogFromQuery,
    }),
  },
  responses: { 200: json(skillPullResponseSchema, "The skill"), ...NOT_MODIFIED, ...errors(400, 404) },
  "x-rye-etag": true,
});

export function skillRoutes(deps: AppDeps) {
  const blobs = deps.blobs;
  return contractRouter()
    .openapi({ ...skillPushRoute, middleware: [limitBody(MAX_SKILL_PUSH_BODY_BYTES, "Skill push bodies"), writerFirst] as const }, async (c) => {
      const principal = requirePrincipal(c, "items:write");
      const body = c.req.valid("json");
      const files = Object.entries(body.files).map(([path, f]) => ({ path, bytes: new Uint8Array(Buffer.from(f.content_base64, "base64")), sha256: f.sha256 }));
      const result = await publishSkill(
        { namespace: body.namespace, manifest: body.manifest, files, version: body.version, visibility: body.visibility },
        {
          db: deps.db,
          blobs,
          principal,
          registryKey: await deps.keyring.signer(),
          registryUrl: deps.config.publicUrl,
          ip: c.get("clientIp"),
          requestId: c.get("requestId"),
          approval: deps.config.approval,
        },
      );
      return c.json(result, result.status === "held" ? 202 : 201);
    })
    .openapi({ ...skillPullRoute, middleware: [pullTransparency(deps)] as const }, async (c) => {
      const principal = await optionalPrincipalOrSession(c, deps.db);
      const withFiles = c.req.query("files") === "1" || c.req.query("files") === "true";
      let found;
      try {
        found = await findReadableSkillVersion(deps.db, principal, c.req.param("namespace"), c.req.param("skill_name"), c.req.query("version") || undefined);
      } catch (err) {
        // Not held here: a mirror answers with the upstream's verified copy, unless the namespace is this registry's.
        if (!deps.mirror || !(await skillGoesUpstream(deps.mirror, err, c.req.param("namespace")))) throw err;
        return await serveMirroredSkill(c, deps.mirror, { blobs, publicUrl: deps.config.publicUrl }, { namespace: c.req.param("namespace"), name: c.req.param("skill_name"), version: c.req.query("version") || undefined, withFiles });
      }
      const { ref, item, row, pinned } = found;
      // A held version (seen by its reviewers only) is never cached by shared caches.
      if (setCacheHeaders(c, `"${row.fileSha256}${withFiles ? "-files" : ""}"`, row.status === "published" ? item.visibility : "private", pinned)) return c.body(null, 304);
      const contents = await skillPullContents(blobs, deps.config.publicUrl, { content: row.content, skillArtifacts: row.skillArtifacts, namespace: item.namespace.name, name: item.name, version: row.version }, withFiles);
      // With files=1 this is an install (`rye skill add`); the manifest alone is metadata (services/download-policy.ts).
      countDownload(c, deps.reads.downloads, item.id, row.version, { status: row.status, whole: withFiles });
      const signature = extractSignature(row.content, "tool");
      c.set("pullLogIndex", row.logIndex === null ? null : Number(row.logIndex));
      const answer: SkillPullResponse = {
        item_type: "skill",
        item_id: ref.id,
        namespace: item.namespace.name,
        name: item.name,
        version: row.version,
        description: contents.description,
        manifest: row.content,
        manifest_sha256: row.fileSha256,
        files: contents.files,
        artifacts: contents.artifacts,
        author: row.publisher.username,
        author_key: row.authorFingerprint ? { fingerprint: row.authorFingerprint, signature: row.authorSignature, verified: row.authorVerified } : null,
        attestation: { payload: row.attestation as PublishAttestation, signature: row.attestationSignature, key_fingerprint: signature.status === "signed" ? signature.signature.fingerprint : null },
        log_index: row.logIndex === null ? null : Number(row.logIndex),
        review: (row.review as PublishReview | null) ?? null,
        yanked: row.yanked,
        yanked_reason: row.yankedReason,
        deprecated: item.deprecated,
        deprecation_message: item.deprecationMessage,
        visibility: item.visibility,
        status: row.status,
        created_at: row.createdAt.toISOString(),
      };
      return c.json(answer, 200);
    });
}
