/**
 * The one-time start-up work (preparation.ts) in a short-lived child process (docs/deployment.md, "Memory").
 * initdb of a new embedded database, the migrations and the seed compile and run code that the server never needs
 * again, and the memory they take stays with the process that did them (V8's heap and code, WebAssembly compiler
 * scratch memory kept by malloc): 40–140 MB more idle RSS after a first start than after a restart. So when the
 * database needs that work, the server runs its own entry again as a child that does it, closes the database and
 * exits; the server then opens the database as on any restart.
 *
 * The child reports over the IPC channel: its log lines (written by the server's logger, so the server's log reads
 * as one process's) and, when it fails, its error as an envelope, which the server throws again as the same
 * RyeError (code, message, hint).
 */
import { spawn } from "node:child_process";
import { type Database, embeddedDatabaseExists, MEMORY } from "@rye/db";
import { type ErrorEnvelope, isErrorCode, RyeError, toErrorEnvelope } from "@rye/core";
import type { RegistryConfig } from "./config.ts";
import { loadConfig } from "./config.ts";
import type { Logger, LogLevel } from "./logger.ts";
import { pendingPreparation, prepareData } from "./preparation.ts";
import { databaseOptionsOf, openRegistry, openRegistryDatabase } from "./registry.ts";
import { applyV8MemoryFlags } from "./runtime-memory.ts";
import { systemSafetyRules } from "./services/safety-rules.ts";

/** Set in the child's environment; the child also needs the IPC channel, so setting it by hand does nothing. */
const CHILD_MARKER = "RYE_PREPARATION_CHILD";

/** How to start this process's entry again: the script, its arguments and Node's options (with a TypeScript loader in development). */
export interface ServerEntry {
  script: string;
  args: string[];
  execArgv: string[];
}

/** The entry of the running process. Inspector options are left out: the child would wait for a debugger or take the port. */
export function thisServerEntry(): ServerEntry {
  return { script: process.argv[1]!, args: process.argv.slice(2), execArgv: process.execArgv.filter((option) => !/^--(inspect|debug)/.test(option)) };
}

/** True in a child started by prepareInChildProcess: the entry runs runPreparationChild instead of serving. */
export function isPreparationChild(): boolean {
  return process.env[CHILD_MARKER] === "1" && typeof process.send === "function";
}

type ChildMessage =
  | { kind: "log"; level: LogLevel; msg: string; fields: Record<string, unknown> }
  | { kind: "done" }
  | { kind: "failed"; error: ErrorEnvelope["error"] };

function sendToServer(message: ChildMessage, then: () => void = () => {}): void {
  // A server that is gone (stopped meanwhile) does not stop the work: the callback swallows the channel's error.
  if (process.connected) process.send!(message, undefined, undefined, () => then());
  else then();
}

/** The child's side: prepare the database with the server's configuration, close it, report, exit. */
export async function runPreparationChild(): Promise<never> {
  let outcome: ChildMessage;
  try {
    const config = loadConfig(process.env);
    applyV8MemoryFlags({ optimizeForSize: config.v8OptimizeForSize });
    const logger: Logger = { log: (level, msg, fields = {}) => sendToServer({ kind: "log", level, msg, fields }) };
    const deps = await openRegistry(config, logger);
    try {
      await prepareData(deps, await systemSafetyRules());
    } finally {
      await deps.reads.close();
      await deps.requestCounters.close?.();
      await deps.db.close();
    }
    outcome = { kind: "done" };
  } catch (err) {
    outcome = { kind: "failed", error: toErrorEnvelope(err).error };
  }
  return new Promise<never>(() => sendToServer(outcome, () => process.exit(outcome.kind === "done" ? 0 : 1)));
}

/**
 * The server's side: runs `entry` as the preparation child on `env` and waits until it has exited (an embedded
 * database is closed and unlocked by then). Throws the child's error, or an INTERNAL error when it ended without
 * reporting (killed, crashed).
 */
export function prepareInChildProcess(entry: ServerEntry, env: NodeJS.ProcessEnv, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry.execArgv, entry.script, ...entry.args], { env: { ...env, [CHILD_MARKER]: "1" }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let outcome: ChildMessage | undefined;
    child.on("message", (message: ChildMessage) => {
      if (message.kind === "log") logger.log(message.level, message.msg, { ...message.fields, preparation_pid: child.pid });
      else outcome = message;
    });
    child.once("error", (err) => reject(new RyeError("INTERNAL", `could not start the database preparation process: ${err.message}`)));
    // "close", not "exit": it comes after the IPC channel closed, so every message has arrived.
    child.once("close", (code, signal) => {
      if (outcome?.kind === "failed") {
        const { code: errorCode, message, hint, details } = outcome.error;
        reject(new RyeError(isErrorCode(errorCode) ? errorCode : "INTERNAL", message, { hint, ...(details === undefined ? {} : { details }) }));
      } else if (outcome?.kind === "done" && code === 0) resolve();
      else {
        reject(
          new RyeError("INTERNAL", `the database preparation process (${child.pid}) ended with ${signal ?? `exit code ${code}`} before it reported`, {
            hint: "Read its output above. Migrations run in transactions, so starting the registry again resumes the preparation.",
          }),
        );
      }
    });
  });
}

/**
 * The database a server is about to serve, prepared: when it needs the one-time work (a new embedded database, a
 * migration not applied, no seed, stale signals), the work is done by a child process first. Returns the database
 * when it was open and ready already (a restart), else undefined: the caller opens it as on a restart. An in-memory
 * database is not the child's to prepare (it would be another one): undefined, the caller prepares it in process.
 */
export async function openPreparedDatabase(config: RegistryConfig, env: NodeJS.ProcessEnv, logger: Logger, entry: ServerEntry): Promise<Database | undefined> {
  const options = databaseOptionsOf(config, env, logger);
  if (options.dataDir === MEMORY) return undefined;
  const prepare = async (reason: string) => {
    logger.log("info", "preparing the database in a separate process", { reason });
    await prepareInChildProcess(entry, env, logger);
  };
  if (options.dataDir !== undefined && !embeddedDatabaseExists(options.dataDir)) {
    await prepare("a new embedded database");
    return undefined;
  }
  const db = await openRegistryDatabase({ ...options, migrate: false });
  let pending: string | undefined;
  try {
    pending = await pendingPreparation(db, await systemSafetyRules());
  } catch (err) {
    await db.close();
    throw err;
  }
  if (pending === undefined) return db;
  await db.close();
  await prepare(pending);
  return undefined;
}
