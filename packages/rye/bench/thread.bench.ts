/**
 * The agent runtime's own cost, against a fake provider that answers at once (so the model's time is ~0):
 * - a thread of TURNS turns, each executing one tool: rye's overhead per turn = the time between two model
 *   answers (cognition_out events) minus the tool's own run time, read from the transcript;
 * - thread start: `rye thread run` of a one-turn thread, end to end (process starts included);
 * - a capability check (checkCapability over a directive's capabilities), and the capability token chain
 *   verification done before every tool call (1 and 5 tokens);
 * - orchestration: a child thread's spawn to its first model request, and the wake-up latency of wait_threads (a
 *   record turning terminal → the waiter returning, file-system events on this machine);
 * each as a ratio against a plain `execute` of the same tool through the engine (the baseline).
 * Run: node --import tsx packages/rye/bench/thread.bench.ts   (THREAD_BENCH_TURNS=30 by default)
 */
import "@rye/core/node";
import { performance } from "node:perf_hooks";
import { checkCapability } from "@rye/core";
import { directive, requestInfo, returnsTool, threadBench } from "../test/threads.ts";
import { newThreadRecord, writeThread, finishThread } from "../src/threads/record.ts";
import { waitThreads } from "../src/threads/orchestrate.ts";
import { mintCapabilityToken, verifyCapabilityChain } from "../src/sdk/threads.ts";

