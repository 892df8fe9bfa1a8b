-- AlterTable
ALTER TABLE "mirrored_versions" ADD COLUMN     "skill_artifacts" JSONB;

-- CreateTable
CREATE TABLE "mirrored_bundle_versions" (
    "id" UUID NOT NULL,
    "upstream_url" TEXT NOT NULL,
    "bundle_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "manifest" TEXT NOT NULL,
    "manifest_sha256" CHAR(64) NOT NULL,
    "files" JSONB NOT NULL,
    "publisher" TEXT NOT NULL,
    "attestation" JSONB NOT NULL,
    "attestation_signature" TEXT NOT NULL,
    "attestation_key" TEXT NOT NULL,
    "log_index" BIGINT NOT NULL,
    "upstream_manifest" TEXT NOT NULL,
    "upstream_attestation" JSONB NOT NULL,
    "upstream_key_fingerprint" TEXT NOT NULL,
    "upstream_log_index" BIGINT,
    "yanked" BOOLEAN NOT NULL DEFAULT false,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mirrored_bundle_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mirrored_bundle_versions_upstream_url_bundle_id_version_key" ON "mirrored_bundle_versions"("upstream_url", "bundle_id", "version");
