-- CreateTable
CREATE TABLE "read_generation" (
    "id" INTEGER NOT NULL,
    "value" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "read_generation_pkey" PRIMARY KEY ("id")
);

-- The single generation row, and the triggers that bump it (not expressible in schema.prisma).
INSERT INTO "read_generation" ("id", "value") VALUES (1, 0);

-- Bumps the generation once per transaction, at commit: the triggers are deferred constraint triggers, so the
-- row lock on read_generation is the last lock a writer takes (no lock-order cycle with the item row locks of
-- item management) and is held only while the transaction commits. pg_notify tells in-process listeners
-- (PGlite) at commit; PostgreSQL readers compare the value instead (see read-generation.ts for why).
CREATE FUNCTION "rye_bump_read_generation"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_value BIGINT;
BEGIN
  IF current_setting('rye.read_generation_bumped', true) = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('rye.read_generation_bumped', 'on', true);
  UPDATE "read_generation" SET "value" = "value" + 1 WHERE "id" = 1 RETURNING "value" INTO next_value;
  PERFORM pg_notify('rye_read_generation', next_value::text);
  RETURN NULL;
END
$$;

-- Everything a pull answer is made of, except download_count (counted in memory and flushed in batches) and the
-- search document. Registry keys: rotation and revocation.
CREATE CONSTRAINT TRIGGER "items_read_generation"
  AFTER INSERT OR DELETE OR UPDATE OF "type", "namespace_id", "category", "name", "visibility", "deprecated", "deprecation_message", "held", "latest_version", "file_extension"
  ON "items" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
CREATE CONSTRAINT TRIGGER "item_versions_read_generation"
  AFTER INSERT OR UPDATE OR DELETE ON "item_versions" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
CREATE CONSTRAINT TRIGGER "namespaces_read_generation"
  AFTER UPDATE OR DELETE ON "namespaces" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
CREATE CONSTRAINT TRIGGER "users_read_generation"
  AFTER UPDATE OF "username" ON "users" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
CREATE CONSTRAINT TRIGGER "registry_keys_read_generation"
  AFTER INSERT OR UPDATE OR DELETE ON "registry_keys" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "rye_bump_read_generation"();
