/**
 * The budget ledger in PostgreSQL (the `postgres` threads back end): the same operations and semantics as
 * ledger.ts — integer nano-dollars, `remaining = reserved − actual − Σ active children max(reserved, actual)`,
 * reservations that check and insert in one step, transitive release, late reports — for threads of one project
 * running on several machines.
 *
 * Every operation is one transaction under a transaction-scoped advisory lock on the project (the SQL twin of the
 * ledger file's lock), so a reservation's check and insert never interleave with another's, on any machine.
 * The table lives in its own schema `rye_threads` (created on first use), keyed by (project, thread id); the project
 * is the project directory's absolute path, the same on every worker (they share the project's files).
 */
import { resolve } from "node:path";
import type pg from "pg";
import type { Ledger, LedgerEntry, ReserveRequest } from "./ledger.ts";
import { checkAmount, checkReserveRequest, fromNano, refusals, toNano } from "./ledger.ts";
import { assertThreadId } from "./paths.ts";

export const LEDGER_SCHEMA = "rye_threads";

const DDL = `
CREATE SCHEMA IF NOT EXISTS ${LEDGER_SCHEMA};
CREATE TABLE IF NOT EXISTS ${LEDGER_SCHEMA}.ledger (
  project text NOT NULL,
  thread_id text NOT NULL,
  parent_thread_id text,
  reserved_nano bigint NOT NULL CHECK (reserved_nano >= 0),
  actual_nano bigint NOT NULL DEFAULT 0 CHECK (actual_nano >= 0),
  max_nano bigint NOT NULL,
  spawned integer NOT NULL DEFAULT 0,
  peak_committed_nano bigint,
  status text NOT NULL CHECK (status IN ('active', 'released')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (project, thread_id)
);
CREATE INDEX IF NOT EXISTS ledger_children ON ${LEDGER_SCHEMA}.ledger (project, parent_thread_id);
`;
/** Serialises the schema's creation between processes starting at once (CREATE … IF NOT EXISTS alone can race). */
const DDL_LOCK = 7_364_112_001;

