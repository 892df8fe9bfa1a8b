-- Agent Skills: a registry item type 'skill' (id namespace/name) and the blobs of each version's served artifacts.
-- AlterEnum
ALTER TYPE "item_type" ADD VALUE 'skill';

-- AlterTable
ALTER TABLE "item_versions" ADD COLUMN     "skill_artifacts" JSONB;
