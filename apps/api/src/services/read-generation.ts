/**
 * The read generation: a number that changes whenever anything a pull answers changes (triggers on items,
 * item_versions, namespaces, usernames and registry keys bump the `read_generation` row at commit; download
 * counts do not). A cached pull answer is valid only for the generation it was read under, so a yank, delete,
 * deprecation, visibility change, approval or key rotation made by any process is seen by the very next pull.
 *
 * - PGlite: the database lives in this process, so every write goes through it; the triggers' NOTIFY reaches a
 *   listener before the committing statement's promise resolves. The generation is a number in memory: a pull
 *   reads nothing.
 * - PostgreSQL: other processes write too. LISTEN/NOTIFY would deliver their changes a moment after they commit,
 *   which leaves a window where a version just made private is still served by another process; instead each
 *   pull reads the one-row table by primary key, and concurrent pulls share that read. A pull never joins a read
 *   sent before it arrived (that read may predate a write its caller has already seen succeed): it waits for the
 *   next one, sent as soon as the current one returns. Under load this is one tiny query per round trip, not
 *   per request.
 */
import type { Database } from "@rye/db";

export const READ_GENERATION_CHANNEL = "rye_read_generation";

export interface ReadGeneration {
  /** The current generation, read after this call began. */
  current(): Promise<bigint>;
  close(): Promise<void>;
}

async function readValue(db: Database): Promise<bigint> {
  const { rows } = await db.raw.query<{ value: bigint }>("SELECT value FROM read_generation WHERE id = 1");
  const value = rows[0]?.value;
  if (value === undefined) throw new Error("read_generation has no row 1 (migration 20261125152631_read_generation)");
  return BigInt(value);
}

/** PostgreSQL: one primary-key read, shared by the pulls that arrived while the previous one was in flight. */
export class PolledReadGeneration implements ReadGeneration {
  private running: Promise<bigint> | null = null;
  private queued: Promise<bigint> | null = null;

  constructor(private readonly db: Database) {}

  current(): Promise<bigint> {
    if (!this.running) {
      this.running = readValue(this.db).finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.current();
      });
    return this.queued;
  }

  async close(): Promise<void> {}
}

/** PGlite: the generation in memory, moved by the triggers' NOTIFY (delivered in-process before the commit returns). */
export class NotifiedReadGeneration implements ReadGeneration {
  private value = 0n;
  private unlisten: (() => Promise<void>) | null = null;

  static async open(db: Database & { listen: NonNullable<Database["listen"]> }): Promise<NotifiedReadGeneration> {
    const generation = new NotifiedReadGeneration();
    // Listen first, then read: a change committed in between is counted by one or the other (both only move it forward).
    generation.unlisten = await db.listen(READ_GENERATION_CHANNEL, (payload) => generation.advance(payload));
    generation.value = await readValue(db);
    return generation;
  }

  private advance(payload: string): void {
    const next = /^\d+$/.test(payload) ? BigInt(payload) : this.value + 1n;
    this.value = next > this.value ? next : this.value + 1n;
  }

  current(): Promise<bigint> {
    return Promise.resolve(this.value);
  }

  async close(): Promise<void> {
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = null;
  }
}

export async function openReadGeneration(db: Database): Promise<ReadGeneration> {
  if (db.kind === "pglite" && db.listen) return NotifiedReadGeneration.open(db as Database & { listen: NonNullable<Database["listen"]> });
  return new PolledReadGeneration(db);
}
