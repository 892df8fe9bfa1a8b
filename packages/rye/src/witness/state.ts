/**
 * The witness's record of each log: the size and root hash of the latest checkpoint it cosigned, one file per origin
 * (`state/<hex SHA-256 of the origin>.json`), replaced atomically (temp file, fsync, rename) before a cosignature is
 * returned. `update` runs check-and-write for one origin under an in-process lock, so two requests never both pass
 * the old-size check and then roll each other back (the race tlog-witness describes); `rye witness serve` takes a
 * lock file on the directory so that no second process serves the same state.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { fromBase64, RyeError, sha256Hex, toBase64 } from "@rye/core";
import { writeFileAtomic } from "../fs/atomic.ts";
import { serialised } from "../fs/serialised.ts";

export interface LogState {
  size: number;
  rootHash: Uint8Array;
}

const fileSchema = z.object({ origin: z.string(), size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), root_hash: z.string() }).strict();

export class WitnessState {
  constructor(readonly dir: string) {}

  private path(origin: string): string {
    return join(this.dir, "state", `${sha256Hex(origin)}.json`);
  }

  /** The state of `origin`, or null when it never cosigned one. A damaged file is an error, never a fresh start. */
  async read(origin: string): Promise<LogState | null> {
    let text: string;
    try {
      text = await readFile(this.path(origin), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    const parsed = fileSchema.safeParse(JSON.parse(text));
    if (!parsed.success || parsed.data.origin !== origin) throw new RyeError("INTEGRITY_MISMATCH", `The witness state of ${origin} is damaged (${this.path(origin)})`, { hint: "Restore it from a backup; a witness that lost its state must be retired, not restarted empty." });
    const rootHash = fromBase64(parsed.data.root_hash);
    return { size: parsed.data.size, rootHash };
  }

  /** Runs `body` with the current state of `origin` under its lock; a state it returns is persisted before the lock is released. */
  async update<T>(origin: string, body: (current: LogState | null) => Promise<{ next?: LogState; result: T }>): Promise<T> {
    return serialised(this.path(origin), async () => {
      const { next, result } = await body(await this.read(origin));
      if (next) await writeFileAtomic(this.path(origin), `${JSON.stringify({ origin, size: next.size, root_hash: toBase64(next.rootHash) })}\n`, { mode: 0o600, dirMode: 0o700 });
      return result;
    });
  }
}
