-- CreateTable
CREATE TABLE "namespace_verifications" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "challenge" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "verified_key" TEXT,
    "challenge_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "verified_at" TIMESTAMPTZ(3),
    "last_checked_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespace_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "revoked_access_tokens" (
    "jti" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "revoked_access_tokens_pkey" PRIMARY KEY ("jti")
);

-- CreateIndex
CREATE UNIQUE INDEX "namespace_verifications_verified_key_key" ON "namespace_verifications"("verified_key");

-- CreateIndex
CREATE INDEX "namespace_verifications_status_last_checked_at_idx" ON "namespace_verifications"("status", "last_checked_at");

-- CreateIndex
CREATE UNIQUE INDEX "namespace_verifications_org_id_kind_subject_key" ON "namespace_verifications"("org_id", "kind", "subject");

-- CreateIndex
CREATE INDEX "revoked_access_tokens_expires_at_idx" ON "revoked_access_tokens"("expires_at");

-- AddForeignKey
ALTER TABLE "namespace_verifications" ADD CONSTRAINT "namespace_verifications_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Prisma cannot express these: the closed sets of kinds and states, and verified_key present exactly while verified.
ALTER TABLE "namespace_verifications" ADD CONSTRAINT "namespace_verifications_kind_check" CHECK ("kind" IN ('dns', 'github'));
ALTER TABLE "namespace_verifications" ADD CONSTRAINT "namespace_verifications_status_check" CHECK ("status" IN ('pending', 'verified', 'lapsed'));
ALTER TABLE "namespace_verifications" ADD CONSTRAINT "namespace_verifications_verified_key_check" CHECK (("status" = 'verified') = ("verified_key" IS NOT NULL));
