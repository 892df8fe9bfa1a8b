-- Row-level security for Supabase's auto-generated REST API (PostgREST) on the registry's tables.
--
-- The registry itself connects as the tables' owner, which RLS does not restrict, and `service_role` bypasses RLS;
-- what this migration closes is the door the REST API opens to the `anon` and `authenticated` roles (requests with
-- the anon key, or with a user's Supabase JWT). Default: nothing. Supabase grants every new table of `public` to
-- anon and authenticated; here every such grant is revoked, also for tables created later, and RLS is on for every
-- table (the generated migrations keep it on for tables later Prisma migrations add).
-- Open, read-only, are only:
--   - public, published items and bundles, and their published (non-held) versions: what `GET /v1/search` and
--     `GET /v1/pull` show anyone;
--   - namespaces and organizations by name;
--   - to a signed-in Supabase user (auth.uid(), linked to a rye account through `identities`, provider
--     "supabase"): the private/unlisted items and bundles of their own namespace and of their organizations', with
--     every version, and their own memberships.
-- Closed to both roles whatever their claims: users (password hashes), api_tokens, web_sessions, refresh_tokens,
-- authorization_codes, device_authorizations, org_invitations, identities, webhooks (HMAC secrets),
-- webhook_deliveries, user_keys, registry_keys, blobs, audit_events, the publish log, search terms, counters and
-- every other table. Writes always go through the registry's API (signatures, attestations, the log).
-- Tested on PostgreSQL with Supabase's roles and auth functions reproduced: supabase/test/supabase.test.ts.

-- Helpers in a schema the REST API does not expose (PostgREST serves `public` and `graphql_public`).
CREATE SCHEMA IF NOT EXISTS rye_rls;
REVOKE ALL ON SCHEMA rye_rls FROM PUBLIC;
GRANT USAGE ON SCHEMA rye_rls TO anon, authenticated;

-- The rye account of the Supabase user making the request (null for anon or an unlinked/disabled account).
-- SECURITY DEFINER: it reads `identities` and `users`, which the caller itself may not read.
CREATE OR REPLACE FUNCTION rye_rls.current_user_id() RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT i.user_id
  FROM public.identities i
  JOIN public.users u ON u.id = i.user_id
  WHERE i.provider = 'supabase'
    AND i.subject = (auth.uid())::text
    AND u.disabled_at IS NULL
    AND coalesce(auth.jwt() ->> 'is_anonymous', 'false') <> 'true'
  LIMIT 1
$$;

-- True when the requesting user owns the namespace or is a member of the organization that owns it.
CREATE OR REPLACE FUNCTION rye_rls.can_read_namespace(namespace uuid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = '' AS $$
  SELECT EXISTS (
    SELECT 1
    FROM public.namespaces n
    LEFT JOIN public.memberships m ON m.org_id = n.org_id AND m.user_id = rye_rls.current_user_id()
    WHERE n.id = namespace
      AND rye_rls.current_user_id() IS NOT NULL
      AND (n.user_id = rye_rls.current_user_id() OR m.user_id IS NOT NULL)
  )
$$;

REVOKE ALL ON FUNCTION rye_rls.current_user_id() FROM PUBLIC;
REVOKE ALL ON FUNCTION rye_rls.can_read_namespace(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION rye_rls.current_user_id() TO anon, authenticated;
GRANT EXECUTE ON FUNCTION rye_rls.can_read_namespace(uuid) TO anon, authenticated;

-- RLS on for every table of public (tables of later migrations: see the generated migrations).
DO $rye$
DECLARE t regclass;
BEGIN
  FOR t IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') LOOP
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
  END LOOP;
END
$rye$;

-- No privilege for anon/authenticated on anything in public, now or later (the REST API's RPC included).
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM anon, authenticated;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM anon, authenticated;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC, anon, authenticated;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM anon, authenticated;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM anon, authenticated;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON FUNCTIONS FROM PUBLIC, anon, authenticated;

-- Names: public (every page shows them). Owner ids are not granted.
GRANT SELECT (id, name, created_at) ON public.namespaces TO anon, authenticated;
CREATE POLICY namespaces_read ON public.namespaces FOR SELECT TO anon, authenticated USING (true);
GRANT SELECT (id, name, display_name, created_at) ON public.organizations TO anon, authenticated;
CREATE POLICY organizations_read ON public.organizations FOR SELECT TO anon, authenticated USING (true);

-- Items: public and not held, or readable through the caller's namespaces (private and unlisted included).
-- (Whole rows: nothing in an item row is secret, and `select=*` keeps working through the REST API. Tables with
-- column grants below need the columns named: `select=id,version,…`.)
GRANT SELECT ON public.items TO anon, authenticated;
CREATE POLICY items_read_public ON public.items FOR SELECT TO anon, authenticated
  USING (visibility = 'public' AND NOT held);
CREATE POLICY items_read_own ON public.items FOR SELECT TO authenticated
  USING (rye_rls.can_read_namespace(namespace_id));

-- Versions: published versions of an item the caller may read (the sub-select is itself filtered by the items
-- policies); every version (held, rejected) of the caller's own items.
GRANT SELECT (id, item_id, version, major, minor, patch, prerelease, content, content_hash, file_sha256, size_bytes,
              author_fingerprint, author_signature, author_verified, attestation, attestation_signature, log_index,
              skill_artifacts, yanked, yanked_reason, yanked_at, status, created_at) ON public.item_versions TO anon, authenticated;
CREATE POLICY item_versions_read_published ON public.item_versions FOR SELECT TO anon, authenticated
  USING (status = 'published' AND EXISTS (SELECT 1 FROM public.items i WHERE i.id = item_versions.item_id));
CREATE POLICY item_versions_read_own ON public.item_versions FOR SELECT TO authenticated
  USING (EXISTS (SELECT 1 FROM public.items i WHERE i.id = item_versions.item_id AND rye_rls.can_read_namespace(i.namespace_id)));

-- Bundles: as items (bundles are never held).
GRANT SELECT ON public.bundles TO anon, authenticated;
CREATE POLICY bundles_read_public ON public.bundles FOR SELECT TO anon, authenticated USING (visibility = 'public');
CREATE POLICY bundles_read_own ON public.bundles FOR SELECT TO authenticated USING (rye_rls.can_read_namespace(namespace_id));
GRANT SELECT (id, bundle_id, version, major, minor, patch, prerelease, manifest, manifest_sha256, files, attestation,
              attestation_signature, log_index, yanked, created_at) ON public.bundle_versions TO anon, authenticated;
CREATE POLICY bundle_versions_read ON public.bundle_versions FOR SELECT TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM public.bundles b WHERE b.id = bundle_versions.bundle_id));

-- Memberships: one's own.
GRANT SELECT (org_id, user_id, role, created_at) ON public.memberships TO authenticated;
CREATE POLICY memberships_read_own ON public.memberships FOR SELECT TO authenticated USING (user_id = rye_rls.current_user_id());
