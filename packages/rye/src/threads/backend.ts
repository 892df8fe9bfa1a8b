/**
 * Which back end a project's threads use (docs/agent-runtime.md §13): `local` (the default: the budget ledger in
 * `.ai/threads/ledger.json`, async children as detached processes of this machine) or `postgres` (the ledger in SQL
 * and async children as durable jobs that any `rye thread worker` on the same PostgreSQL picks up).
 *
 * Chosen by the environment, so every process of a thread tree (CLI, thread processes, workers) agrees:
 * `RYE_THREADS_BACKEND=local|postgres` and, for postgres, `RYE_THREADS_DATABASE_URL`.
 */
import { RyeError } from "@rye/core";

export type ThreadsBackend = { kind: "local" } | { kind: "postgres"; databaseUrl: string };

export function threadsBackend(env: NodeJS.ProcessEnv = process.env): ThreadsBackend {
  const kind = (env.RYE_THREADS_BACKEND ?? "").trim() || "local";
  if (kind === "local") return { kind: "local" };
  if (kind !== "postgres") {
    throw new RyeError("BAD_REQUEST", `RYE_THREADS_BACKEND must be local or postgres, got ${JSON.stringify(kind)}`, { hint: "Unset it for the local back end, or set it to postgres with RYE_THREADS_DATABASE_URL." });
  }
  const databaseUrl = (env.RYE_THREADS_DATABASE_URL ?? "").trim();
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new RyeError("BAD_REQUEST", "RYE_THREADS_BACKEND=postgres needs RYE_THREADS_DATABASE_URL, a postgres:// connection string", { hint: "e.g. RYE_THREADS_DATABASE_URL=postgres://rye@db.internal:5432/rye" });
  }
  return { kind: "postgres", databaseUrl };
}
