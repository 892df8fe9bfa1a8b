/**
 * The database's one-time work in a child process (preparation-process.ts), through the normal start path
 * (`apps/api/src/main.ts`, as `npm run start:api` runs it compiled): a new embedded database and a new PostgreSQL
 * database come up ready, prepared by a child that has exited by then, and a restart needs no child; a migration
 * that fails stops the start with the migration's error (code, message, hint; no stack trace) as it did when the
 * server migrated in process. And the protocol with the child: its failure and its log lines reach the server.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { RyeError } from "@rye/core";
import { openDatabase } from "@rye/db";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import { freePortBelowEphemeralRange } from "../test/free-port.ts";
import { loadConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { openPreparedDatabase, prepareInChildProcess, type ServerEntry } from "./preparation-process.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

type LogLine = Record<string, unknown> & { msg: string; pid: number };

/** The API entry on `env` until it answers /ready (or exits): its pid, log lines, stderr and exit code. */
async function startServer(env: Record<string, string>) {
  // The first start listens only after the preparation (seconds): a port outside the ephemeral range stays free.
  const port = await freePortBelowEphemeralRange();
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), RYE_LOG_LEVEL: "info", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = once(child, "exit").then(() => child.exitCode);
  const base = `http://127.0.0.1:${port}`;
  let ready = false;
  // Ready, and past its "listening" line: its signal handlers are in place, so SIGTERM stops it cleanly.
  while (child.exitCode === null && !ready) {
    ready = stdout.includes('"msg":"rye registry listening"') && (await fetch(`${base}/ready`).then((r) => r.ok, () => false));
    if (!ready) await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    pid: child.pid!,
    ready,
    logs: () => stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as LogLine),
    stderr: () => stderr,
    exited,
    async stop(): Promise<number | null> {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** First start on `env`: ready, prepared by a child (named in the server's log, gone now) for `reason`; then a restart without one. */
async function firstStartThenRestart(env: Record<string, string>, reason: RegExp): Promise<void> {
  const first = await startServer(env);
  try {
    assert.ok(first.ready, `the server did not come up: ${first.stderr()}`);
    const logs = first.logs();
    const preparing = logs.filter((l) => l.msg === "preparing the database in a separate process");
    assert.equal(preparing.length, 1);
    assert.match(String(preparing[0]!.reason), reason);
    const seeded = logs.find((l) => l.msg === "seeded the rye namespace with the system bundle");
    assert.ok(seeded, "the child's log lines come out through the server's log");
    const childPid = seeded.preparation_pid as number;
    assert.ok(Number.isInteger(childPid) && childPid !== first.pid, "seeded by another process");
    assert.ok(logs.filter((l) => /^applying migration /.test(l.msg)).every((l) => l.preparation_pid === childPid), "migrated by it too");
    assert.ok(logs.every((l) => l.pid === first.pid), "one process's log");
    assert.ok(processGone(childPid), "the child has exited before the server serves");
    const pull = await fetch(`${first.base}/v1/pull/tool/rye/rye/file-system/fs_read`);
    assert.equal(pull.status, 200);
  } finally {
    assert.equal(await first.stop(), 0, first.stderr());
  }
  const restart = await startServer(env);
  try {
    assert.ok(restart.ready, `the restart did not come up: ${restart.stderr()}`);
    assert.ok(!restart.logs().some((l) => l.msg === "preparing the database in a separate process" || "preparation_pid" in l), "a prepared database needs no child");
    assert.equal((await fetch(`${restart.base}/v1/pull/tool/rye/rye/file-system/fs_read`)).status, 200);
  } finally {
    assert.equal(await restart.stop(), 0, restart.stderr());
  }
}

/** A start that must fail on the first migration: exit 1 with the migration's error and its hint, nothing else. */
async function assertMigrationFailure(env: Record<string, string>): Promise<void> {
  const server = await startServer(env);
  assert.equal(server.ready, false);
  assert.equal(await server.exited, 1);
  assert.match(server.stderr(), /^error\[INTERNAL\]: migration \d+_init failed and was rolled back: type "org_role" already exists\nhint: \S.*\n$/);
  assert.doesNotMatch(server.stderr(), /\n\s+at /, "no stack trace");
}

/** A type the first migration creates, so that migration fails. */
const CONFLICT = `CREATE TYPE "org_role" AS ENUM ('somebody')`;

describe("database preparation in a child process, through the API's start path", () => {
  test("a new embedded database (PGlite): initdb, migrations and seed in a child; a restart needs none", { timeout: 240_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "rye-prepare-pglite-"));
    try {
      await firstStartThenRestart({ RYE_DATA_DIR: dataDir, DATABASE_URL: "" }, /^a new embedded database$/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("a new PostgreSQL database: migrations and seed in a child; a restart needs none", { timeout: 240_000, skip: skipWithoutPostgres() }, async () => {
    const scratch = await createScratchPostgresDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "rye-prepare-pg-"));
    try {
      await firstStartThenRestart({ RYE_DATA_DIR: dataDir, DATABASE_URL: scratch.url }, /^\d+ migration\(s\) not applied$/);
    } finally {
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("a failing migration on PostgreSQL stops the start with its error and hint", { timeout: 120_000, skip: skipWithoutPostgres() }, async () => {
    const scratch = await createScratchPostgresDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), "rye-prepare-pg-fail-"));
    try {
      const db = await openDatabase({ databaseUrl: scratch.url, migrate: false });
      await db.raw.query(CONFLICT).finally(() => db.close());
      await assertMigrationFailure({ RYE_DATA_DIR: dataDir, DATABASE_URL: scratch.url });
    } finally {
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("a failing migration on an existing embedded database stops the start the same way, and leaves it unlocked", { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "rye-prepare-pglite-fail-"));
    try {
      const db = await openDatabase({ dataDir, migrate: false });
      await db.raw.query(CONFLICT).finally(() => db.close());
      await assertMigrationFailure({ RYE_DATA_DIR: dataDir, DATABASE_URL: "" });
      // Neither the server nor its child holds the data directory any more.
      const again = await openDatabase({ dataDir, migrate: false });
      await again.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the preparation child's protocol", () => {
  const recorder = () => {
    const lines: { level: string; msg: string; fields: Record<string, unknown> | undefined }[] = [];
    const logger: Logger = { log: (level, msg, fields) => lines.push({ level, msg, fields }) };
    return { lines, logger };
  };

  async function entryScript(source: string): Promise<{ entry: ServerEntry; dir: string }> {
    const dir = await mkdtemp(join(tmpdir(), "rye-prepare-entry-"));
    const script = join(dir, "entry.mjs");
    await writeFile(script, source);
    return { entry: { script, args: [], execArgv: [] }, dir };
  }

  test("the child's error is thrown again with its code, message and hint; its log lines name it", async () => {
    const { entry, dir } = await entryScript(`
      process.send({ kind: "log", level: "warn", msg: "about to fail", fields: { step: 1 } });
      process.send({ kind: "failed", error: { code: "UNAVAILABLE", message: "the database said no", hint: "ask it nicely" } }, () => process.exit(1));
    `);
    try {
      const { lines, logger } = recorder();
      const failure = await prepareInChildProcess(entry, process.env, logger).then(() => undefined, (err: unknown) => err);
      assert.ok(failure instanceof RyeError);
      assert.deepEqual([failure.code, failure.message, failure.hint], ["UNAVAILABLE", "the database said no", "ask it nicely"]);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.msg, "about to fail");
      assert.equal(lines[0]!.fields!.step, 1);
      assert.ok(Number.isInteger(lines[0]!.fields!.preparation_pid));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a child that ends without reporting (crash, kill) is an INTERNAL error naming how it ended", async () => {
    const { entry, dir } = await entryScript(`process.exit(3);`);
    try {
      await assert.rejects(prepareInChildProcess(entry, process.env, recorder().logger), (err: unknown) => err instanceof RyeError && err.code === "INTERNAL" && /ended with exit code 3 before it reported/.test(err.message));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("an in-memory database is prepared in the server's own process: no child", async () => {
    const { entry, dir } = await entryScript(`process.exit(3);`);
    try {
      const { lines, logger } = recorder();
      assert.equal(await openPreparedDatabase(loadConfig({ RYE_DATA_DIR: "memory://" }), {}, logger, entry), undefined);
      assert.deepEqual(lines, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
