/**
 * The opt-in search daemon (`rye search-daemon start`): one process per user and version that answers the
 * local `rye search` runs of clients with RYE_SEARCH_DAEMON=1 (client.ts), so that a search costs a small Node
 * process and a socket round trip instead of loading the CLI and stat-ing every item file.
 *
 * A request runs the very code of an in-process search (runCli with the client's argv, cwd and environment),
 * with two differences that change no output: the engine is long-lived (search.ts then watches the folders each
 * scan walked, watch.ts: an event, an error or a folder not watchable means a full scan again), and RYE_OFFLINE=1
 * (the daemon serves local searches only, protocol.ts `isLocalSearch`; it never makes a network call). Cached
 * verification outcomes are dropped before every request: a signature is checked exactly as a new process
 * would, with the keys the client's environment and project trust.
 *
 * Safety: the socket is in the user's state folder (0700, created so) and is 0600; a request is at most
 * MAX_REQUEST_BYTES; the daemon runs nothing but searches (no item is executed, no process is spawned); it exits
 * after `idleSeconds` without a request, on `rye search-daemon stop`, on SIGTERM/SIGINT, and removes its socket.
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { createServer } from "node:net";
import { dirname, isAbsolute } from "node:path";
import { RyeError } from "@rye/core";
import { forgetSearchVerifications } from "../../search/index.ts";
import { askDaemon } from "./client.ts";
import { DAEMON_VERSION, isLocalSearch, MAX_CONNECTIONS, MAX_REQUEST_BYTES, MAX_SOCKET_PATH, PROTOCOL, REQUEST_READ_MS, socketPath } from "./protocol.ts";

export interface DaemonOptions {
  env: NodeJS.ProcessEnv;
  idleSeconds: number;
}

interface Request {
  protocol?: unknown;
  version?: unknown;
  op?: unknown;
  argv?: unknown;
  cwd?: unknown;
  env?: unknown;
  columns?: unknown;
}

type Answer = Record<string, unknown> & { ok: boolean };

const refuse = (reason: string): Answer => ({ ok: false, reason });

/** The state folder, private to this user: created 0700; an existing one is made 0700 if it is ours, refused if not. */
function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) {
    throw new RyeError("FORBIDDEN", `${dir} is not a folder of this user`, { hint: "Set XDG_STATE_HOME to a folder of your own." });
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
}

const columnsOf = (value: unknown): number | undefined => (Number.isInteger(value) && (value as number) > 0 && (value as number) < 10_000 ? (value as number) : undefined);

