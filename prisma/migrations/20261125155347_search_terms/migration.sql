-- CreateTable
CREATE TABLE "item_search_terms" (
    "term" TEXT NOT NULL,
    "item_id" UUID NOT NULL,
    "rank" REAL NOT NULL,

    CONSTRAINT "item_search_terms_pkey" PRIMARY KEY ("term","item_id")
);

-- CreateIndex
CREATE INDEX "item_search_terms_term_rank_item_id_idx" ON "item_search_terms"("term", "rank" DESC, "item_id");

-- CreateIndex
CREATE INDEX "item_search_terms_item_id_idx" ON "item_search_terms"("item_id");

-- AddForeignKey
ALTER TABLE "item_search_terms" ADD CONSTRAINT "item_search_terms_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The rank a one-word query gives each lexeme of an item, kept in step with items.search_document.
-- The expression must stay the one services/search.ts ranks with: ts_rank_cd with weights
-- {D 0.1, C 0.2, B 0.4, A 1.0} and normalization 32, against the one-lexeme tsquery of the term.
CREATE FUNCTION "rye_refresh_item_search_terms"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "item_search_terms" WHERE "item_id" = NEW."id";
  IF NEW."search_document" IS NOT NULL THEN
    INSERT INTO "item_search_terms" ("term", "item_id", "rank")
    SELECT u.lexeme, NEW."id",
           ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', NEW."search_document",
                      ('''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery, 32)
    FROM unnest(NEW."search_document") AS u(lexeme, positions, weights);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "items_search_terms" AFTER INSERT OR UPDATE OF "search_document" ON "items"
  FOR EACH ROW EXECUTE FUNCTION "rye_refresh_item_search_terms"();

INSERT INTO "item_search_terms" ("term", "item_id", "rank")
SELECT u.lexeme, i."id",
       ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', i."search_document",
                  ('''' || replace(replace(u.lexeme, '\', '\\'), '''', '''''') || '''')::tsquery, 32)
FROM "items" i, unnest(i."search_document") AS u(lexeme, positions, weights)
WHERE i."search_document" IS NOT NULL;

-- Items named exactly like a query (case-insensitively) rank first; this finds them without a scan.
CREATE INDEX "items_lower_name_idx" ON "items" (lower("name"));
