/**
 * The durable threads back end (RYE_THREADS_BACKEND=postgres) with a real PostgreSQL, two real `rye thread worker`
 * processes sharing the project directory, and a scripted server speaking the Anthropic API.
 *
 * A root thread starts 6 children in the background; each child becomes a job, and the two workers (3 threads at
 * once each) run 3 children each. Every child makes three LLM calls; all six are held in their second call until
 * the test has SIGKILLed one worker with its whole process tree (a machine gone). After the dead worker's heartbeat
 * expires, its 3 jobs are retried on the other worker, which continues each thread from its transcript. Then:
 * every child completed exactly once, no recorded turn was asked again (only the call cut by the kill is asked
 * twice), and the SQL budget ledger holds exactly the price of the replies the provider delivered.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { createScratchPostgresDatabase, skipWithoutPostgres } from "@rye/db/testing";
import pg from "pg";
import { RYE_BIN } from "../cli.ts";
import type { ThreadBench } from "../threads.ts";
import { directive, requestInfo, threadBench } from "../threads.ts";
import type { RecordedLlmRequest } from "../fake-llm.ts";
import { enqueueThread, MAX_RECOVERIES } from "../../src/threads/queue.ts";

const skip = skipWithoutPostgres();
const CHILDREN = 6;
const PER_WORKER = 3;
const CAN_ORCHESTRATE = "<execute><tool>rye.agent.threads.*</tool></execute>";
const spawnChild = (n: number) => ({ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "durable/tree/step", inputs: { part: String(n) }, async_exec: true } } });
const orchestrate = (parameters: Record<string, unknown>) => ({ name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/orchestrator", parameters } });
const search = (query: string) => ({ name: "rye_search", input: { item_type: "knowledge", query } });
/** Usage of each scripted reply: the root's three turns and each child's three. */
const ROOT_USAGE = [{ input: 100, output: 20 }, { input: 120, output: 20 }, { input: 140, output: 10 }];
const CHILD_USAGE = [{ input: 10, output: 5 }, { input: 20, output: 5 }, { input: 30, output: 7 }];

interface Worker {
  child: ChildProcess;
  events: Record<string, any>[];
  waitFor(pred: (e: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<number | null>;
}

function startWorker(bench: ThreadBench, env: Record<string, string>, concurrency = PER_WORKER): Worker {
  const child = spawn(process.execPath, [RYE_BIN, "thread", "worker", "--json", "--concurrency", String(concurrency)], { cwd: bench.ws.projectDir, env: { ...bench.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const events: Record<string, any>[] = [];
  const waiters: { pred: (e: Record<string, any>) => boolean; resolve: (e: Record<string, any>) => void }[] = [];
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let event: Record<string, any>;
    try {
      event = JSON.parse(line) as Record<string, any>;
    } catch {
      return;
    }
    events.push(event);
    for (const w of [...waiters]) if (w.pred(event)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(event);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    events,
    exited,
    waitFor(pred, timeoutMs = 120_000) {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`worker event not seen in ${timeoutMs} ms; events: ${JSON.stringify(events)}; stderr: ${stderr}`)), timeoutMs);
        waiters.push({ pred, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    },
  };
}

/** The process and every descendant (read from /proc before any dies, so none is reparented out of reach). */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parentOf) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  return tree;
}

async function ledgerEntry(id: string): Promise<{ status: string; actual_nano: string } | undefined> {
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ status: string; actual_nano: string }>("SELECT status, actual_nano FROM rye_threads.ledger WHERE thread_id = $1", [id]).catch(() => ({ rows: [] }));
    return rows[0];
  } finally {
    await db.end();
  }
}

const partOf = (request: RecordedLlmRequest) => /Work on part (\d+)/.exec(JSON.stringify(request.body.messages?.[0] ?? ""))?.[1];

let bench: ThreadBench;
let scratch: { url: string; drop(): Promise<void> };
let backendEnv: Record<string, string>;
const workers: Worker[] = [];

