-- Search and the home page sort by downloads (sort=downloads): most pulled first, ties by id, as an index scan.
-- CreateIndex
CREATE INDEX "items_download_count_id_idx" ON "items"("download_count" DESC, "id");