export class SearchDaemon {
  readonly path: string;
  private server: Server | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private queue: Promise<void> = Promise.resolve();
  private served = 0;
  private readonly started = Date.now();
  private closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(private readonly options: DaemonOptions) {
    this.path = socketPath(options.env);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Listens on the socket; refuses when a daemon of this version already answers there. */
  async listen(): Promise<void> {
    if (this.path.length > MAX_SOCKET_PATH) throw new RyeError("BAD_REQUEST", `The search daemon's socket path is longer than ${MAX_SOCKET_PATH} bytes: ${this.path}`, { hint: "Set XDG_STATE_HOME to a shorter folder." });
    privateFolder(dirname(this.path));
    // Half-open: the client ends its side once the request is sent; the answer still has to go back.
    const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    server.maxConnections = MAX_CONNECTIONS;
    this.server = server;
    try {
      await this.bind(server);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
      const alive = await askDaemon(this.path, { op: "status" }, 2000).catch(() => null);
      if (alive) {
        this.server = null;
        throw new RyeError("CONFLICT", `A search daemon (rye ${DAEMON_VERSION}) already runs on ${this.path}`, { hint: "rye search-daemon status; rye search-daemon stop" });
      }
      // Nothing answers: a stale socket left by a daemon that was killed.
      unlinkSync(this.path);
      await this.bind(server);
    }
    chmodSync(this.path, 0o600);
    this.touch();
  }

  /** Listens on the socket path, created 0600 (umask) in the 0700 folder. */
  private async bind(server: Server): Promise<void> {
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(this.path, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } finally {
      process.umask(umask);
    }
  }

  /** Resolves once the daemon stopped (idle, stop request, signal). */
  get done(): Promise<void> {
    return this.closed;
  }

  close(): void {
    if (!this.server) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.server.close();
    this.server = null;
    try {
      // Only our own socket: another daemon may have replaced it meanwhile only if ours stopped answering.
      unlinkSync(this.path);
    } catch {
      /* gone already */
    }
    this.resolveClosed();
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight === 0) this.close();
      else this.touch();
    }, this.options.idleSeconds * 1000);
  }

  private accept(socket: Socket): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const reply = (answer: Answer) => {
      if (answered) return;
      answered = true;
      socket.end(`${JSON.stringify(answer)}\n`);
    };
    socket.on("error", () => socket.destroy());
    // A client that connects and does not send a whole request in time is dropped (it holds a connection).
    const readTimer = setTimeout(() => {
      if (!answered) socket.destroy();
    }, REQUEST_READ_MS);
    socket.on("close", () => clearTimeout(readTimer));
    socket.on("data", (chunk: Buffer) => {
      if (answered) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reply(refuse(`request larger than ${MAX_REQUEST_BYTES} bytes`));
        socket.destroy();
        return;
      }
      chunks.push(chunk);
      // The request ends at its newline: nothing to read before a chunk carries one.
      if (!chunk.includes(0x0a)) return;
      const text = Buffer.concat(chunks).toString("utf8");
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      clearTimeout(readTimer);
      let request: Request;
      try {
        request = JSON.parse(text.slice(0, newline)) as Request;
      } catch {
        reply(refuse("request is not JSON"));
        return;
      }
      this.touch();
      this.inFlight++;
      // One request at a time: each drops the cached verification outcomes its search then refills.
      const run = this.queue.then(() => this.handle(request));
      this.queue = run.then(
        () => undefined,
        () => undefined,
      );
      run
        .catch((err: unknown) => refuse(`internal error: ${err instanceof Error ? err.message : String(err)}`))
        .then((answer) => {
          this.inFlight--;
          this.touch();
          reply(answer);
          if (request.op === "stop" && answer.ok) this.close();
        });
    });
  }

  private async handle(request: Request): Promise<Answer> {
    if (typeof request !== "object" || request === null) return refuse("request is not an object");
    if (request.protocol !== PROTOCOL || request.version !== DAEMON_VERSION) return refuse(`version mismatch: this daemon is rye ${DAEMON_VERSION} (protocol ${PROTOCOL})`);
    if (request.op === "status") {
      return { ok: true, status: { pid: process.pid, version: DAEMON_VERSION, socket: this.path, uptime_s: Math.round((Date.now() - this.started) / 1000), searches: this.served, idle_timeout_s: this.options.idleSeconds } };
    }
    if (request.op === "stop") return { ok: true, status: { pid: process.pid } };
    if (request.op !== "search") return refuse("unknown op");
    const { argv, cwd, env } = request;
    if (!Array.isArray(argv) || argv.length > 512 || !argv.every((a) => typeof a === "string")) return refuse("argv must be a list of strings");
    if (typeof cwd !== "string" || !isAbsolute(cwd)) return refuse("cwd must be an absolute path");
    if (!isStringRecord(env)) return refuse("env must map names to strings");
    if (!isLocalSearch(argv, env)) return refuse("not a local search");
    if (argv.some((a) => a === "-h" || a === "--help")) return refuse("help is printed by the client");
    // The home folder (os.homedir(): where `~` and the user space resolve) is this process's, not the request's.
    if ((env.HOME ?? "") !== (process.env.HOME ?? "")) return refuse("another home folder");
    const columns = (request.columns ?? {}) as { out?: unknown; err?: unknown };
    const out: [1 | 2, string][] = [];
    const line = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);
    // The same trusted keys may not hold for this request (another project, another environment): verify anew.
    forgetSearchVerifications();
    // The client changed its files before it connected, so their inotify events were queued before this request:
    // one turn of the event loop's poll phase delivers them to the watchers (watch.ts) before the search asks them.
    await new Promise((resolve) => setImmediate(resolve));
    const { runCli } = await import("../main.ts");
    const code = await runCli([...argv], {
      io: { stdout: (text) => out.push([1, line(text)]), stderr: (text) => out.push([2, line(text)]) },
      env: { ...env, RYE_OFFLINE: "1" },
      cwd,
      longLived: true,
      terminal: { outColumns: columnsOf(columns.out), errColumns: columnsOf(columns.err) },
    });
    this.served++;
    return { ok: true, out, code };
  }
}
