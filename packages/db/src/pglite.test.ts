/**
 * PGlite's page cache (shared_buffers): the registry's default, an explicit size, a data directory created under
 * another size (postgresql.conf says 128MB) reopened with ours, and the bounds.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openDatabase } from "./client.ts";
import { createPglite, DEFAULT_PGLITE_SHARED_BUFFERS_MB, MAX_PGLITE_SHARED_BUFFERS_MB } from "./pglite.ts";

async function sharedBuffers(options: Parameters<typeof createPglite>[0] = {}): Promise<string> {
  const db = await createPglite(options);
  try {
    return (await db.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]!.shared_buffers;
  } finally {
    await db.close();
  }
}

describe("PGlite shared_buffers", () => {
  test("the default replaces initdb's 128MB; an explicit size is used as given", async () => {
    assert.equal(await sharedBuffers(), `${DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`);
    assert.equal(await sharedBuffers({ sharedBuffersMb: 64 }), "64MB");
  });

  test("a data directory whose postgresql.conf says 128MB runs with the size it is opened with", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rye-pglite-buffers-"));
    try {
      const first = await openDatabase({ dataDir: dir, migrate: false });
      await first.close();
      assert.match(readFileSync(join(dir, "pglite", "postgresql.conf"), "utf8"), /^shared_buffers = 128MB/m, "initdb's own setting stays in the file");
      const reopened = await openDatabase({ dataDir: dir, migrate: false, pgliteSharedBuffersMb: 16 });
      try {
        const { rows } = await reopened.raw.query<{ shared_buffers: string }>("SHOW shared_buffers");
        assert.equal(rows[0]!.shared_buffers, "16MB");
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("sizes outside 1 to the maximum, or not whole MB, are refused before PGlite starts", () => {
    for (const sharedBuffersMb of [0, -1, 1.5, MAX_PGLITE_SHARED_BUFFERS_MB + 1, Number.NaN]) {
      assert.throws(() => createPglite({ sharedBuffersMb }), /shared_buffers must be a whole number of MB from 1 to 1024/);
    }
  });
});
