import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { freePort } from "/work/main/apps/api/test/free-port.ts";
const seconds = Number(process.argv[2] ?? 5);
writeFileSync("/tmp/pt/body.json", Buffer.alloc(4495, 97));
const port = await freePort();
const prof = [...(process.env.PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROF}`] : []), ...(process.env.SFLAGS ? process.env.SFLAGS.split(" ") : [])];
const child = spawn(process.execPath, [...prof, "/work/main/apps/api/bench/bare-hono-server.mjs", "/tmp/pt/body.json"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", process.env.SOUT ? "inherit" : "ignore", "inherit"] });
const target = `http://127.0.0.1:${port}/bytes`;
for (;;) { if (await fetch(target).then((r) => r.ok, () => false)) break; await new Promise((r) => setTimeout(r, 100)); }
await autocannon({ url: target, connections: 50, duration: 2 });
const stat = () => { const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) * 10; };
const c0 = stat();
const r = await autocannon({ url: target, connections: 50, duration: seconds });
const cpu = stat() - c0;
console.log(`bare: ${r.requests.average} req/s p99 ${r.latency.p99}; server CPU ${(cpu * 1000 / r.requests.total).toFixed(1)} µs/request (${r.requests.total} requests)`);
child.kill("SIGINT"); await once(child, "exit");
