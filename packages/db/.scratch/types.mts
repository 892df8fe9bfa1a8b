import { openDatabase } from "../src/client.ts";
const sql = `SELECT 1::int8 AS i8, 2::int4 AS i4, 1.5::float4 AS f4, 2.5::float8 AS f8, 3.25::numeric AS num, now() AS ts, '{"a":1}'::jsonb AS j, ARRAY['x','y'] AS arr, gen_random_uuid() AS u, 'a b'::tsvector AS tsv, '\\x0102'::bytea AS b, true AS bool, count(*) AS cnt, similarity('hello','helo') AS sim, '2020-01-01'::date AS d FROM (SELECT 1) s`;
for (const kind of ["pg", "pglite"]) {
  const t0 = performance.now();
  const db = await openDatabase(kind === "pg" ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: "memory://" });
  console.log(kind, "open+migrate", Math.round(performance.now() - t0));
  const { rows } = await db.raw.query(sql);
  for (const [k, v] of Object.entries(rows[0]!)) console.log(" ", k, typeof v, v instanceof Date ? "Date" : Array.isArray(v) ? "Array" : v?.constructor?.name, String(v).slice(0,40));
  await db.close();
}
