import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { SqlSession } from "./migrate.ts";

/** A session on one pg connection (a `pg.Client` or a client checked out of a pool). */
export function pgSession(client: pg.ClientBase): SqlSession {
  return {
    query: async <Row>(sql: string, params?: unknown[]) => ({ rows: (await client.query(sql, params)).rows as Row[] }),
    exec: (sql) => client.query(sql),
  };
}

/** Runs `fn` on a connection checked out of `pool` (transactions need a single connection). */
export async function withPgSession<T>(pool: pg.Pool, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await fn(pgSession(client));
  } catch (error) {
    broken = true; // the connection may be left inside a transaction: discard it
    throw error;
  } finally {
    client.release(broken);
  }
}

/** PGlite is a single session already. */
export function pgliteSession(db: PGlite): SqlSession {
  return {
    query: async <Row>(sql: string, params?: unknown[]) => ({ rows: (await db.query<Row>(sql, params)).rows }),
    exec: (sql) => db.exec(sql),
  };
}
