import assert from "node:assert/strict";
import { test } from "node:test";
import { rejects } from "../../test/rejects.ts";
import { threadsBackend } from "./backend.ts";
import { startWorker } from "./worker.ts";

test("the threads back end: local by default; postgres needs a postgres:// URL; anything else is refused", () => {
  assert.deepEqual(threadsBackend({}), { kind: "local" });
  assert.deepEqual(threadsBackend({ RYE_THREADS_BACKEND: " local " }), { kind: "local" });
  assert.deepEqual(threadsBackend({ RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: "postgresql://u@h:5432/d" }), { kind: "postgres", databaseUrl: "postgresql://u@h:5432/d" });
  for (const env of [{ RYE_THREADS_BACKEND: "postgres" }, { RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: "mysql://h/d" }, { RYE_THREADS_BACKEND: "redis" }]) {
    assert.throws(() => threadsBackend(env), (err: { code?: string }) => err.code === "BAD_REQUEST", JSON.stringify(env));
  }
});

test("a worker refuses to start without the postgres back end, or with a concurrency out of range", async () => {
  await rejects(startWorker({ projectPath: ".", env: {}, concurrency: 1 }), "BAD_REQUEST", /postgres threads back end/);
  const env = { RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };
  for (const concurrency of [0, 65, 1.5]) await rejects(startWorker({ projectPath: ".", env, concurrency }), "BAD_REQUEST", /concurrency/);
});
