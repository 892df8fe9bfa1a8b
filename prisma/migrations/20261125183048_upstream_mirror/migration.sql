-- CreateTable
CREATE TABLE "upstream_key_pins" (
    "upstream_url" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "public_key_pem" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "pinned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "upstream_key_pins_pkey" PRIMARY KEY ("upstream_url","fingerprint")
);

-- CreateTable
CREATE TABLE "mirrored_versions" (
    "id" UUID NOT NULL,
    "upstream_url" TEXT NOT NULL,
    "item_type" "item_type" NOT NULL,
    "item_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "content_hash" CHAR(64) NOT NULL,
    "file_sha256" CHAR(64) NOT NULL,
    "file_extension" TEXT NOT NULL,
    "publisher" TEXT NOT NULL,
    "attestation" JSONB NOT NULL,
    "attestation_signature" TEXT NOT NULL,
    "attestation_key" TEXT NOT NULL,
    "log_index" BIGINT NOT NULL,
    "upstream_content" TEXT NOT NULL,
    "upstream_attestation" JSONB NOT NULL,
    "upstream_key_fingerprint" TEXT NOT NULL,
    "upstream_log_index" BIGINT,
    "description" TEXT NOT NULL DEFAULT '',
    "yanked" BOOLEAN NOT NULL DEFAULT false,
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "deprecation_message" TEXT,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mirrored_versions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mirrored_versions_upstream_url_item_type_item_id_version_key" ON "mirrored_versions"("upstream_url", "item_type", "item_id", "version");

-- A mirror caches its answers for upstream items in process for one read generation (apps/api/src/services/pull-cache.ts).
-- A namespace created here shadows the upstream's namespace of the same name (docs/mirroring.md), and an operator
-- may delete cached rows to have them fetched again: both must move the generation.
DROP TRIGGER "namespaces_read_generation" ON "namespaces";
CREATE CONSTRAINT TRIGGER "namespaces_read_generation"
  AFTER INSERT OR UPDATE OR DELETE ON "namespaces" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
CREATE CONSTRAINT TRIGGER "mirrored_versions_read_generation"
  AFTER UPDATE OR DELETE ON "mirrored_versions" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
