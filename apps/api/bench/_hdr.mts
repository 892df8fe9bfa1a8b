import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishBenchItem } from "/work/main/apps/api/bench/bench-item.ts";
import { freePort } from "/work/main/apps/api/test/free-port.ts";
const port = await freePort();
const dataDir = await mkdtemp(join(tmpdir(), "pt-"));
const child = spawn(process.execPath, ["/work/main/apps/api/dist/main.js"], { env: { ...process.env, RYE_DATA_DIR: dataDir, DATABASE_URL: "", PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production" }, stdio: ["ignore", "ignore", "inherit"] });
const url = `http://127.0.0.1:${port}`;
for (;;) { if (await fetch(url + "/health").then((r) => r.ok, () => false)) break; await new Promise((r) => setTimeout(r, 100)); }
const item = await publishBenchItem(url);
console.error("URL " + item.pinned + " PID " + child.pid);
await new Promise((r) => setTimeout(r, Number(process.argv[2] ?? 1000)));
child.kill("SIGINT"); await once(child, "exit");
