/**
 * The registry the search bench measures (apps/web/bench/search.bench.ts): users, organizations,
 * namespaces and items seeded straight into the database in a few INSERT … SELECT statements, with the
 * search documents and item_search_terms rows the publish path would write.
 */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { hashToken, TOKEN_PREFIX } from "../../api/src/auth/api-tokens.ts";

// 400 words, Zipf-like use (word k appears about 1/k as often), so a query can be broad or rare.
export const WORDS = Array.from({ length: 400 }, (_, k) => {
  const base = ["deploy", "release", "build", "test", "lint", "format", "fetch", "parse", "render", "index", "search", "query", "cache", "queue", "schedule", "notify", "report", "audit", "sync", "backup", "restore", "migrate", "validate", "sign", "verify", "kubernetes", "terraform", "docker", "python", "review"];
  return k < base.length ? base[k]! : `${base[k % base.length]}${String.fromCharCode(97 + (k % 26))}${Math.floor(k / 26)}`;
});

/** What seeding needs of a database connection (a pg.Client, or PGlite's raw query). */
export interface SeedSql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** Seeds users, organizations, namespaces and `items` items in a few INSERT … SELECT statements. */
export async function seed(client: SeedSql, items: number): Promise<{ memberToken: string }> {
  {
    const t = performance.now();
    await client.query("BEGIN");
    // The read-generation triggers are deferred; pending events would forbid the ALTER TABLE below.
    await client.query("SET CONSTRAINTS ALL IMMEDIATE");
    await client.query(`CREATE TEMP TABLE words (k int PRIMARY KEY, w text) ON COMMIT DROP`);
    await client.query(`INSERT INTO words SELECT k - 1, w FROM unnest($1::text[]) WITH ORDINALITY AS u(w, k)`, [WORDS]);
    // 300 users and 30 organizations (with namespaces); the bench user is a member of every organization.
    await client.query(`
      INSERT INTO users (id, username, email, display_name, created_at, updated_at)
      SELECT gen_random_uuid(), 'user' || g, 'user' || g || '@bench.test', '', now(), now() FROM generate_series(1, 300) g`);
    await client.query(`INSERT INTO namespaces (id, name, user_id, created_at) SELECT gen_random_uuid(), username, id, now() FROM users WHERE username LIKE 'user%'`);
    await client.query(`INSERT INTO organizations (id, name, display_name, created_at) SELECT gen_random_uuid(), 'org' || g, '', now() FROM generate_series(1, 30) g`);
    await client.query(`INSERT INTO namespaces (id, name, org_id, created_at) SELECT gen_random_uuid(), name, id, now() FROM organizations WHERE name LIKE 'org%'`);
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM users WHERE username = 'user1'`);
    const memberId = rows[0]!.id;
    await client.query(`INSERT INTO memberships (org_id, user_id, role, created_at) SELECT id, $1::uuid, 'member', now() FROM organizations WHERE name LIKE 'org%'`, [memberId]);
    const memberToken = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
    await client.query(
      `INSERT INTO api_tokens (id, user_id, name, token_hash, scopes, created_at) VALUES (gen_random_uuid(), $1::uuid, 'bench', $2, ARRAY['items:read'], now())`,
      [memberId, hashToken(memberToken)],
    );
    // Items: types 40 % tool / 35 % knowledge / 25 % directive; 3 % private (organizations), 2 % unlisted;
    // 40 top-level categories with 5 sub-categories; heavy-tailed download counts; a year of updates.
    const w = (expr: string) => `(SELECT w FROM words WHERE k = (${expr})::int % 400)`;
    const zipf = (salt: number) => `floor(exp(ln(400) * ((hashint4(g * ${salt}) & 65535)::float8 / 65536)))::int - 1`;
    await client.query(
      `
      WITH ns AS (SELECT id, name, row_number() OVER (ORDER BY name) - 1 AS n, org_id IS NOT NULL AS org FROM namespaces WHERE name ~ '^(user|org)[0-9]+$'),
      g AS (SELECT g, (hashint4(g) & 2147483647) AS h FROM generate_series(1, $1::int) g)
      INSERT INTO items (id, type, namespace_id, category, name, description, visibility, deprecated, latest_version, download_count, tool_type, file_extension, created_at, updated_at)
      SELECT gen_random_uuid(),
             (CASE WHEN h % 100 < 40 THEN 'tool' WHEN h % 100 < 75 THEN 'knowledge' ELSE 'directive' END)::item_type,
             ns.id,
             'area' || (h / 7 % 40) || CASE WHEN h % 3 = 0 THEN '' ELSE '/sub' || (h / 11 % 5) END,
             ${w(zipf(3))} || '_' || ${w(zipf(5))} || '_' || g,
             initcap(${w(zipf(7))}) || ' and ' || ${w(zipf(11))} || ' for ' || ${w(zipf(13))} || ' ' || ${w(zipf(17))} || ' with ' || ${w(zipf(19))} || ' pipelines',
             (CASE WHEN ns.org AND h % 100 < 60 THEN 'private' WHEN h % 100 = 99 THEN 'unlisted' ELSE 'public' END)::visibility,
             h % 97 = 0,
             '1.' || (h % 10) || '.0',
             CASE WHEN h % 10 = 0 THEN (h % 5000) ELSE h % 40 END,
             CASE WHEN h % 100 < 40 THEN (ARRAY['python','javascript','bash','http','mcp'])[1 + h % 5] END,
             CASE WHEN h % 100 < 40 THEN '.py' WHEN h % 100 < 75 THEN '.md' ELSE '.md' END,
             now() - ((h % 365) || ' days')::interval,
             now() - ((h % 365) || ' days')::interval + ((h % 86400) || ' seconds')::interval
      FROM g JOIN ns ON ns.n = g.h % (SELECT count(*) FROM ns)`,
      [items],
    );
    // The same document the publish path writes (services/search-document.ts), with generated content.
    // The per-row trigger that keeps item_search_terms is replaced by one set-based insert (same ranks).
    await client.query(`ALTER TABLE items DISABLE TRIGGER items_search_terms`);
    await client.query(`
      UPDATE items SET search_document =
        setweight(to_tsvector('simple', regexp_replace(name, '[_/.-]', ' ', 'g') || ' ' || name), 'A') ||
        setweight(to_tsvector('simple', coalesce(description, '')), 'B') ||
        setweight(to_tsvector('simple', regexp_replace(category, '[_/.-]', ' ', 'g')), 'C') ||
        setweight(to_tsvector('simple', description || ' ' || name || ' notes about ' || category), 'D')
      WHERE namespace_id IN (SELECT id FROM namespaces WHERE name ~ '^(user|org)[0-9]+$')`);
    await client.query(`
      INSERT INTO item_search_terms (term, item_id, rank)
      SELECT u.lexeme, i.id, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', i.search_document, quote_literal(u.lexeme)::tsquery, 32)
      FROM items i, unnest(i.search_document) AS u(lexeme, positions, weights)
      WHERE i.namespace_id IN (SELECT id FROM namespaces WHERE name ~ '^(user|org)[0-9]+$')`);
    await client.query(`ALTER TABLE items ENABLE TRIGGER items_search_terms`);
    await client.query("COMMIT");
    // All-visible pages make the posting walks index-only, as on a registry that autovacuum keeps; a plain
    // VACUUM right after the seed left item_search_terms without a page marked (FREEZE marks them).
    for (let attempt = 0; attempt < 5; attempt++) {
      await client.query("VACUUM (FREEZE, ANALYZE) items");
      await client.query("VACUUM (FREEZE, ANALYZE) item_search_terms");
      const { rows } = await client.query<{ ok: boolean }>(`SELECT bool_and(relallvisible >= relpages * 0.9) AS ok FROM pg_class WHERE relname IN ('items', 'item_search_terms')`);
      if (rows[0]?.ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await client.query("ANALYZE namespaces");
    const count = await client.query<{ n: string; public: string; visible: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE visibility = 'public') AS public,
              (SELECT round(100.0 * relallvisible / greatest(relpages, 1)) FROM pg_class WHERE relname = 'item_search_terms') AS visible FROM items`,
    );
    const c = count.rows[0]!;
    console.log(`seeded ${c.n} items (${c.public} public) in ${((performance.now() - t) / 1000).toFixed(1)} s; ${c.visible} % of item_search_terms all-visible (index-only scans)`);
    return { memberToken };
  }
}

