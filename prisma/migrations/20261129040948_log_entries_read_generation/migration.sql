-- A pull answer's transparency section carries its log entry (services/pull-transparency.ts keeps leaves for one read
-- generation): an entry changed or deleted out of band (a repair, or a tamper) must be read again on the next pull.
-- Appends need no bump: they happen in the transactions that change items, versions or keys, which bump it already.
CREATE CONSTRAINT TRIGGER "publish_log_entries_read_generation"
  AFTER UPDATE OR DELETE ON "publish_log_entries" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
