/**
 * Pulls through a mirroring registry (docs/mirroring.md): two API processes from the sources (tsx), each on its own
 * PGlite — a public registry and an organization's mirror of it (RYE_UPSTREAM_URL). autocannon c=50 measures, in
 * the same run:
 *   - the public registry's own pinned pull of an item (baseline),
 *   - the mirror's pinned pull of that item once cached (served from mirrored_versions, no upstream request),
 *   - the mirror's pinned pull of one of its own items (its local read path),
 * and prints mirror ÷ baseline. The first, uncached pull through the mirror (fetch + verify + countersign + store)
 * is timed once per item over BENCH_COLD items and compared with the upstream's direct pull the same way.
 * BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_COLD (20).
 * Run: node --import tsx apps/api/bench/mirror-pull.bench.ts
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { signUpPublisher } from "../test/bundle-publisher.ts";
import { startApiProcess } from "./api-process.ts";
import { formatFigures, knowledgeItem, loadFigures } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const COLD = Number(process.env.BENCH_COLD ?? 20);

const load = (url: string) => loadFigures(url, { connections: CONNECTIONS, seconds: SECONDS });

/** Signs up `username` and returns a function that pushes knowledge `username/notes/<name>@1.0.0`. */
async function publisher(url: string, username: string): Promise<(name: string) => Promise<void>> {
  const { token } = await signUpPublisher(url, username);
  return async (name) => {
    const res = await fetch(`${url}/v1/push`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ item_type: "knowledge", item_id: `${username}/notes/${name}`, version: "1.0.0", content: knowledgeItem(name) }) });
    if (res.status !== 201) throw new Error(`push: ${res.status} ${await res.text()}`);
  };
}

async function timeEach(urls: string[]): Promise<number> {
  const start = performance.now();
  for (const url of urls) {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return (performance.now() - start) / urls.length;
}

console.log(`mirror pull bench: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const upstream = await startApiProcess({}, { dataDirPrefix: "rye-bench-mirror-" });
const mirror = await startApiProcess({ RYE_UPSTREAM_URL: upstream.url }, { dataDirPrefix: "rye-bench-mirror-" });
try {
  const pushPublic = await publisher(upstream.url, "alice");
  const cold = Array.from({ length: COLD }, (_, i) => `cold${i}`);
  for (const name of ["hot", ...cold]) await pushPublic(name);
  const pushLocal = await publisher(mirror.url, "acme");
  await pushLocal("local");
  const pinned = (url: string, id: string) => `${url}/v1/pull/knowledge/${id}?version=1.0.0`;

  const coldDirect = await timeEach(cold.map((n) => pinned(upstream.url, `alice/notes/${n}`)));
  const coldMirror = await timeEach(cold.map((n) => pinned(mirror.url, `alice/notes/${n}`)));
  await fetch(pinned(mirror.url, "alice/notes/hot")).then((r) => r.arrayBuffer()); // cache it

  const baseline = await load(pinned(upstream.url, "alice/notes/hot"));
  const mirrored = await load(pinned(mirror.url, "alice/notes/hot"));
  const local = await load(pinned(mirror.url, "acme/notes/local"));
  console.log(`\nc=${CONNECTIONS}, ${SECONDS} s each, load average ${loadavg()[0]!.toFixed(2)}`);
  console.log(`  upstream pinned pull (baseline)   ${formatFigures(baseline)}`);
  console.log(`  mirror, cached upstream item      ${formatFigures(mirrored)}   ${(mirrored.rps / baseline.rps).toFixed(2)}× baseline`);
  console.log(`  mirror, its own item              ${formatFigures(local)}   ${(local.rps / baseline.rps).toFixed(2)}× baseline`);
  console.log(`  first pull, one at a time (${COLD} items): upstream direct ${coldDirect.toFixed(1)} ms, through the mirror ${coldMirror.toFixed(1)} ms (${(coldMirror / coldDirect).toFixed(2)}× direct: fetch + verify + countersign + store)`);
} finally {
  await mirror.stop();
  await upstream.stop();
}