const TURNS = Number(process.env.THREAD_BENCH_TURNS ?? 30);
const EXECUTES = 30;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const bench = await threadBench("anthropic");
try {
  await bench.write("tool", "bench/tools/echo.mjs", returnsTool("bench/tools", "{ echo: p.text }", `{ type: "object", properties: { text: { type: "string" } }, required: ["text"] }`));
  await bench.write("directive", "bench/loop/turns.md", directive({ name: "turns", category: "bench/loop", permissions: "<execute><tool>bench.tools.*</tool></execute>", limits: `<limits turns="${TURNS + 5}"/>` }));
  const echo = { name: "rye_execute", input: { item_type: "tool", item_id: "bench/tools/echo", parameters: { text: "hello" } } };
  bench.script({ turns: (turn) => (turn < TURNS ? { toolCalls: [echo], usage: { input: 100, output: 10 } } : { text: "done", usage: { input: 100, output: 10 } }) });

  // Baseline: a plain execute of the same tool (verified chain, child process), in this process.
  const engine = await bench.ws.engine();
  await engine.execute({ item_type: "tool", item_id: "bench/tools/echo", parameters: { text: "warm" } });
  const executes: number[] = [];
  for (let i = 0; i < EXECUTES; i++) {
    const t = performance.now();
    await engine.execute({ item_type: "tool", item_id: "bench/tools/echo", parameters: { text: "hello" } });
    executes.push(performance.now() - t);
  }
  const executeMs = median(executes);

  // A thread of TURNS tool turns.
  const started = performance.now();
  const run = await bench.rye(["thread", "run", "bench/loop/turns"]);
  const threadWall = performance.now() - started;
  if (run.json.status !== "completed") throw new Error(`the bench thread did not complete: ${run.stdout}`);
  const events = await bench.events(run.json.thread_id);
  const outs = events.filter((e) => e.event_type === "cognition_out").map((e) => (e as unknown as { timestamp: number }).timestamp * 1000);
  const toolMs = events.filter((e) => e.event_type === "tool_call_result").map((e) => Number(e.payload.duration_ms));
  const perTurn: number[] = [];
  for (let i = 1; i < outs.length; i++) perTurn.push(outs[i]! - outs[i - 1]! - (toolMs[i - 1] ?? 0));
  const overheadMs = median(perTurn);
  const turnMs = median(outs.slice(1).map((t, i) => t - outs[i]!));

  // Thread start, end to end: a one-turn thread through the CLI.
  bench.script({ turns: () => ({ text: "done", usage: { input: 100, output: 10 } }) });
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const one = await bench.rye(["thread", "run", "bench/loop/turns"]);
    if (one.json.status !== "completed") throw new Error(one.stdout);
    starts.push(performance.now() - t);
  }
  const startMs = median(starts);

  // A capability check over a realistic capability list.
  const caps = ["rye.search.knowledge", "rye.load.knowledge.acme.*", "rye.execute.tool.acme.ops.*", "rye.execute.tool.rye.file-system.fs_read", "rye.execute.tool.bench.tools.*"];
  const N = 200_000;
  let allowed = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) if (checkCapability(caps, "execute", "tool", i % 2 ? "bench/tools/echo" : "rye/bash/bash").allowed) allowed++;
  const checkMs = (performance.now() - t0) / N;
  if (allowed !== N / 2) throw new Error("the capability check gave a wrong answer");

  // The capability token chain verified before every tool call: a root thread (1 token) and a thread 5 levels deep.
  const chainOf = async (depth: number) => {
    let chain: string[] = [];
    for (let level = 0; level < depth; level++) {
      chain = (await mintCapabilityToken({ caps, directiveId: "bench/loop/turns", threadId: `bench-${level}`, expiresInSeconds: 600, parentChain: chain }, bench.env)).chain;
    }
    return chain;
  };
  const tokenMs: Record<number, number> = {};
  for (const depth of [1, 5]) {
    const chain = await chainOf(depth);
    const M = 500;
    await verifyCapabilityChain(chain, `bench-${depth - 1}`, bench.env);
    const t1 = performance.now();
    for (let i = 0; i < M; i++) await verifyCapabilityChain(chain, `bench-${depth - 1}`, bench.env);
    tokenMs[depth] = (performance.now() - t1) / M;
  }

  // Spawn to first turn: the parent's model answer asking for a child → the child's first model request.
  await bench.write("directive", "bench/loop/spawner.md", directive({ name: "spawner", category: "bench/loop", permissions: "<execute><tool>rye.agent.threads.thread_directive</tool></execute>" }));
  await bench.write("directive", "bench/loop/kid.md", directive({ name: "kid", category: "bench/loop" }));
  const spawnCall = { name: "rye_execute", input: { item_type: "tool", item_id: "rye/agent/threads/thread_directive", parameters: { directive_name: "bench/loop/kid" } } };
  bench.script({ spawner: (turn) => (turn === 0 ? { toolCalls: [spawnCall], usage: { input: 10, output: 5 } } : { text: "done", usage: { input: 10, output: 5 } }), kid: () => ({ text: "kid done", usage: { input: 10, output: 5 } }) });
  const spawns: number[] = [];
  for (let i = 0; i < 5; i++) {
    const from = bench.llm.requests.length;
    const run = await bench.rye(["thread", "run", "bench/loop/spawner"]);
    if (run.json.status !== "completed") throw new Error(run.stdout);
    const requests = bench.llm.requests.slice(from);
    const parentFirst = requests.find((r) => requestInfo(r).directive === "spawner")!;
    const kidFirst = requests.find((r) => requestInfo(r).directive === "kid")!;
    spawns.push(kidFirst.at - parentFirst.at);
  }
  const spawnMs = median(spawns);

  // wait_threads wake-up: a running record finished by this process, the waiter (in the same process) woken by the event.
  const wakeups: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = `wake-bench-${i}`;
    await writeThread(bench.ws.projectDir, newThreadRecord({ thread_id: id, directive: "bench/loop/kid", status: "running", pid: process.pid }));
    let finishedAt = 0;
    const waiting = waitThreads(bench.ws.projectDir, [id], { timeoutSeconds: 10 });
    await new Promise((r) => setTimeout(r, 20));
    finishedAt = performance.now();
    await finishThread(bench.ws.projectDir, id, "completed");
    const result = await waiting;
    if (!result.done) throw new Error("the waiter did not wake");
    wakeups.push(performance.now() - finishedAt);
  }
  const wakeMs = median(wakeups);

  const row = (name: string, ms: number) => console.log(`${name.padEnd(52)} ${ms.toFixed(ms < 0.1 ? 5 : 2).padStart(10)} ms   ${(ms / executeMs).toFixed(ms < 0.1 ? 6 : 2).padStart(10)} × execute`);
  console.log(`agent runtime, fake provider answering at once, ${TURNS} tool turns (node ${process.version})`);
  row("baseline: plain execute of the tool (median)", executeMs);
  row("rye overhead per turn, tool time excluded (median)", overheadMs);
  row("one turn in the thread, tool included (median)", turnMs);
  row("capability check (5 capabilities)", checkMs);
  row("capability token chain verified, root thread (1 token)", tokenMs[1]!);
  row("capability token chain verified, depth 5 (5 tokens)", tokenMs[5]!);
  row("thread start to end, one turn, via rye thread run", startMs);
  row("child thread: spawn to its first model request (median)", spawnMs);
  row("wait_threads wake-up after a thread ends (median)", wakeMs);
  console.log(`(${TURNS}-turn thread: ${threadWall.toFixed(0)} ms wall in all)`);
} finally {
  await bench.close();
}
