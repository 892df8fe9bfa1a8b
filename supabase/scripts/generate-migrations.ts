// npm run supabase:migrations [-- --check]: writes supabase/migrations/<name>.sql for every prisma/migrations/<name>
// (see migrations.ts) and removes generated files whose Prisma migration is gone. --check writes nothing and
// exits 1 when the files differ from what would be generated.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readGeneratedMigrations, renderSupabaseMigrations } from "./migrations.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const target = join(root, "supabase/migrations");
const check = process.argv.includes("--check");

const wanted = renderSupabaseMigrations(join(root, "prisma/migrations"));
const present = readGeneratedMigrations(target);
const stale = [...present.keys()].filter((file) => !wanted.some((m) => m.file === file));
const changed = wanted.filter((m) => present.get(m.file) !== m.sql);

if (check) {
  for (const m of changed) console.error(`supabase:migrations: ${m.file} is ${present.has(m.file) ? "out of date" : "missing"}`);
  for (const file of stale) console.error(`supabase:migrations: ${file} has no Prisma migration any more`);
  if (changed.length + stale.length > 0) {
    console.error("supabase:migrations: run `npm run supabase:migrations` and commit the result");
    process.exit(1);
  }
  console.log(`supabase:migrations: ${wanted.length} migrations up to date`);
} else {
  for (const m of changed) writeFileSync(join(target, m.file), m.sql);
  for (const file of stale) rmSync(join(target, file));
  console.log(`supabase:migrations: ${changed.length} written, ${stale.length} removed, ${wanted.length - changed.length} unchanged`);
}
