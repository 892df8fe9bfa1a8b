/** The bound on proof builds: how many run at once, who waits, who is refused, and that a failure frees its slot. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BuildLimit } from "./build-limit.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

test("at most `atOnce` run; the others wait their turn, first come first served", async () => {
  const limit = new BuildLimit(2, 10);
  const gates = [gate(), gate(), gate(), gate()];
  const started: number[] = [];
  let running = 0;
  let most = 0;
  const runs = gates.map((g, i) =>
    limit.run(async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await g.opened;
      running--;
      return i;
    }),
  );
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1]);
  assert.equal(limit.active, 2);
  assert.equal(limit.queued, 2);
  gates[1]!.open();
  await runs[1];
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1, 2]);
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
  assert.equal(most, 2);
  assert.equal(limit.active, 0);
  assert.equal(limit.queued, 0);
});

test("beyond `maxWaiting` waiting a caller is refused at once with UNAVAILABLE and a hint, and nothing of it runs", async () => {
  const limit = new BuildLimit(1, 1, "proof builds");
  const g = gate();
  const first = limit.run(() => g.opened);
  const second = limit.run(async () => "second");
  let ran = false;
  await assert.rejects(
    limit.run(async () => {
      ran = true;
    }),
    (err: { code?: string; hint?: string; message?: string }) => err.code === "UNAVAILABLE" && Boolean(err.hint) && /proof builds/.test(err.message ?? ""),
  );
  assert.equal(ran, false);
  g.open();
  await first;
  assert.equal(await second, "second");
});

test("a build that fails frees its slot for the next one", async () => {
  const limit = new BuildLimit(1, 5);
  const failing = limit.run(async () => {
    throw new Error("no tile");
  });
  const next = limit.run(async () => "ran");
  await assert.rejects(failing, /no tile/);
  assert.equal(await next, "ran");
  assert.equal(limit.active, 0);
});

test("a limit needs at least one slot, a whole number of waiters and a rate of 0 or more", () => {
  assert.throws(() => new BuildLimit(0, 1), RangeError);
  assert.throws(() => new BuildLimit(1, -1), RangeError);
  assert.throws(() => new BuildLimit(1.5, 1), RangeError);
  assert.throws(() => new BuildLimit(1, 1, "builds", -1), RangeError);
  assert.throws(() => new BuildLimit(1, 1, "builds", Number.NaN), RangeError);
});

test("with `perSecond`, work that is not urgent starts at most that often, even one at a time; urgent work does not wait for it", async () => {
  const limit = new BuildLimit(2, 10, "builds", 4);
  const starts: number[] = [];
  const t0 = performance.now();
  await Promise.all([0, 1, 2].map(() => limit.run(async () => void starts.push(performance.now() - t0))));
  // The k-th at least k × 250 ms after the first (a timer may fire a millisecond early; a late one does not push the
  // next start back: the rate is kept, not each gap), though two slots were free.
  assert.ok(starts[1]! - starts[0]! >= 248 && starts[2]! - starts[0]! >= 498, `starts at ${starts.map((s) => s.toFixed(0)).join(", ")} ms`);
  const next = limit.run(async () => performance.now());
  const urgent = await limit.run(async () => performance.now(), { urgent: true });
  assert.ok(urgent < (await next), "the urgent work started while the next one waited out the spacing");
});

test("with `perSecond` and one slot, urgent work is not held by the spacing of the work before it, and those waiting it out count toward `maxWaiting`", async () => {
  const limit = new BuildLimit(1, 2, "builds", 4);
  const t0 = performance.now();
  await limit.run(async () => {});
  // The next two wait out 250 and 500 ms of spacing; a third would be one waiter too many.
  const paced = [limit.run(async () => performance.now() - t0), limit.run(async () => performance.now() - t0)];
  await assert.rejects(limit.run(async () => {}), (err: { code?: string }) => err.code === "UNAVAILABLE");
  const urgent = await limit.run(async () => performance.now() - t0, { urgent: true });
  assert.ok(urgent < 100, `the urgent work started at ${urgent.toFixed(0)} ms, not after the spacing (250 ms)`);
  const [second, third] = await Promise.all(paced);
  assert.ok(second! >= 248 && third! >= 498, `the paced ones at ${second!.toFixed(0)} and ${third!.toFixed(0)} ms`);
});

test("a refusal asks the caller to retry after a second (Retry-After on the 503)", async () => {
  const limit = new BuildLimit(1, 0);
  const g = gate();
  const first = limit.run(() => g.opened);
  await assert.rejects(limit.run(async () => {}), (err: { details?: { retry_after?: number } }) => err.details?.retry_after === 1);
  g.open();
  await first;
});

test("urgent work waits ahead of the rest, in its own order, and is never refused", async () => {
  const limit = new BuildLimit(1, 4);
  const g = gate();
  const started: string[] = [];
  const job = (name: string) => async () => {
    started.push(name);
  };
  const first = limit.run(() => g.opened);
  const runs = [limit.run(job("a")), limit.run(job("B"), { urgent: true }), limit.run(job("c")), limit.run(job("D"), { urgent: true })];
  // Four wait (a, B, c, D): the list is full, so one more normal caller is refused; an urgent one is not.
  await assert.rejects(limit.run(job("x")), (err: { code?: string }) => err.code === "UNAVAILABLE");
  runs.push(limit.run(job("E"), { urgent: true }));
  g.open();
  await first;
  await Promise.all(runs);
  assert.deepEqual(started, ["B", "D", "E", "a", "c"]);
  assert.equal(limit.queued, 0);
});
