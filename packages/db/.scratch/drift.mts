import { diffMigrationsToSchema, pgliteEngineTarget, pgEngineTarget } from "../src/schema-engine.ts";
import { schemaPath, migrationsDir } from "../src/paths.ts";
const t0 = performance.now();
const target = process.argv[2] === "pg" ? pgEngineTarget(process.env.DATABASE_URL!) : await pgliteEngineTarget();
try {
  const r = await diffMigrationsToSchema(target, { schemaPath, migrationsDir });
  console.log("exit", r.exitCode, Math.round(performance.now() - t0), "ms");
  console.log(r.stdout);
} finally { await target.close(); }
