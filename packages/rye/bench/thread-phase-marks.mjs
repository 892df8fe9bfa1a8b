// Preloaded (`NODE_OPTIONS=--import …`) by thread-start.bench.ts (unless THREAD_BENCH_PHASES=0): each process appends
// wall-clock marks (epoch ms, sub-millisecond) to RYE_BENCH_MARKS as JSON lines, so the bench can split a thread's
// start into phases: the process's own start (performance.timeOrigin), the end of the SDK entry's evaluation, each
// child process spawned and each HTTP request sent. `mono` is the monotonic clock in µs, a --cpu-prof profile's, to
// find a phase's window in a profile. Only for the bench; it changes nothing the processes do.
import { appendFileSync } from "node:fs";
import module from "node:module";
import { basename } from "node:path";

const file = process.env.RYE_BENCH_MARKS;
const mark = (what, at = performance.timeOrigin + performance.now()) => {
  if (file) appendFileSync(file, `${JSON.stringify({ pid: process.pid, ppid: process.ppid, script: basename(process.argv[1] ?? ""), tool: basename(process.argv[2] ?? ""), what, at, mono: Number(process.hrtime.bigint() / 1000n) })}\n`);
};
mark("origin", performance.timeOrigin);

globalThis.__ryeBenchMark = mark;
// The SDK entry's last statement: appended to its source, it runs once every module it imports has evaluated.
module.registerHooks?.({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!/\/(dist\/sdk\/v1\.js|src\/sdk\/v1\.ts)$/.test(url) || loaded.source === undefined) return loaded;
    return { ...loaded, source: `${String(loaded.source)}\n;globalThis.__ryeBenchMark?.("sdk evaluated");\n` };
  },
});

const { ChildProcess } = process.getBuiltinModule("node:child_process");
const spawn = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function markedSpawn(options) {
  mark(`spawn ${basename(String(options?.args?.[1] ?? options?.file ?? ""))} ${basename(String(options?.args?.[2] ?? ""))}`);
  return spawn.call(this, options);
};
for (const name of ["node:http", "node:https"]) {
  const transport = process.getBuiltinModule(name);
  const request = transport.request;
  transport.request = function markedRequest(...args) {
    mark("http request");
    return request.apply(this, args);
  };
}
