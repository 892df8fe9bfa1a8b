-- The static review of a version at publish time (risk and findings).
-- AlterTable
ALTER TABLE "item_versions" ADD COLUMN     "review" JSONB;
