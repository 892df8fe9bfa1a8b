/**
 * One PostgreSQL pool per process and database URL for the `postgres` threads back end. Idle connections never
 * keep a process alive (`allowExitOnIdle`): a thread process ends when its work does, as with the local back end.
 */
import pg from "pg";

const pools = new Map<string, pg.Pool>();

export function threadsPool(databaseUrl: string): pg.Pool {
  let pool = pools.get(databaseUrl);
  if (!pool) {
    pool = new pg.Pool({ connectionString: databaseUrl, max: 4, allowExitOnIdle: true });
    // A connection the server ends (a restart, a terminated backend) is replaced on the next query.
    pool.on("error", () => undefined);
    pools.set(databaseUrl, pool);
  }
  return pool;
}

/** Closes every pool of this process (tests and `rye thread worker` on shutdown). */
export async function closeThreadsPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}