interface Row {
  thread_id: string;
  parent_thread_id: string | null;
  reserved_nano: string;
  actual_nano: string;
  max_nano: string;
  spawned: number;
  peak_committed_nano: string | null;
  status: "active" | "released";
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "thread_id, parent_thread_id, reserved_nano, actual_nano, max_nano, spawned, peak_committed_nano, status, created_at, updated_at";

function toEntry(row: Row): LedgerEntry {
  return {
    thread_id: row.thread_id,
    parent_thread_id: row.parent_thread_id,
    reserved_spend: fromNano(Number(row.reserved_nano)),
    actual_spend: fromNano(Number(row.actual_nano)),
    max_spend: fromNano(Number(row.max_nano)),
    spawned: row.spawned,
    ...(row.peak_committed_nano !== null ? { peak_committed: fromNano(Number(row.peak_committed_nano)) } : {}),
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

type Client = pg.PoolClient;

export class SqlLedger {
  private ready: Promise<void> | undefined;

  constructor(private readonly pool: pg.Pool) {}

  /** Creates the schema and table when missing (once per ledger object). */
  private ensureSchema(): Promise<void> {
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock($1)", [DDL_LOCK]);
        await client.query(DDL);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /** Runs `body` in one transaction holding the project's advisory lock. */
  private async transact<T>(projectPath: string, body: (client: Client, project: string) => Promise<T>): Promise<T> {
    await this.ensureSchema();
    const project = resolve(projectPath);
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`rye-ledger:${project}`]);
      const value = await body(client, project);
      await client.query("COMMIT");
      return value;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private async row(client: Client, project: string, id: string): Promise<Row | undefined> {
    const { rows } = await client.query<Row>(`SELECT ${COLUMNS} FROM ${LEDGER_SCHEMA}.ledger WHERE project = $1 AND thread_id = $2`, [project, id]);
    return rows[0];
  }

  /** Nano-dollars `parent` can still hand out or spend (may be negative after an overrun). */
  private async remainingNano(client: Client, project: string, parent: Row): Promise<number> {
    const { rows } = await client.query<{ open: string }>(
      `SELECT COALESCE(SUM(GREATEST(reserved_nano, actual_nano)), 0)::bigint AS open FROM ${LEDGER_SCHEMA}.ledger WHERE project = $1 AND parent_thread_id = $2 AND status = 'active'`,
      [project, parent.thread_id],
    );
    return Number(parent.reserved_nano) - Number(parent.actual_nano) - Number(rows[0]!.open);
  }

  /** Adds `nano` to the entry's actual spend, and to its ancestors' as long as the one below was released. */
  private async addSpend(client: Client, project: string, from: Row, nano: number): Promise<void> {
    const seen = new Set<string>();
    let node: Row | undefined = from;
    while (node && !seen.has(node.thread_id)) {
      seen.add(node.thread_id);
      await client.query(`UPDATE ${LEDGER_SCHEMA}.ledger SET actual_nano = actual_nano + $3, updated_at = now() WHERE project = $1 AND thread_id = $2`, [project, node.thread_id, nano]);
      if (node.status !== "released" || node.parent_thread_id === null) break;
      node = await this.row(client, project, node.parent_thread_id);
    }
  }

  /** As ledger.ts `reserve`: the same checks, refusals and clamping (`upTo`), in one locked transaction. */
  async reserve(projectPath: string, request: ReserveRequest): Promise<LedgerEntry> {
    const { id, parentId } = checkReserveRequest(request);
    return this.transact(projectPath, async (client, project) => {
      const existing = await this.row(client, project, id);
      if (existing) throw refusals.duplicate(id, toEntry(existing));
      if (request.maxActive !== undefined) {
        const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${LEDGER_SCHEMA}.ledger WHERE project = $1 AND status = 'active'`, [project]);
        const active = rows[0]!.n;
        if (active >= request.maxActive) throw refusals.threads(active, request.maxActive);
      }
      let requested = toNano(request.amount);
      let parent: Row | undefined;
      if (parentId !== null) {
        parent = await this.row(client, project, parentId);
        if (!parent) throw refusals.noParent(parentId);
        if (parent.status !== "active") throw refusals.parentEnded(parentId);
        if (request.maxSpawns !== undefined && parent.spawned >= request.maxSpawns) throw refusals.spawns(parentId, parent.spawned, request.maxSpawns);
        const left = await this.remainingNano(client, project, parent);
        if (request.upTo && left > 0) requested = Math.min(requested, left);
        if (requested > left || (request.upTo && left <= 0)) throw refusals.spend(parentId, left, request.amount, requested);
      }
      const { rows } = await client.query<Row>(
        `INSERT INTO ${LEDGER_SCHEMA}.ledger (project, thread_id, parent_thread_id, reserved_nano, actual_nano, max_nano, spawned, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 0, $4, 0, 'active', now(), now()) RETURNING ${COLUMNS}`,
        [project, id, parentId, requested],
      );
      if (parent) {
        const committed = Number(parent.reserved_nano) - (await this.remainingNano(client, project, parent));
        await client.query(
          `UPDATE ${LEDGER_SCHEMA}.ledger SET spawned = spawned + 1, peak_committed_nano = GREATEST(COALESCE(peak_committed_nano, 0), $3), updated_at = now() WHERE project = $1 AND thread_id = $2`,
          [project, parent.thread_id, committed],
        );
      }
      return toEntry(rows[0]!);
    });
  }

  /** As ledger.ts `report`: never clamped; a late report follows the released ancestors. */
  async report(projectPath: string, threadId: string, deltaSpend: number): Promise<LedgerEntry> {
    const id = assertThreadId(threadId);
    checkAmount("deltaSpend", deltaSpend);
    return this.transact(projectPath, async (client, project) => {
      const entry = await this.row(client, project, id);
      if (!entry) throw refusals.noEntry(id);
      const delta = toNano(deltaSpend);
      if (delta === 0) return toEntry(entry);
      await this.addSpend(client, project, entry, delta);
      return toEntry((await this.row(client, project, id))!);
    });
  }

  /** As ledger.ts `release`: closes the entry, its actual spend goes to the parent (and released ancestors). Idempotent. */
  async release(projectPath: string, threadId: string): Promise<LedgerEntry> {
    const id = assertThreadId(threadId);
    return this.transact(projectPath, async (client, project) => {
      const entry = await this.row(client, project, id);
      if (!entry) throw refusals.noEntry(id);
      if (entry.status === "released") return toEntry(entry);
      await client.query(`UPDATE ${LEDGER_SCHEMA}.ledger SET status = 'released', updated_at = now() WHERE project = $1 AND thread_id = $2`, [project, id]);
      const parent = entry.parent_thread_id === null ? undefined : await this.row(client, project, entry.parent_thread_id);
      const spent = Number(entry.actual_nano);
      if (parent && spent > 0) await this.addSpend(client, project, parent, spent);
      return toEntry((await this.row(client, project, id))!);
    });
  }

  async remaining(projectPath: string, threadId: string): Promise<number> {
    const id = assertThreadId(threadId);
    return this.transact(projectPath, async (client, project) => {
      const entry = await this.row(client, project, id);
      if (!entry) throw refusals.noEntry(id);
      return fromNano(await this.remainingNano(client, project, entry));
    });
  }

  async getEntry(projectPath: string, threadId: string): Promise<LedgerEntry | undefined> {
    const id = assertThreadId(threadId);
    return this.transact(projectPath, async (client, project) => {
      const entry = await this.row(client, project, id);
      return entry ? toEntry(entry) : undefined;
    });
  }

  async readLedger(projectPath: string): Promise<Ledger> {
    return this.transact(projectPath, async (client, project) => {
      const { rows } = await client.query<Row>(`SELECT ${COLUMNS} FROM ${LEDGER_SCHEMA}.ledger WHERE project = $1 ORDER BY created_at, thread_id`, [project]);
      return { version: 1 as const, entries: Object.fromEntries(rows.map((r) => [r.thread_id, toEntry(r)])) };
    });
  }
}
