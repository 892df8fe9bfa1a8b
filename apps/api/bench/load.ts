/** What the API benches share: an autocannon load with its warm-up, its figures and their one-line form, and a test item. */
import { randomBytes } from "node:crypto";
import { cpuMs } from "./process-memory.ts";
import autocannon from "autocannon";

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** With `serverPid`: the server's CPU time per request over the measured run, in µs (NaN when unknown). */
  cpuUs?: number;
}

/**
 * `seconds` of load on `url` with `connections`, after a 2 s warm-up (JIT, pools, caches). `path`, when given, picks
 * each request's path (and query) on the same origin, so a load can spread over many resources. `overallRate`, when
 * given, caps the requests per second over all connections (an open-loop load of that rate, at most).
 */
export async function loadFigures(url: string, options: { connections: number; seconds: number; headers?: Record<string, string>; path?: () => string; discardBodies?: boolean; serverPid?: number; overallRate?: number }): Promise<Figures> {
  const { connections, seconds, headers = {}, path, discardBodies = false, serverPid, overallRate } = options;
  const requests = path ? [{ method: "GET" as const, setupRequest: (req: autocannon.Request) => ({ ...req, path: path() }) }] : undefined;
  const common = { url, connections, headers, ...(requests ? { requests } : {}), ...(discardBodies ? { setupClient: discardBodiesOf } : {}), ...(overallRate ? { overallRate } : {}) };
  await autocannon({ ...common, duration: 2 });
  const cpuBefore = serverPid === undefined ? Number.NaN : await cpuMs(serverPid);
  const r = await autocannon({ ...common, duration: seconds });
  const cpuUs = serverPid === undefined ? undefined : (((await cpuMs(serverPid)) - cpuBefore) * 1000) / r.requests.total;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, ...(cpuUs === undefined ? {} : { cpuUs }) };
}

/**
 * autocannon appends every response body to a string (`req.body += chunk`): for binary bodies (tiles) that UTF-8
 * decoding costs the load generator several times what the server spends on the request, so the generator, not the
 * server, sets the rate. A client that discards bodies measures the server (bytes are still counted).
 */
function discardBodiesOf(client: autocannon.Client): void {
  (client as unknown as { pipelinedRequests: { addBody(data: unknown): void } }).pipelinedRequests.addBody = () => {};
}

export const formatFigures = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(6)} req/s  p50 ${String(f.p50).padStart(3)} ms  p99 ${String(f.p99).padStart(4)} ms${f.cpuUs === undefined ? "" : `  cpu ${f.cpuUs.toFixed(0).padStart(3)} µs/req`}${f.non2xx || f.errors ? `  (non-2xx ${f.non2xx}, errors ${f.errors})` : ""}`;

/** ~3.6 KB of knowledge, like the issue's fs_read measurement. */
export function knowledgeItem(name: string, version = "1.0.0"): string {
  const text = Array.from({ length: 48 }, (_, i) => `Line ${i}: ${randomBytes(24).toString("base64")} reference text.`).join("\n");
  return `---\nid: ${name}\ntitle: ${name}\nversion: ${version}\nentry_type: reference\ncategory: notes\n---\n\n# ${name}\n\n${text}\n`;
}
