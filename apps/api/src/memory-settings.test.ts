/**
 * The memory settings of a registry process (docs/deployment.md, "Memory"): RYE_PGLITE_SHARED_BUFFERS_MB reaches
 * the embedded database and is bounded; the collection after start-up frees what nothing references any more and
 * shrinks the young generation, without exposing `gc` to the registry's code.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { getHeapSpaceStatistics } from "node:v8";
import { RyeError } from "@rye/core";
import { loadConfig } from "./config.ts";
import { jsonLogger } from "./logger.ts";
import { openRegistry } from "./registry.ts";
import { applyV8MemoryFlags, collectStartupGarbage } from "./runtime-memory.ts";

describe("memory settings", () => {
  test("RYE_PGLITE_SHARED_BUFFERS_MB sizes the embedded database's page cache", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "rye-memory-settings-"));
    try {
      const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_PGLITE_SHARED_BUFFERS_MB: "24" });
      const deps = await openRegistry(config, jsonLogger("silent"), { env: {} });
      try {
        const { rows } = await deps.db.raw.query<{ shared_buffers: string }>("SHOW shared_buffers");
        assert.equal(rows[0]!.shared_buffers, "24MB");
      } finally {
        await deps.reads.close();
        await deps.db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("RYE_PGLITE_SHARED_BUFFERS_MB is a whole number of MB from 1 to 1024; unset leaves @rye/db's default", () => {
    assert.equal(loadConfig({}).pgliteSharedBuffersMb, undefined);
    assert.equal(loadConfig({ RYE_PGLITE_SHARED_BUFFERS_MB: "1024" }).pgliteSharedBuffersMb, 1024);
    for (const value of ["0", "1025", "12.5", "lots"]) {
      assert.throws(() => loadConfig({ RYE_PGLITE_SHARED_BUFFERS_MB: value }), (err) => err instanceof RyeError && err.code === "BAD_REQUEST" && /RYE_PGLITE_SHARED_BUFFERS_MB/.test(err.message));
    }
  });

  test("RYE_V8_OPTIMIZE_FOR_SIZE is off unless asked for", () => {
    assert.equal(loadConfig({}).v8OptimizeForSize, false);
    assert.equal(loadConfig({ RYE_V8_OPTIMIZE_FOR_SIZE: "1" }).v8OptimizeForSize, true);
    assert.equal(loadConfig({ RYE_V8_OPTIMIZE_FOR_SIZE: "false" }).v8OptimizeForSize, false);
    assert.throws(() => loadConfig({ RYE_V8_OPTIMIZE_FOR_SIZE: "yes please" }), (err) => err instanceof RyeError && /RYE_V8_OPTIMIZE_FOR_SIZE/.test(err.message));
  });

  test("the collection after start-up frees unreferenced memory and leaves no global gc behind", async () => {
    applyV8MemoryFlags({ optimizeForSize: false });
    const ref = new WeakRef(new ArrayBuffer(64 * 1024 * 1024));
    // A WeakRef keeps its target alive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectStartupGarbage();
    assert.equal(ref.deref(), undefined);
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
  });

  test("the collection after start-up shrinks a young generation that start-up grew", () => {
    const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;
    const grownTo = 8 * 1024 * 1024;
    let garbage: object[] = [];
    for (let i = 1; i <= 5_000_000 && (i % 10_000 !== 0 || youngGeneration() < grownTo); i++) {
      garbage.push({ i });
      if (garbage.length > 100_000) garbage = [];
    }
    const grown = youngGeneration();
    assert.ok(grown >= grownTo, `the allocations grew the young generation (${grown} bytes)`);
    collectStartupGarbage();
    assert.ok(youngGeneration() <= grown / 4, `shrunk: ${grown} → ${youngGeneration()} bytes`);
  });
});
