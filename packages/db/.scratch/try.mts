import { diffMigrationsToSchema, pgliteEngineTarget } from "/work/main/packages/db/src/schema-engine.ts";
import { schemaPath, migrationsDir } from "/work/main/packages/db/src/paths.ts";
const t0 = performance.now();
const target = await pgliteEngineTarget();
console.error("boot", performance.now() - t0);
try {
  const r = await diffMigrationsToSchema(target, { schemaPath, migrationsDir });
  console.error("exit", r.exitCode, performance.now() - t0);
  console.log(r.stdout);
} finally { await target.close(); }
