/**
 * A thread process talks to its provider through the runtime's own transport (http.mjs, node:http), so it never
 * loads undici (≈ 110–150 ms and 11 MB of its start, issue #33): `rye thread run` against the fake provider with a
 * probe preloaded in every Node process (NODE_OPTIONS reaches the thread process as any variable does), which
 * records at exit whether the process loaded undici. The reply is streamed (SSE), so the stream path is the one used.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import type { ThreadBench } from "../threads.ts";
import { directive, threadBench } from "../threads.ts";

let bench: ThreadBench;
let work: string;
before(async () => {
  bench = await threadBench("anthropic");
  work = await mkdtemp(join(tmpdir(), "rye-thread-transport-"));
  await bench.write("directive", "transport/plain.md", directive({ name: "plain", category: "transport" }));
});
after(async () => {
  await bench.close();
  await rm(work, { recursive: true, force: true });
});

test("the thread process makes its model requests without loading undici", async () => {
  const log = join(work, "probe.log");
  const probe = join(work, "probe.mjs");
  await writeFile(
    probe,
    `import { appendFileSync } from "node:fs";
process.on("exit", () => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv: process.argv.slice(1), undici: process.moduleLoadList.some((m) => m.includes("undici")) }) + "\\n"));
`,
  );
  bench.script({ plain: () => ({ text: "answered over node:http", usage: { input: 3, output: 4 } }) });
  const before = bench.llm.requests.length;
  const run = await bench.rye(["thread", "run", "transport/plain"], { NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` });
  assert.equal(run.json.status, "completed", run.stdout + run.stderr);
  assert.equal(run.json.result, "answered over node:http");
  assert.equal(bench.llm.requests.length - before, 1, "one model request reached the fake provider");
  const processes = (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { argv: string[]; undici: boolean });
  const thread = processes.filter((p) => p.argv.some((a) => a.endsWith("thread_directive.mjs")));
  assert.equal(thread.length, 1, `the thread's own process was probed: ${JSON.stringify(processes.map((p) => p.argv))}`);
  assert.equal(thread[0]!.undici, false, "the thread process loaded undici");
});
