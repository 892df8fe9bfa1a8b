// Dev tooling only (imports the devDependency @prisma/schema-engine-wasm): drives Prisma's Wasm schema
// engine, because the native engine that `prisma migrate` spawns cannot be downloaded here. It diffs
// the SQL migrations against schema.prisma, which both writes new migrations and proves the two agree.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type { DiffResult, MigrationList } from "@prisma/schema-engine-wasm";
import * as glue from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { endPool } from "./end-pool.ts";
import { readMigrations } from "./migrations-dir.ts";
import { createPglite } from "./pglite.ts";

/** A database the engine may connect to, and how to release what it opened. */
export interface EngineTarget {
  factory: SqlMigrationAwareDriverAdapterFactory;
  close(): Promise<void>;
}

export interface DiffOptions {
  schemaPath: string;
  migrationsDir: string;
}

/**
 * SQL that brings a database built from `migrationsDir` to `schemaPath` (`migrate diff
 * --from-migrations --to-schema --script --exit-code`): exitCode 0 when they agree, 2 otherwise.
 */
export async function diffMigrationsToSchema(target: EngineTarget, options: DiffOptions): Promise<DiffResult> {
  await loadWasm();
  const schema = readFileSync(options.schemaPath, "utf8");
  const engine = await glue.SchemaEngine.new(
    { datamodels: [[options.schemaPath, schema]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(target.factory),
  );
  try {
    return await engine.diff({
      from: { tag: "migrations", ...migrationList(options.migrationsDir) },
      to: { tag: "schemaDatamodel", files: [{ path: options.schemaPath, content: schema }] },
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
  } finally {
    engine.free();
  }
}

/**
 * A throwaway in-memory PGlite that serves as both the main and the shadow database: the diff only
 * replays migrations on the shadow, and one instance saves a second 3-5 s initdb.
 */
export async function pgliteEngineTarget(): Promise<EngineTarget> {
  const db = await createPglite();
  const base = new PrismaPGlite(db);
  const connect = async (): Promise<SqlDriverAdapter> => {
    const adapter = (await base.connect()) as unknown as SqlDriverAdapter;
    // The adapter's executeScript does not await PGlite, so a failing migration would go unnoticed.
    adapter.executeScript = async (script) => {
      await db.exec(script);
    };
    adapter.dispose = async () => {};
    return adapter;
  };
  return {
    factory: { provider: "postgres", adapterName: base.adapterName, connect, connectToShadowDb: connect },
    close: () => db.close(),
  };
}

/** The server of `databaseUrl`; shadow databases are created on it and dropped afterwards. */
export function pgEngineTarget(databaseUrl: string): EngineTarget {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const base = new PrismaPg(pool);
  const shadows = new Set<string>();
  const dropShadow = async (name: string) => {
    shadows.delete(name);
    await pool.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  return {
    factory: {
      provider: "postgres",
      adapterName: base.adapterName,
      connect: async () => patchPgAdapter(await base.connect(), pool),
      // Replaces PrismaPg's own, which drops the shadow database while its pool is still connected and,
      // for a connection-string config, applies the migrations to the main database instead.
      connectToShadowDb: async () => {
        const name = `rye_shadow_${randomUUID().replaceAll("-", "")}`;
        await pool.query(`CREATE DATABASE "${name}"`);
        shadows.add(name);
        const shadowUrl = new URL(databaseUrl);
        shadowUrl.pathname = `/${name}`;
        const shadowPool = new pg.Pool({ connectionString: shadowUrl.toString(), max: 2 });
        // A connection the server ends while the shadow is in use is dropped by the pool, not thrown.
        shadowPool.on("error", () => {});
        const adapter = patchPgAdapter(await new PrismaPg(shadowPool).connect(), shadowPool);
        adapter.dispose = async () => {
          await endPool(shadowPool);
          await dropShadow(name);
        };
        return adapter;
      },
    },
    close: async () => {
      for (const name of [...shadows]) await dropShadow(name);
      await endPool(pool);
    },
  };
}

interface FieldsResult {
  fields: { dataTypeID: number }[];
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** Works around two adapter-pg 7.10.1 limits that only the schema engine runs into. */
function patchPgAdapter(adapter: SqlDriverAdapter, pool: pg.Pool): SqlDriverAdapter {
  // Introspection reads Postgres' internal "char" type (OID 18, e.g. pg_constraint.contype), which
  // adapter-pg refuses to decode; the engine expects it as a Character column.
  const charColumns = new WeakMap<object, number[]>();
  const patchable = adapter as unknown as { performIO(query: object): Promise<FieldsResult> };
  const performIO = patchable.performIO.bind(adapter);
  patchable.performIO = async (query) => {
    const result = await performIO(query);
    const indexes: number[] = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID !== PG_CHAR_OID) return;
      field.dataTypeID = PG_TEXT_OID;
      indexes.push(i);
    });
    charColumns.set(query, indexes);
    return result;
  };
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumns.get(query) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
  // adapter-pg splits scripts on every ";", which breaks function bodies and string literals.
  adapter.executeScript = async (script) => {
    await pool.query(script);
  };
  return adapter;
}

/** The `migration_lock.toml` Prisma writes for PostgreSQL. */
export const migrationLockToml =
  '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n';

function migrationList(dir: string): MigrationList {
  let lockfile = migrationLockToml; // before the first migration there is no lockfile yet
  try {
    lockfile = readFileSync(join(dir, "migration_lock.toml"), "utf8");
  } catch {}
  return {
    baseDir: dir,
    shadowDbInitScript: "",
    lockfile: { path: "migration_lock.toml", content: lockfile },
    migrationDirectories: readMigrations(dir).map((m) => ({
      path: m.name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.sql } },
    })),
  };
}

let wasmLoaded: Promise<void> | undefined;

function loadWasm(): Promise<void> {
  wasmLoaded ??= (async () => {
    // The engine reports a Rust panic's message through this global before throwing.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => console.error(`prisma schema engine panicked: ${message}`),
    };
    const require = createRequire(import.meta.url);
    const wasmPath = join(dirname(require.resolve("@prisma/schema-engine-wasm")), "schema_engine_bg.wasm");
    const imports = { "./schema_engine_bg.js": glue } as unknown as WebAssembly.Imports;
    const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), imports);
    const bindings = glue as unknown as { __wbg_set_wasm(exports: WebAssembly.Exports): void };
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  })();
  return wasmLoaded;
}
