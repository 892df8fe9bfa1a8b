/**
 * `rye witness serve`: a C2SP tlog-witness over node:http. One route, POST /add-checkpoint (add-checkpoint.ts);
 * everything else is 404 (405 for another method on the route). A body beyond `WITNESS_LIMITS.maxBodyBytes` is
 * refused with 413 as soon as it is exceeded (not read to its end), and a request that takes longer than
 * `requestTimeoutMs` is cut off. One process per witness directory (a `serve.lock` file holding its pid).
 */
import { createServer, type Server } from "node:http";
import { open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { RyeError } from "@rye/core";
import { addCheckpoint, WITNESS_LIMITS, type WitnessAnswer } from "./add-checkpoint.ts";
import type { WitnessedLog, WitnessIdentity } from "./identity.ts";
import { WitnessState } from "./state.ts";

export interface WitnessServerOptions {
  dir: string;
  identity: WitnessIdentity;
  logs: readonly WitnessedLog[];
  host?: string;
  port?: number;
  requestTimeoutMs?: number;
  /** One JSON line per refused or cosigned checkpoint (no secrets: origin, sizes, status). */
  log?: (line: string) => void;
}

export interface RunningWitness {
  server: Server;
  url: string;
  close(): Promise<void>;
}

async function takeLock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, "serve.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, "wx", 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number((await readFile(path, "utf8").catch(() => "")).trim());
      let alive = false;
      try {
        alive = Number.isSafeInteger(pid) && pid > 0 && (process.kill(pid, 0), true);
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === "EPERM";
      }
      if (alive) throw new RyeError("CONFLICT", `Another witness process (pid ${pid}) serves ${dir}`, { hint: "Run one `rye witness serve` per witness directory; two would cosign from one state without sharing its lock." });
      await rm(path, { force: true }); // its owner exited without removing it
    }
  }
  throw new RyeError("CONFLICT", `Cannot take ${path}`);
}

function answer(res: import("node:http").ServerResponse, a: WitnessAnswer): void {
  res.writeHead(a.status, { "Content-Type": a.contentType, "Content-Length": Buffer.byteLength(a.body) });
  res.end(a.body);
}

export async function startWitnessServer(options: WitnessServerOptions): Promise<RunningWitness> {
  const release = await takeLock(options.dir);
  const state = new WitnessState(options.dir);
  const log = options.log ?? (() => {});
  const server = createServer({ requestTimeout: options.requestTimeoutMs ?? 10_000, headersTimeout: Math.min(options.requestTimeoutMs ?? 10_000, 10_000) }, (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/add-checkpoint") return answer(res, { status: 404, contentType: "text/plain; charset=utf-8", body: "not found: this witness serves POST /add-checkpoint\n" });
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST", "Content-Type": "text/plain; charset=utf-8" });
      return void res.end("method not allowed: POST /add-checkpoint\n");
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    const tooLarge = (): void => {
      answer(res, { status: 413, contentType: "text/plain; charset=utf-8", body: `the request body is larger than ${WITNESS_LIMITS.maxBodyBytes} bytes\n` });
      req.destroy();
    };
    if (declared > WITNESS_LIMITS.maxBodyBytes) return tooLarge();
    const chunks: Buffer[] = [];
    let length = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      length += chunk.length;
      if (length > WITNESS_LIMITS.maxBodyBytes) {
        refused = true;
        return tooLarge();
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const bytes = Buffer.concat(chunks);
      const body = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      const handled = body.includes("\uFFFD") ? Promise.resolve<WitnessAnswer>({ status: 400, contentType: "text/plain; charset=utf-8", body: "the request body is not UTF-8\n" }) : addCheckpoint(body, { name: options.identity.name, key: options.identity.key, logs: options.logs, state });
      handled.then(
        (a) => {
          log(JSON.stringify({ event: "add-checkpoint", status: a.status, ...(a.status === 200 ? {} : { reason: a.body.trim().slice(0, 300) }) }));
          answer(res, a);
        },
        (err: unknown) => {
          log(JSON.stringify({ event: "add-checkpoint", status: 500, error: (err as Error).message }));
          if (!res.headersSent) answer(res, { status: 500, contentType: "text/plain; charset=utf-8", body: "the witness could not record the checkpoint\n" });
        },
      );
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
    });
  } catch (err) {
    await release();
    throw err;
  }
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = (options.host ?? "127.0.0.1").includes(":") ? `[${options.host}]` : (options.host ?? "127.0.0.1");
  return {
    server,
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await release();
    },
  };
}
