/** OpenAPI description of the Agent Skills routes (routes/skills.ts and routes/skills-well-known.ts). */
import { z } from "zod";
import { isoTimestampSchema, itemVisibilitySchema, publishAttestationSchema, sha256HexSchema, signedAttestationSchema, versionStatusSchema } from "@rye/core";
import { ApprovalAnswer, PublishReview } from "./openapi-approvals.ts";
import type { Operation } from "../contract/operation.ts";
import { skillPushRequestSchema } from "./skills.ts";

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/).meta({ description: "sha256:<hex> of the artifact's bytes as served." });
const blob = z.object({ sha256: sha256HexSchema, size: z.number().int() });
const artifactLink = z.object({ url: z.string(), digest, size: z.number().int() });

const SkillPushResponse = z.object({
  ...ApprovalAnswer,
  item_type: z.literal("skill"),
  item_id: z.string().meta({ description: "namespace/name" }),
  namespace: z.string(),
  name: z.string(),
  version: z.string(),
  declared_version: z.string().nullable().meta({ description: "metadata.version as SKILL.md writes it; null when it declares none." }),
  version_note: z
    .string()
    .nullable()
    .meta({ description: "How the version was read when it is not exactly SKILL.md's: a declared MAJOR.MINOR read as MAJOR.MINOR.0, or a version given beside the files (SKILL.md declares none or none readable). Null otherwise." }),
  files: z.number().int(),
  signed_manifest: z.string().meta({ description: "The manifest re-signed by the registry (|rye-registry@<publisher>)." }),
  file_sha256: sha256HexSchema,
  artifacts: z.object({ skill_md: blob.optional(), tar_gz: blob, zip: blob }),
  attestation: signedAttestationSchema,
  log_index: z.number().int(),
});

const SkillReview = PublishReview;

const SkillPullResponse = z.object({
  item_type: z.literal("skill"),
  item_id: z.string(),
  namespace: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  manifest: z.string().meta({ description: "The registry-signed .rye/manifest.yaml (verify with the registry key; it lists every file's sha256, size and execute bit)." }),
  manifest_sha256: sha256HexSchema,
  files: z.array(z.object({ path: z.string(), sha256: sha256HexSchema, size: z.number().int(), executable: z.boolean(), content_base64: z.string().optional().meta({ description: "With files=1." }) })),
  artifacts: z.object({ skill_md: artifactLink.optional(), tar_gz: artifactLink, zip: artifactLink }),
  author: z.string(),
  author_key: z.object({ fingerprint: z.string(), signature: z.string().nullable(), verified: z.boolean() }).nullable(),
  attestation: z.object({ payload: publishAttestationSchema, signature: z.string(), key_fingerprint: z.string().nullable() }),
  log_index: z.number().int().nullable(),
  review: SkillReview.nullable(),
  yanked: z.boolean(),
  yanked_reason: z.string().nullable(),
  deprecated: z.boolean(),
  deprecation_message: z.string().nullable(),
  visibility: itemVisibilitySchema,
  status: versionStatusSchema.meta({ description: "published; pending or rejected only for those who review held versions." }),
  created_at: isoTimestampSchema,
});

const AgentSkillsIndex = z
  .object({
    $schema: z.literal("https://schemas.agentskills.io/discovery/0.2.0/schema.json"),
    skills: z.array(
      z.object({
        name: z.string(),
        type: z.enum(["skill-md", "archive"]),
        description: z.string(),
        url: z.string().meta({ description: "Relative to the index: SKILL.md (skill-md) or <name>-<version>.tar.gz (archive)." }),
        digest,
        version: z.string(),
        rye: z
          .object({
            registry: z.string(),
            id: z.string(),
            version: z.string(),
            publisher: z.string(),
            manifest_url: z.string(),
            manifest_sha256: sha256HexSchema,
            attestation_url: z.string(),
            author_fingerprint: z.string().nullable(),
            registry_fingerprint: z.string().nullable(),
            log_index: z.number().int().nullable(),
            archives: z.object({ tar_gz: z.object({ url: z.string(), digest }), zip: z.object({ url: z.string(), digest }) }),
            deprecated: z.union([z.string(), z.literal(true)]).optional(),
            review: z.object({ risk: z.enum(["none", "low", "medium", "high"]), findings: z.number().int() }).optional().meta({ description: "The publish-time review's risk and number of findings (details: manifest_url)." }),
          })
          .meta({ description: "What a rye-aware client needs to verify the entry (other clients ignore it)." }),
      }),
    ),
  })
  .meta({ description: "Agent Skills discovery index, schema 0.2.0 (public skills, latest non-yanked version each)." });

export const SKILL_SCHEMAS = { SkillPushRequest: skillPushRequestSchema, SkillPushResponse, SkillPullResponse, AgentSkillsIndex };

const SkillPullQuery = z.object({
  version: z.string().optional().meta({ description: "Default: the highest non-yanked version." }),
  files: z.enum(["1", "0", "true", "false"]).optional().meta({ description: "1: include every file's bytes (content_base64)." }),
});

const indexReply = { status: 200, description: "The index (Cache-Control: public, max-age=60; Access-Control-Allow-Origin: *)", schema: "AgentSkillsIndex" };
const wellKnown = (path: string, operationId: string, summary: string): Operation => ({ method: "get", path, operationId, summary, tag: "skills", auth: "none", ok: indexReply, errors: [404], etag: true });

export const SKILL_OPERATIONS: Operation[] = [
  { method: "post", path: "/v1/skills/push", operationId: "pushSkill", summary: "Publish a version of an Agent Skill (its signed manifest and files)", tag: "skills", auth: "required", scopes: ["items:write"], body: "SkillPushRequest", ok: { status: 201, description: "Published", schema: "SkillPushResponse" }, also: [{ status: 202, description: "Stored but held for approval (status held): invisible until approved", schema: "SkillPushResponse" }], errors: [400, 401, 403, 404, 409, 413] },
  { method: "get", path: "/v1/skills/{namespace}/{skill_name}", operationId: "pullSkill", summary: "A skill version: registry-signed manifest, attestation, files and artifact links", tag: "skills", auth: "optional-caller", query: SkillPullQuery, ok: { status: 200, description: "The skill", schema: "SkillPullResponse" }, errors: [400, 404], etag: true },
  wellKnown("/.well-known/agent-skills/index.json", "agentSkillsIndex", "Agent Skills discovery: every public skill"),
  wellKnown("/{namespace}/.well-known/agent-skills/index.json", "namespaceAgentSkillsIndex", "Agent Skills discovery: one namespace's public skills"),
  wellKnown("/{namespace}/{skill}/.well-known/agent-skills/index.json", "skillAgentSkillsIndex", "Agent Skills discovery: one public skill (name@version pins a version)"),
  {
    method: "get",
    path: "/{namespace}/.well-known/agent-skills/{skill_name}/{version}/{file}",
    operationId: "skillArtifact",
    summary: "A skill version's artifact: SKILL.md, .tar.gz or .zip (immutable; private skills only to those who may read them)",
    tag: "skills",
    auth: "optional-caller",
    ok: {
      status: 200,
      description: "The artifact's bytes (public: Cache-Control immutable, Access-Control-Allow-Origin: *)",
      content: {
        "text/markdown; charset=utf-8": { schema: { type: "string" } },
        "application/gzip": { schema: { type: "string", format: "binary" } },
        "application/zip": { schema: { type: "string", format: "binary" } },
      },
    },
    errors: [404],
    etag: true,
  },
];
