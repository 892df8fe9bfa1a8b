/** CallStorage: each call sees its own store, and Node's promise hooks are off again once no call runs. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { CallStorage } from "./call-storage.ts";

test("nested and overlapping calls each see their own store, until the last of them ends", async () => {
  const storage = new CallStorage<string>();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const outer = storage.run("outer", async () => {
    const inner = await storage.run("inner", async () => (await null, storage.getStore()));
    await held;
    return [inner, storage.getStore()];
  });
  // A second call while the first still runs, ending first: the first keeps its store.
  assert.equal(await storage.run("second", async () => (await null, storage.getStore())), "second");
  release();
  assert.deepEqual(await outer, ["inner", "outer"]);
  assert.equal(storage.getStore(), undefined);
  await assert.rejects(storage.run("failing", async () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await storage.run("again", async () => (await null, storage.getStore())), "again");
});

test("promise hooks are on only while a call runs (a fresh process, where nothing else installed them)", () => {
  // With promise hooks installed, every await's continuation runs as its own async resource.
  const script = `
    import { executionAsyncId } from "node:async_hooks";
    import { CallStorage } from ${JSON.stringify(new URL("./call-storage.ts", import.meta.url).href)};
    const tracked = async () => { await null; const id = executionAsyncId(); await null; return id !== executionAsyncId(); };
    const storage = new CallStorage();
    const before = await tracked();
    const inside = await storage.run(1, tracked);
    const after = await tracked();
    process.stdout.write(JSON.stringify({ before, inside, after }));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), { before: false, inside: true, after: false });
});
