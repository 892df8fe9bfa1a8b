import type pg from "pg";

/** How long endPool waits for the pool's connections to close after `pool.end()` (they close in milliseconds). */
export const END_POOL_TIMEOUT_MS = 10_000;

/**
 * Ends `pool` and resolves once every one of its connections has closed, or after END_POOL_TIMEOUT_MS.
 * `pool.end()` alone resolves as soon as it has asked its idle connections to close, before their server sessions
 * have ended: a `DROP DATABASE … WITH (FORCE)` right after (a test's scratch database) then terminates one, and its
 * "terminating connection due to administrator command" arrives as an 'error' event after the caller moved on.
 */
export async function endPool(pool: pg.Pool, timeoutMs = END_POOL_TIMEOUT_MS): Promise<void> {
  const closing = pool.totalCount;
  let onRemove = () => {};
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    if (closing === 0) return resolve();
    let removed = 0;
    onRemove = () => {
      if (++removed >= closing) resolve();
    };
    pool.on("remove", onRemove);
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await pool.end();
    await closed;
  } finally {
    clearTimeout(timer);
    pool.off("remove", onRemove);
  }
}
