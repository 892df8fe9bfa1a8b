/**
 * Paging for the MCP lists (resources/list, prompts/list): the first page computes the whole list once and keeps it
 * as a snapshot; the cursor names the snapshot and an offset, so the later pages of one listing come from the same
 * snapshot (never overlapping or skipping when items change meanwhile) and cost no recomputation. Explicit limits:
 * a few snapshots per list kind (the oldest dropped first) and an age after which a cursor is refused.
 */
import { randomUUID } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export const MAX_LIST_SNAPSHOTS = 8;
export const LIST_SNAPSHOT_TTL_MS = 5 * 60_000;

export class ListPages<T> {
  private readonly snapshots = new Map<string, { entries: T[]; at: number }>();

  constructor(
    private readonly pageSize: number,
    private readonly what: string,
  ) {}

  /** One page: the first (no cursor) from `compute()`, later ones from the cursor's snapshot. */
  async page(cursor: string | undefined, compute: () => Promise<T[]>): Promise<{ entries: T[]; nextCursor?: string }> {
    let entries: T[];
    let id = "";
    let offset = 0;
    if (cursor === undefined) {
      entries = await compute();
      if (entries.length > this.pageSize) id = this.put(entries);
    } else {
      const match = /^([0-9a-f-]{36}):(\d{1,9})$/.exec(cursor);
      const snapshot = match ? this.get(match[1]!) : undefined;
      if (!match || !snapshot) {
        throw new McpError(ErrorCode.InvalidParams, `Not a current cursor of this server's ${this.what}: ${JSON.stringify(cursor.slice(0, 100))} (cursors expire after ${LIST_SNAPSHOT_TTL_MS / 60_000} minutes or ${MAX_LIST_SNAPSHOTS} newer listings)`, {
          status: "error",
          error: { code: "BAD_REQUEST", message: `Unknown or expired ${this.what} cursor`, hint: "List again from the first page." },
        });
      }
      entries = snapshot;
      id = match[1]!;
      offset = Number(match[2]);
    }
    const next = offset + this.pageSize;
    return { entries: entries.slice(offset, next), ...(next < entries.length ? { nextCursor: `${id}:${next}` } : {}) };
  }

  private put(entries: T[]): string {
    const id = randomUUID();
    this.snapshots.set(id, { entries, at: Date.now() });
    while (this.snapshots.size > MAX_LIST_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value!);
    return id;
  }

  private get(id: string): T[] | undefined {
    const snapshot = this.snapshots.get(id);
    if (!snapshot) return undefined;
    if (Date.now() - snapshot.at > LIST_SNAPSHOT_TTL_MS) {
      this.snapshots.delete(id);
      return undefined;
    }
    return snapshot.entries;
  }
}
