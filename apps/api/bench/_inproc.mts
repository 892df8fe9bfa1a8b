import { openSync, writeSync } from "node:fs";
import { Hono } from "hono";
import { createApp } from "../src/app.ts";
import { jsonLogger } from "../src/logger.ts";
import { createTestRegistry } from "../test/harness.ts";
import { knowledgeItem } from "./load.ts";
const reg = await createTestRegistry({ config: { rateLimit: { reads: 1e9, writes: 1e9 } as never } });
const user = await reg.createUser("bench");
const token = await reg.token(user, { scopes: ["items:write"] });
for (const version of ["1.0.0", "1.1.0"]) {
  const res = await reg.request("POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: "bench/notes/fs_read", version, content: knowledgeItem("fs_read", version) } });
  if (res.status !== 201) throw new Error(await res.text());
}
const devnull = openSync("/dev/null", "w");
const app = createApp({ ...reg.deps, logger: jsonLogger("info", (l) => writeSync(devnull, `${l}\n`)) });
const paths = { pinned: "/v1/pull/knowledge/bench/notes/fs_read?version=1.0.0", latest: "/v1/pull/knowledge/bench/notes/fs_read", health: "/health" };
const body = Buffer.from(await (await app.request(paths.pinned)).arrayBuffer());
const bare = new Hono();
bare.get("/bytes", (c) => c.body(body, 200, { "content-type": "application/json" }));
async function run(label: string, fetcher: (r: Request) => Response | Promise<Response>, url: string, n = 20_000) {
  const one = async () => { const r = await fetcher(new Request(url)); if (r.status !== 200) throw new Error(`${label} ${r.status}`); await r.arrayBuffer(); };
  for (let i = 0; i < 2_000; i++) await one();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n / 50; i++) await Promise.all(Array.from({ length: 50 }, one));
  const cpu = process.cpuUsage(c0); const wall = performance.now() - t0;
  return { label, usPerReq: ((cpu.user + cpu.system) / n), wallUs: (wall * 1000) / n };
}
const rounds = Number(process.argv[2] ?? 3);
const which = (process.argv[3] ?? "bare,pinned,latest,health").split(",");
for (let r = 0; r < rounds; r++) {
  const out: string[] = [];
  for (const w of which) {
    const res = w === "bare" ? await run(w, (q) => bare.fetch(q), "http://x/bytes") : await run(w, (q) => app.fetch(q, { incoming: { socket: { remoteAddress: "127.0.0.1", remotePort: 5, remoteFamily: "IPv4" } } }), `http://registry.test${paths[w as keyof typeof paths]}`);
    out.push(`${w} ${res.usPerReq.toFixed(1)}µs`);
  }
  console.log(out.join("  "));
}
await reg.close();
process.exit(0);
