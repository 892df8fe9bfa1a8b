/** Agent Skills: POST /v1/skills/push, GET /v1/skills/{namespace}/{name} and the /.well-known/agent-skills indexes. */
import { z } from "zod";
import { pullTransparencySchema } from "./transparency.ts";
import { isoTimestampSchema, itemVisibilitySchema, sha256HexSchema } from "./common.ts";
import { servedAttestationSchema } from "./bundles.ts";
import { signedAttestationSchema, versionStatusSchema } from "./items.ts";
import { approvalAnswerShape, publishReviewSchema, reviewRiskSchema } from "./publish.ts";

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/).meta({ description: "sha256:<hex> of the artifact's bytes as served." });
const blob = z.object({ sha256: sha256HexSchema, size: z.number().int() });
const artifactLink = z.object({ url: z.string(), digest, size: z.number().int() });

export const skillPushResponseSchema = z
  .object({
    ...approvalAnswerShape,
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
  })
  .meta({ id: "SkillPushResponse" });
export type SkillPushResponse = z.infer<typeof skillPushResponseSchema>;

export const skillPulledFileSchema = z.object({ path: z.string(), sha256: sha256HexSchema, size: z.number().int(), executable: z.boolean(), content_base64: z.string().optional().meta({ description: "With files=1." }) });

export const skillPullResponseSchema = z
  .object({
    item_type: z.literal("skill"),
    item_id: z.string(),
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    description: z.string(),
    manifest: z.string().meta({ description: "The registry-signed .rye/manifest.yaml (verify with the registry key; it lists every file's sha256, size and execute bit)." }),
    manifest_sha256: sha256HexSchema,
    files: z.array(skillPulledFileSchema),
    artifacts: z.object({ skill_md: artifactLink.optional(), tar_gz: artifactLink, zip: artifactLink }),
    author: z.string(),
    author_key: z.object({ fingerprint: z.string(), signature: z.string().nullable(), verified: z.boolean() }).nullable(),
    attestation: servedAttestationSchema,
    log_index: z.number().int().nullable(),
    review: publishReviewSchema.nullable(),
    yanked: z.boolean(),
    yanked_reason: z.string().nullable(),
    deprecated: z.boolean(),
    deprecation_message: z.string().nullable(),
    visibility: itemVisibilitySchema,
    status: versionStatusSchema.meta({ description: "published; pending or rejected only for those who review held versions." }),
    created_at: isoTimestampSchema,
    transparency: pullTransparencySchema.optional().meta({ description: "Present when asked for with `tlog_from`: the proof that this version's publish is in the registry's signed log." }),
  })
  .meta({ id: "SkillPullResponse" });
export type SkillPullResponse = z.infer<typeof skillPullResponseSchema>;

export const AGENT_SKILLS_INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

export const agentSkillsIndexEntrySchema = z.object({
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
      review: z.object({ risk: reviewRiskSchema, findings: z.number().int() }).optional().meta({ description: "The publish-time review's risk and number of findings (details: manifest_url)." }),
    })
    .meta({ description: "What a rye-aware client needs to verify the entry (other clients ignore it)." }),
});

export const agentSkillsIndexSchema = z
  .object({ $schema: z.literal(AGENT_SKILLS_INDEX_SCHEMA), skills: z.array(agentSkillsIndexEntrySchema) })
  .meta({ id: "AgentSkillsIndex", description: "Agent Skills discovery index, schema 0.2.0 (public skills, latest non-yanked version each)." });
export type AgentSkillsIndex = z.infer<typeof agentSkillsIndexSchema>;