describe("the durable threads back end", { skip }, () => {
  before(async () => {
    scratch = await createScratchPostgresDatabase();
    backendEnv = { RYE_THREADS_BACKEND: "postgres", RYE_THREADS_DATABASE_URL: scratch.url };
    bench = await threadBench("anthropic");
    await bench.write("directive", "durable/tree/root.md", directive({ name: "root", category: "durable/tree", permissions: CAN_ORCHESTRATE, limits: `<limits spawns="${CHILDREN}" spend="1" depth="2"/>` }));
    await bench.write("directive", "durable/stop/hangs.md", directive({ name: "hangs", category: "durable/stop" }));
    await bench.write(
      "directive",
      "durable/tree/step.md",
      directive({ name: "step", category: "durable/tree", inputs: `<input name="part" type="string" required="true">which part</input>`, steps: `<step name="work">Work on part {input:part}.</step>` }),
    );
  });
  after(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
    await bench?.close();
    await scratch?.drop();
  });

  test("two workers share a tree of 6 children; one is SIGKILLed mid-run; every child completes once, no turn is redone, the ledger is exact", async (t) => {
    // Arrivals of each part's second LLM call: all six wait for the gate, which opens after the kill.
    const asked = new Map<string, number[]>();
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    let allInSecondCall!: () => void;
    const inSecondCall = new Promise<void>((r) => (allInSecondCall = r));
    let childIds: string[] = [];
    bench.script({
      root: (turn, request) => {
        if (turn === 0) return { toolCalls: Array.from({ length: CHILDREN }, (_, n) => spawnChild(n)), usage: ROOT_USAGE[0]! };
        if (turn === 1) {
          childIds = requestInfo(request).toolResults.map((t) => (JSON.parse(t) as { data: { thread_id: string } }).data.thread_id);
          return { toolCalls: [orchestrate({ operation: "wait_threads", thread_ids: childIds, timeout_seconds: 600 })], usage: ROOT_USAGE[1]! };
        }
        return { text: "the tree is done", usage: ROOT_USAGE[2]! };
      },
      step: async (turn, request) => {
        const part = partOf(request)!;
        const counts = asked.get(part) ?? [0, 0, 0];
        counts[turn] = (counts[turn] ?? 0) + 1;
        asked.set(part, counts);
        if (turn === 0) return { toolCalls: [search(`part ${part} first`)], usage: CHILD_USAGE[0]! };
        if (turn === 1) {
          if ([...asked.values()].filter((c) => (c[1] ?? 0) >= 1).length === CHILDREN) allInSecondCall();
          await gate;
          return { toolCalls: [search(`part ${part} second`)], usage: CHILD_USAGE[1]! };
        }
        return { text: `part ${part} done`, usage: CHILD_USAGE[2]! };
      },
    });

    const a = startWorker(bench, backendEnv);
    const b = startWorker(bench, backendEnv);
    workers.push(a, b);
    await Promise.all([a.waitFor((e) => e.event === "worker_started"), b.waitFor((e) => e.event === "worker_started")]);
    const rootRun = bench.rye(["thread", "run", "durable/tree/root"], backendEnv);

    await inSecondCall;
    const claimedBy = (w: Worker) => w.events.filter((e) => e.event === "job_claimed").map((e) => e.thread_id as string);
    assert.equal(claimedBy(a).length, PER_WORKER, "each worker runs as many children as it may at once …");
    assert.equal(claimedBy(b).length, PER_WORKER, "… so the two share the tree");
    const lost = claimedBy(a);
    for (const id of lost) assert.equal((await bench.record(id)).durable_job !== undefined, true);

    // Worker A's machine goes away: the worker and its thread processes, all at once, no cleanup.
    const tree = processTree(a.child.pid!);
    assert.ok(tree.length > PER_WORKER, `the worker and its ${PER_WORKER} thread processes: ${tree.join(" ")}`);
    for (const pid of tree) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await a.exited;
    const killedAt = Date.now();
    openGate();

    const run = await rootRun;
    assert.equal(run.json.status, "completed", run.stdout + run.stderr);
    assert.equal(run.json.result, "the tree is done");

    // Worker B continued each of A's threads after A's heartbeat stopped.
    const takeovers: number[] = [];
    for (const id of lost) {
      const claim = await b.waitFor((e) => e.event === "job_claimed" && e.thread_id === id && e.recover === true);
      assert.ok(claim.attempt >= 1, "a retry of the job");
      takeovers.push(Date.parse(claim.claimed_at) - killedAt);
    }
    t.diagnostic(`kill → continued on the other worker: ${takeovers.map((ms) => (ms / 1000).toFixed(1)).join(", ")} s (heartbeat 10 s, supervision every 5 s)`);

    // Every child: completed, once; three turns of its own, none asked again except the call cut by the kill.
    assert.equal(childIds.length, CHILDREN);
    for (const id of childIds) {
      const record = await bench.record(id);
      assert.equal(record.status, "completed", JSON.stringify(record.error));
      const events = await bench.events(id);
      assert.equal(events.filter((e) => e.event_type === "thread_completed").length, 1, `${id} ended once`);
      assert.equal(events.filter((e) => e.event_type === "cognition_out").length, 3, `${id}: three replies recorded, none twice`);
      assert.equal(events.filter((e) => e.event_type === "tool_call_result").length, 2, `${id}: two tool calls, none redone`);
      assert.equal(events.filter((e) => e.event_type === "thread_recovered").length, lost.includes(id) ? 1 : 0);
      assert.equal(record.cost.turns, 3);
    }
    for (const [part, counts] of asked) {
      const id = childIds[Number(part)]!;
      assert.deepEqual(counts, [1, lost.includes(id) ? 2 : 1, 1], `part ${part} (${id}): calls per turn`);
    }

    // The ledger: exactly the price of what the provider delivered (each reply once, at the provider's list price).
    const providers = parseYaml(await readFile(new URL("../../../../.ai/tools/rye/agent/providers/anthropic.yaml", import.meta.url), "utf8")) as { tier_mapping: Record<string, string>; pricing: Record<string, { input: number; output: number }> };
    const price = providers.pricing[providers.tier_mapping.general!]!;
    const nanoOf = (u: { input: number; output: number }) => Math.round(((u.input * price.input + u.output * price.output) / 1e6) * 1e9);
    const childNano = CHILD_USAGE.reduce((s, u) => s + nanoOf(u), 0);
    const expectedNano = ROOT_USAGE.reduce((s, u) => s + nanoOf(u), 0) + CHILDREN * childNano;
    const db = new pg.Client({ connectionString: scratch.url });
    await db.connect();
    try {
      const { rows } = await db.query<{ thread_id: string; actual_nano: string; status: string; parent_thread_id: string | null }>("SELECT thread_id, actual_nano, status, parent_thread_id FROM rye_threads.ledger");
      assert.equal(rows.length, CHILDREN + 1);
      for (const row of rows) assert.equal(row.status, "released", row.thread_id);
      const root = rows.find((r) => r.parent_thread_id === null)!;
      assert.equal(root.thread_id, run.json.thread_id);
      assert.equal(Number(root.actual_nano), expectedNano, "the root holds the whole tree's spend, to the nano-dollar");
      for (const row of rows.filter((r) => r.parent_thread_id !== null)) assert.equal(Number(row.actual_nano), childNano, `${row.thread_id}: its three replies, none charged twice`);
    } finally {
      await db.end();
    }
    assert.equal(await readFile(join(bench.ws.projectDir, ".ai", "threads", "ledger.json"), "utf8").catch(() => "none"), "none", "the file ledger is not used");

    b.child.kill("SIGTERM");
    assert.equal(await b.exited, 0);
  });
  test("a thread whose process keeps dying is continued, then given up after MAX_RECOVERIES; a job whose thread ended is not run", async () => {
    bench.script({ hangs: () => ({ hang: true }) });
    const w = startWorker(bench, backendEnv, 1);
    workers.push(w);
    await w.waitFor((e) => e.event === "worker_started");
    const started = await bench.rye(["thread", "run", "durable/stop/hangs", "--async"], backendEnv);
    assert.equal(started.json.status, "queued", started.stdout + started.stderr);
    const id = started.json.thread_id as string;

    const killed: number[] = [];
    for (let i = 0; i < 600; i++) {
      const record = await bench.record(id);
      if (record.status !== "running" && record.status !== "created") break;
      const entry = await ledgerEntry(id);
      // Running, with its budget reserved, in a process not killed yet: a crash of the thread's process.
      if (record.status === "running" && record.pid && !killed.includes(record.pid) && entry) {
        for (const pid of processTree(record.pid)) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // gone
          }
        }
        killed.push(record.pid);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const record = await bench.record(id);
    assert.equal(record.status, "error", JSON.stringify({ killed, events: w.events }));
    assert.equal(record.error.code, "recovery_exhausted");
    assert.equal(killed.length, MAX_RECOVERIES + 1, "the first run and each recovery died");
    const claims = w.events.filter((e) => e.event === "job_claimed" && e.thread_id === id);
    assert.deepEqual(claims.map((e) => [e.attempt, e.recover]), [[0, false], ...Array.from({ length: MAX_RECOVERIES + 1 }, (_, i) => [i + 1, true])]);
    assert.equal((await bench.events(id)).filter((e) => e.event_type === "thread_recovered").length, MAX_RECOVERIES);
    assert.equal((await ledgerEntry(id))?.status, "released", "its budget is released");

    // A job for a thread that has ended (a duplicate, a late retry) does not run it again.
    const jobId = await enqueueThread({ project_path: bench.ws.projectDir, thread_id: id, params: { directive_name: "durable/stop/hangs", async_exec: true }, parent: null }, backendEnv);
    const skipped = await w.waitFor((e) => e.event === "job_skipped" && e.job_id === jobId);
    assert.equal(skipped.status, "error");
    assert.equal(w.events.filter((e) => e.event === "job_claimed" && e.thread_id === id).length, claims.length);
    w.child.kill("SIGTERM");
    assert.equal(await w.exited, 0);
  });
});
