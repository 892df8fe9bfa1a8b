// Profile one registry process under a pinned-pull (or /health) load: node --import tsx /tmp/pt/prof-pull.ts <which> <seconds>
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { publishBenchItem } from "/work/main/apps/api/bench/bench-item.ts";
import { freePort } from "/work/main/apps/api/test/free-port.ts";
const which = process.argv[2] ?? "pinned";
const seconds = Number(process.argv[3] ?? 5);
const port = await freePort();
const dataDir = await import("node:fs/promises").then((f) => f.mkdtemp(join(tmpdir(), "pt-")));
const prof = [...(process.env.PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROF}`] : []), ...(process.env.SFLAGS ? process.env.SFLAGS.split(" ") : [])];
const child = spawn(process.execPath, [...prof, "/work/main/apps/api/dist/main.js"], { env: { ...process.env, RYE_DATA_DIR: dataDir, DATABASE_URL: "", PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", RYE_RATE_LIMIT_READS: "1000000000", RYE_RATE_LIMIT_WRITES: "1000000000" }, stdio: ["ignore", process.env.SOUT ? "inherit" : "ignore", "inherit"] });
const url = `http://127.0.0.1:${port}`;
for (;;) { if (await fetch(url + "/health").then((r) => r.ok, () => false)) break; await new Promise((r) => setTimeout(r, 100)); }
const item = await publishBenchItem(url);
const stat = () => { const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) * 10; };
for (const w of which.split(",")) {
const target = w === "pinned" ? item.pinned : w === "latest" ? item.latest : url + "/" + w;
await autocannon({ url: target, connections: 50, duration: 2 });
const c0 = stat();
const r = await autocannon({ url: target, connections: 50, duration: seconds });
const cpu = stat() - c0;
console.log(`${w}: ${r.requests.average} req/s p99 ${r.latency.p99}; server CPU ${(cpu * 1000 / r.requests.total).toFixed(1)} µs/request (${r.requests.total} requests)`);
}
child.kill("SIGINT"); await once(child, "exit");
