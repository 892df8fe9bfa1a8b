/**
 * A suite's pool never outlives its scratch database: endPool waits for the connections to close, and drop() lets
 * sessions that are closing end on their own before it forces. The race is made certain by stopping the server
 * process of the pool's session (SIGSTOP) so that it cannot read the pool's goodbye until it is continued.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { endPool } from "./end-pool.ts";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "./testing.ts";

const skip = skipWithoutPostgres();

/** A scratch database with a one-connection pool whose errors are recorded, and its session's server process. */
async function poolWithStoppableSession() {
  const scratch = await createScratchPostgresDatabase();
  const pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
  const errors: string[] = [];
  pool.on("error", (error) => errors.push(error.message));
  const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  const pid = rows[0]!.pid;
  let stopped = false;
  return {
    scratch,
    pool,
    errors,
    stop: () => {
      process.kill(pid, "SIGSTOP");
      stopped = true;
    },
    resume: () => {
      if (stopped) process.kill(pid, "SIGCONT");
      stopped = false;
    },
    sessions: async () => {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        const { rows: n } = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [new URL(scratch.url).pathname.slice(1)]);
        return n[0]!.n;
      } finally {
        await admin.end();
      }
    },
  };
}

test("endPool resolves only once the pool's connections have closed", { skip }, async () => {
  const s = await poolWithStoppableSession();
  try {
    s.stop();
    let ended = false;
    const ending = endPool(s.pool).then(() => (ended = true));
    await sleep(300);
    assert.equal(ended, false, "endPool waited: the server has not read the pool's goodbye yet");
    assert.equal(await s.sessions(), 1);
    s.resume();
    await ending;
    assert.equal(await s.sessions(), 0, "when endPool resolves, the session is gone");
  } finally {
    s.resume();
    await s.scratch.drop();
  }
  assert.deepEqual(s.errors, []);
});

test("drop() lets a session that is closing end instead of terminating it under its client", { skip }, async () => {
  const s = await poolWithStoppableSession();
  try {
    s.stop();
    await s.pool.end(); // resolves at once: the pool asked its connection to close, the session is still there
    const dropping = s.scratch.drop();
    await sleep(300);
    s.resume();
    await dropping;
    await sleep(200);
  } finally {
    s.resume();
  }
  assert.deepEqual(s.errors, [], "no 'terminating connection due to administrator command' reached the pool");
});
