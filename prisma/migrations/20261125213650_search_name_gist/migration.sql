-- Typo (trigram) search pages the names nearest the query (KNN over `<<->`, services/search.ts) instead of
-- computing the word similarity of every match. The GIN trigram index stays: it serves the exact path's
-- bitmap scans. 1 024-byte signatures keep the inner pages' distance bounds tight (the default 12 bytes read
-- about twice as many pages for the same page of results at 100 000 items).
-- CreateIndex
CREATE INDEX "items_name_trgm_gist_idx" ON "items" USING GIST ("name" gist_trgm_ops(siglen=1024));
