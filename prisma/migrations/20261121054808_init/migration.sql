-- CreateExtension (hand-written: see the datasource block in schema.prisma)
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateEnum
CREATE TYPE "org_role" AS ENUM ('owner', 'admin', 'member');

-- CreateEnum
CREATE TYPE "item_type" AS ENUM ('directive', 'tool', 'knowledge');

-- CreateEnum
CREATE TYPE "visibility" AS ENUM ('public', 'unlisted', 'private');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "username" TEXT NOT NULL,
    "email" TEXT,
    "display_name" TEXT NOT NULL DEFAULT '',
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "display_name" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" "org_role" NOT NULL DEFAULT 'member',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("org_id","user_id")
);

-- CreateTable
CREATE TABLE "namespaces" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "user_id" UUID,
    "org_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "items" (
    "id" UUID NOT NULL,
    "type" "item_type" NOT NULL,
    "namespace_id" UUID NOT NULL,
    "category" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "visibility" "visibility" NOT NULL DEFAULT 'public',
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "deprecation_message" TEXT,
    "latest_version" TEXT,
    "download_count" INTEGER NOT NULL DEFAULT 0,
    "tool_type" TEXT,
    "file_extension" TEXT,
    "search_document" tsvector,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "item_versions" (
    "id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "major" INTEGER NOT NULL,
    "minor" INTEGER NOT NULL,
    "patch" INTEGER NOT NULL,
    "prerelease" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL,
    "content_hash" CHAR(64) NOT NULL,
    "file_sha256" CHAR(64) NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "author_fingerprint" TEXT,
    "author_signature" TEXT,
    "author_verified" BOOLEAN NOT NULL DEFAULT false,
    "publisher_id" UUID NOT NULL,
    "attestation" JSONB NOT NULL,
    "attestation_signature" TEXT NOT NULL,
    "log_index" BIGINT,
    "yanked" BOOLEAN NOT NULL DEFAULT false,
    "yanked_reason" TEXT,
    "yanked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "item_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bundles" (
    "id" UUID NOT NULL,
    "namespace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "visibility" "visibility" NOT NULL DEFAULT 'public',
    "latest_version" TEXT,
    "download_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "bundles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bundle_versions" (
    "id" UUID NOT NULL,
    "bundle_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "major" INTEGER NOT NULL,
    "minor" INTEGER NOT NULL,
    "patch" INTEGER NOT NULL,
    "prerelease" TEXT NOT NULL DEFAULT '',
    "manifest" TEXT NOT NULL,
    "manifest_sha256" CHAR(64) NOT NULL,
    "files" JSONB NOT NULL,
    "publisher_id" UUID NOT NULL,
    "attestation" JSONB NOT NULL,
    "attestation_signature" TEXT NOT NULL,
    "log_index" BIGINT,
    "yanked" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bundle_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "blobs" (
    "sha256" CHAR(64) NOT NULL,
    "size" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blobs_pkey" PRIMARY KEY ("sha256")
);

-- CreateTable
CREATE TABLE "registry_keys" (
    "id" UUID NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "public_key_pem" TEXT NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "valid_until" TIMESTAMPTZ(3),
    "previous_fingerprint" TEXT,
    "rotation_statement" JSONB,
    "rotation_signature" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "revocation_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "registry_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_keys" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "public_key_pem" TEXT NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "user_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "publish_log_entries" (
    "index" BIGINT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "prev_hash" CHAR(64) NOT NULL,
    "entry_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "publish_log_entries_pkey" PRIMARY KEY ("index")
);

-- CreateTable
CREATE TABLE "log_checkpoints" (
    "id" UUID NOT NULL,
    "tree_size" BIGINT NOT NULL,
    "head_hash" CHAR(64) NOT NULL,
    "key_fingerprint" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "actor_id" UUID,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "ip" TEXT,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "scopes" TEXT[],
    "namespace" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_username_key" ON "users"("username");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "organizations_name_key" ON "organizations"("name");

-- CreateIndex
CREATE INDEX "memberships_user_id_idx" ON "memberships"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "namespaces_name_key" ON "namespaces"("name");

-- CreateIndex
CREATE UNIQUE INDEX "namespaces_user_id_key" ON "namespaces"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "namespaces_org_id_key" ON "namespaces"("org_id");

-- CreateIndex
CREATE INDEX "items_namespace_id_updated_at_idx" ON "items"("namespace_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "items_updated_at_idx" ON "items"("updated_at" DESC);

-- CreateIndex
CREATE INDEX "items_search_document_idx" ON "items" USING GIN ("search_document");

-- CreateIndex
CREATE INDEX "items_name_trgm_idx" ON "items" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "items_type_namespace_id_category_name_key" ON "items"("type", "namespace_id", "category", "name");

-- CreateIndex
CREATE INDEX "item_versions_item_id_major_minor_patch_idx" ON "item_versions"("item_id", "major" DESC, "minor" DESC, "patch" DESC);

-- CreateIndex
CREATE INDEX "item_versions_publisher_id_idx" ON "item_versions"("publisher_id");

-- CreateIndex
CREATE UNIQUE INDEX "item_versions_item_id_version_key" ON "item_versions"("item_id", "version");

-- CreateIndex
CREATE INDEX "bundles_updated_at_idx" ON "bundles"("updated_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "bundles_namespace_id_name_key" ON "bundles"("namespace_id", "name");

-- CreateIndex
CREATE INDEX "bundle_versions_bundle_id_major_minor_patch_idx" ON "bundle_versions"("bundle_id", "major" DESC, "minor" DESC, "patch" DESC);

-- CreateIndex
CREATE INDEX "bundle_versions_publisher_id_idx" ON "bundle_versions"("publisher_id");

-- CreateIndex
CREATE UNIQUE INDEX "bundle_versions_bundle_id_version_key" ON "bundle_versions"("bundle_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "registry_keys_fingerprint_key" ON "registry_keys"("fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "user_keys_fingerprint_key" ON "user_keys"("fingerprint");

-- CreateIndex
CREATE INDEX "user_keys_user_id_idx" ON "user_keys"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "publish_log_entries_entry_hash_key" ON "publish_log_entries"("entry_hash");

-- CreateIndex
CREATE UNIQUE INDEX "log_checkpoints_tree_size_key" ON "log_checkpoints"("tree_size");

-- CreateIndex
CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at");

-- CreateIndex
CREATE INDEX "audit_events_target_type_target_id_idx" ON "audit_events"("target_type", "target_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "items" ADD CONSTRAINT "items_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_versions" ADD CONSTRAINT "item_versions_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_versions" ADD CONSTRAINT "item_versions_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bundles" ADD CONSTRAINT "bundles_namespace_id_fkey" FOREIGN KEY ("namespace_id") REFERENCES "namespaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bundle_versions" ADD CONSTRAINT "bundle_versions_bundle_id_fkey" FOREIGN KEY ("bundle_id") REFERENCES "bundles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bundle_versions" ADD CONSTRAINT "bundle_versions_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_keys" ADD CONSTRAINT "user_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma cannot express CHECK constraints; its diff ignores them):
-- a namespace belongs to exactly one user or one organization.
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_exactly_one_owner_check" CHECK (num_nonnulls("user_id", "org_id") = 1);
