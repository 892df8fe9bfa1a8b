/**
 * The client side of `rye search` when RYE_SEARCH_DAEMON=1: `bin/rye.mjs` imports this module before the CLI and
 * asks the user's search daemon (server.ts) to run the search. It loads node built-ins only. Any failure (no
 * daemon, a stale socket, a socket or folder not private to this user, another version, a refusal, a timeout, an
 * answer too large or ill-formed) gives null: the caller then runs the search in this process as if no daemon
 * existed. Nothing is printed before a whole answer arrived, so a fallback never follows partial output.
 */
import { lstatSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname } from "node:path";
import { DAEMON_VERSION, DEFAULT_TIMEOUT_MS, isLocalSearch, MAX_ANSWER_BYTES, MAX_SOCKET_PATH, PROTOCOL, socketPath } from "./protocol.ts";

export interface DaemonAnswer {
  ok: boolean;
  reason?: string;
  out?: [1 | 2, string][];
  code?: number;
  status?: Record<string, unknown>;
}

/** Why a socket may not be used, or null: its folder and itself belong to this user and nobody else can enter. */
export function unsafeSocket(path: string): string | null {
  const uid = process.getuid?.();
  try {
    const dir = lstatSync(dirname(path));
    if (!dir.isDirectory() || (uid !== undefined && dir.uid !== uid) || (dir.mode & 0o077) !== 0) return `${dirname(path)} is not a folder private to this user (0700)`;
    const socket = lstatSync(path);
    if (!socket.isSocket() || (uid !== undefined && socket.uid !== uid)) return `${path} is not this user's socket`;
  } catch (err) {
    return `no daemon (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  return null;
}

/** Sends one request and reads one answer line; rejects on any failure or after `timeoutMs`. */
export function askDaemon(path: string, request: Record<string, unknown>, timeoutMs: number): Promise<DaemonAnswer> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (reason: string) => {
      socket.destroy();
      reject(new Error(reason));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on("connect", () => socket.end(`${JSON.stringify({ protocol: PROTOCOL, version: DAEMON_VERSION, ...request })}\n`));
    socket.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) fail(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
      else chunks.push(chunk);
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(err.code ?? err.message));
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      if (!text.endsWith("\n")) return reject(new Error("connection closed before a whole answer"));
      try {
        const answer = JSON.parse(text) as DaemonAnswer;
        if (typeof answer !== "object" || answer === null || typeof answer.ok !== "boolean") throw new Error("not an answer");
        resolve(answer);
      } catch {
        reject(new Error("ill-formed answer"));
      }
    });
  });
}

function wellFormedOutput(answer: DaemonAnswer): answer is Required<Pick<DaemonAnswer, "out" | "code">> & DaemonAnswer {
  return Array.isArray(answer.out) && answer.out.every((c) => Array.isArray(c) && (c[0] === 1 || c[0] === 2) && typeof c[1] === "string") && Number.isInteger(answer.code);
}

/**
 * Runs `rye <argv>` through the daemon when RYE_SEARCH_DAEMON=1 and the command is a local search: prints
 * exactly what the daemon's run printed and resolves to its exit code; null when the caller must run it itself.
 * RYE_SEARCH_DAEMON_DEBUG=1 says on stderr why the daemon was not used.
 */
export async function searchViaDaemon(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Promise<number | null> {
  if (env.RYE_SEARCH_DAEMON !== "1" || !isLocalSearch(argv, env)) return null;
  const debug = (reason: string) => {
    if (env.RYE_SEARCH_DAEMON_DEBUG === "1") process.stderr.write(`rye: search daemon not used (${reason}); searching in this process\n`);
    return null;
  };
  const path = socketPath(env);
  if (path.length > MAX_SOCKET_PATH) return debug(`socket path longer than ${MAX_SOCKET_PATH} bytes: ${path}`);
  const unsafe = unsafeSocket(path);
  if (unsafe) return debug(unsafe);
  const timeout = Number(env.RYE_SEARCH_DAEMON_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS);
  let answer: DaemonAnswer;
  try {
    answer = await askDaemon(path, { op: "search", argv, cwd, env, columns: { out: process.stdout.isTTY ? process.stdout.columns : null, err: process.stderr.isTTY ? process.stderr.columns : null } }, Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS);
  } catch (err) {
    return debug((err as Error).message);
  }
  if (!answer.ok) return debug(`refused: ${answer.reason ?? "no reason"}`);
  if (!wellFormedOutput(answer)) return debug("ill-formed answer");
  for (const [fd, text] of answer.out) (fd === 1 ? process.stdout : process.stderr).write(text);
  return answer.code;
}
