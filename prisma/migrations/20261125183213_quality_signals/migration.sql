-- AlterTable
ALTER TABLE "item_versions" ADD COLUMN     "quality" JSONB,
ADD COLUMN     "safety" JSONB,
ADD COLUMN     "safety_rules_version" TEXT;

-- AlterTable
ALTER TABLE "items" ADD COLUMN     "latest_published_at" TIMESTAMPTZ(3),
ADD COLUMN     "quality_max" INTEGER,
ADD COLUMN     "quality_points" INTEGER;
