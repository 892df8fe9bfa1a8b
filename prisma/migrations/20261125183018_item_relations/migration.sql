-- CreateTable
CREATE TABLE "item_relations" (
    "version_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "target_type" "item_type" NOT NULL,
    "target_ref" TEXT NOT NULL,
    "target_version" TEXT,
    "target_item_id" UUID,

    CONSTRAINT "item_relations_pkey" PRIMARY KEY ("version_id","target_type","target_ref")
);

-- CreateIndex
CREATE INDEX "item_relations_target_item_id_idx" ON "item_relations"("target_item_id");

-- CreateIndex
CREATE INDEX "item_relations_target_type_target_ref_idx" ON "item_relations"("target_type", "target_ref");

-- AddForeignKey
ALTER TABLE "item_relations" ADD CONSTRAINT "item_relations_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "item_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_relations" ADD CONSTRAINT "item_relations_target_item_id_fkey" FOREIGN KEY ("target_item_id") REFERENCES "items"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The three kinds of use (@rye/core REFERENCE_KINDS).
ALTER TABLE "item_relations" ADD CONSTRAINT "item_relations_kind_check" CHECK ("kind" IN ('execute', 'load', 'executor'));
