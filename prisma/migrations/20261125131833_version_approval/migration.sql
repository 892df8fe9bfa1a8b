-- Approval of new versions (RYE_REGISTRY_APPROVAL=off|flagged|all): a version is published, pending (held, invisible)
-- or rejected; items.held marks an item none of whose versions is published yet (hidden like a missing one);
-- organizations.approval_mode is an organization's own, stricter setting (null: the registry's).
-- CreateEnum
CREATE TYPE "version_status" AS ENUM ('published', 'pending', 'rejected');

-- CreateEnum
CREATE TYPE "approval_mode" AS ENUM ('off', 'flagged', 'all');

-- AlterTable
ALTER TABLE "item_versions" ADD COLUMN     "decided_at" TIMESTAMPTZ(3),
ADD COLUMN     "decided_by_id" UUID,
ADD COLUMN     "decision_reason" TEXT,
ADD COLUMN     "held_reason" TEXT,
ADD COLUMN     "status" "version_status" NOT NULL DEFAULT 'published';

-- AlterTable
ALTER TABLE "items" ADD COLUMN     "held" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "approval_mode" "approval_mode";

-- CreateIndex
CREATE INDEX "item_versions_status_created_at_idx" ON "item_versions"("status", "created_at");
