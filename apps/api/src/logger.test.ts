import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import test from "node:test";
import { batchedLineWriter, jsonLogger } from "./logger.ts";

test("the lines of one event-loop turn leave in one write, in order; the next turn's in another", async () => {
  const writes: string[] = [];
  const logger = jsonLogger("info", batchedLineWriter({ write: (text: string) => writes.push(text) }));
  logger.log("info", "a");
  logger.log("debug", "dropped");
  logger.log("warn", "b");
  assert.equal(writes.length, 0);
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0]!.split("\n").slice(0, -1).map((l) => (JSON.parse(l) as { msg: string }).msg), ["a", "b"]);
  assert.ok(writes[0]!.endsWith("\n"));
  logger.log("error", "c");
  await new Promise((r) => setImmediate(r));
  assert.equal(writes.length, 2);
  assert.equal((JSON.parse(writes[1]!) as { msg: string }).msg, "c");
});

test("a line logged just before process.exit is still written", () => {
  const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));
  const script = `import { jsonLogger } from ${JSON.stringify(logger)}; const l = jsonLogger("info"); l.log("info", "one"); l.log("error", "last words"); process.exit(3);`;
  let out = "";
  try {
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
  } catch (err) {
    out = (err as { stdout: string; status: number }).stdout;
    assert.equal((err as { status: number }).status, 3);
  }
  assert.deepEqual(out.trim().split("\n").map((l) => (JSON.parse(l) as { msg: string }).msg), ["one", "last words"]);
});

test("each line is one JSON object: time, level, message, the base fields, then the call's (which win over the base)", () => {
  const lines: string[] = [];
  const logger = jsonLogger("debug", (l) => lines.push(l), { pid: 7, role: "api" });
  logger.log("info", 'say "hi"\n', { status: 200, user: undefined, nested: { a: [1] } });
  logger.log("warn", "plain");
  logger.log("error", "override", { role: "web", msg: "not the message" });
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.match(String(parsed[0]!.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual({ ...parsed[0], time: 0 }, { time: 0, level: "info", msg: 'say "hi"\n', pid: 7, role: "api", status: 200, nested: { a: [1] } });
  assert.deepEqual({ ...parsed[1], time: 0 }, { time: 0, level: "warn", msg: "plain", pid: 7, role: "api" });
  assert.deepEqual({ ...parsed[2], time: 0 }, { time: 0, level: "error", msg: "not the message", pid: 7, role: "web" });
  assert.ok(lines.every((l) => !l.includes("\n")));
});
