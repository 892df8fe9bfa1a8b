/** The transfer progress renderer: bar, line, summary, and what each mode writes where. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatBytes, progressMode, ProgressReporter, renderBar, renderProgressLine, renderSummary } from "./progress.ts";

test("bytes, bars and lines render as documented", () => {
  assert.deepEqual([0, 512, 1024, 3482, 348_160, 13_107_200, 5 * 1024 ** 3].map(formatBytes), ["0 B", "512 B", "1.0 KiB", "3.4 KiB", "340 KiB", "13 MiB", "5.0 GiB"]);
  assert.equal(renderBar(0), "[..........]");
  assert.equal(renderBar(0.5), "[#####.....]");
  assert.equal(renderBar(0.99), "[#########.]", "never full before the end");
  assert.equal(renderBar(1), "[##########]");
  assert.equal(renderBar(7), "[##########]", "clamped");
  assert.equal(renderBar(Number.NaN), "[..........]");
  assert.equal(renderBar(0.25, 4), "[#...]");

  assert.equal(
    renderProgressLine({ label: "pulling acme/kit 1.2.0", filesDone: 12, filesTotal: 24, bytesDone: 348_160 }),
    "pulling acme/kit 1.2.0  [#####.....] 12/24 files  340 KiB",
  );
  // Downloading: the file count is not known yet, bytes of the announced size drive the bar.
  assert.equal(
    renderProgressLine({ label: "pulling acme/kit", filesDone: 0, bytesDone: 512 * 1024, bytesTotal: 2048 * 1024 }),
    "pulling acme/kit  [##........] 0 files  512 KiB/2.0 MiB",
  );
  assert.equal(renderProgressLine({ label: "x", filesDone: 0, filesTotal: 0, bytesDone: 0 }), "x  [##########] 0/0 files  0 B", "an empty transfer is complete");
  const cut = renderProgressLine({ label: "pulling a-very-long/bundle-name 1.0.0", filesDone: 1, filesTotal: 2, bytesDone: 10 }, { columns: 20 });
  assert.equal(cut, "pulling a-very-long");
  assert.equal(cut.length, 19, "one column short of the terminal width: never wraps");

  assert.equal(renderSummary("pulled acme/kit 1.2.0", { filesDone: 24, bytesDone: 348_160 }, 432), "pulled acme/kit 1.2.0: 24 files, 340 KiB in 0.4 s");
  assert.equal(renderSummary("pushed a/b 1.0.0", { filesDone: 1, bytesDone: 10 }, 12_400), "pushed a/b 1.0.0: 1 file, 10 B in 12 s");
});

test("modes: a bar redrawn in place on a terminal, one summary line otherwise, nothing for --json", () => {
  assert.equal(progressMode({ json: true, isTTY: true }), "silent");
  assert.equal(progressMode({ isTTY: true }), "tty");
  assert.equal(progressMode({ isTTY: false }), "plain");
  assert.equal(progressMode({}), "plain");

  let clock = 0;
  const steps = [1, 2, 3, 4].map((n) => ({ label: "pulling a/b 1.0.0", filesDone: n, filesTotal: 4, bytesDone: n * 1024 }));

  const written: string[] = [];
  const plainLines: string[] = [];
  const tty = new ProgressReporter({ mode: "tty", stream: { write: (s: string) => written.push(s), isTTY: true, columns: 80 }, plain: (l) => plainLines.push(l), intervalMs: 100, now: () => clock });
  tty.update(steps[0]!); // drawn (first)
  clock = 50;
  tty.update(steps[1]!); // throttled
  clock = 150;
  tty.update(steps[2]!); // drawn
  tty.update(steps[3]!); // throttled, but finish draws the final state
  tty.finish("pulled a/b 1.0.0");
  assert.deepEqual(written, [
    "\rpulling a/b 1.0.0  [##........] 1/4 files  1.0 KiB\x1b[K",
    "\rpulling a/b 1.0.0  [#######...] 3/4 files  3.0 KiB\x1b[K",
    "\rpulling a/b 1.0.0  [##########] 4/4 files  4.0 KiB\x1b[K",
    "\n",
  ]);
  assert.equal(plainLines.length, 0, "a terminal gets no extra summary line");
  tty.update(steps[0]!);
  tty.finish("again");
  assert.equal(written.length, 4, "nothing after the end");

  const plainStream: string[] = [];
  const plain = new ProgressReporter({ mode: "plain", stream: { write: (s: string) => plainStream.push(s) }, plain: (l) => plainLines.push(l), now: () => clock });
  for (const s of steps) plain.update(s);
  clock = 550;
  plain.finish("pulled a/b 1.0.0");
  assert.deepEqual(plainStream, [], "no control characters when stderr is not a terminal");
  assert.deepEqual(plainLines, ["pulled a/b 1.0.0: 4 files, 4.0 KiB in 0.4 s"]);

  const silentStream: string[] = [];
  const silentLines: string[] = [];
  const silent = new ProgressReporter({ mode: "silent", stream: { write: (s: string) => silentStream.push(s), isTTY: true }, plain: (l) => silentLines.push(l) });
  for (const s of steps) silent.update(s);
  silent.finish("pulled");
  assert.deepEqual([silentStream, silentLines], [[], []]);

  const failing: string[] = [];
  const failed = new ProgressReporter({ mode: "tty", stream: { write: (s: string) => failing.push(s), isTTY: true }, now: () => 0 });
  failed.update(steps[0]!);
  failed.fail();
  failed.finish("never");
  assert.deepEqual(failing.slice(1), ["\r\x1b[K"], "a failure erases the bar and prints no summary");
});
