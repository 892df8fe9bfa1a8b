#!/usr/bin/env node
// Load test of a running registry, wherever it is (one process, compose behind haproxy, a Kubernetes Ingress, a CDN):
//   node infra/load-test.mjs --url http://localhost:8080 [--connections 50] [--duration 20] [--path /v1/search?q=x]…
//                            [--header "authorization: Bearer …"] [--max-error-rate 0]
// Without --path it measures /health, then finds a public item with GET /v1/search?limit=1 and measures its pinned
// pull (?version=…, the CDN-cacheable answer) and its latest pull. Each path is hammered in turn with autocannon
// (a dev dependency of the repository); prints requests/s, p50/p99 latency and non-2xx/errors per path, each
// path's requests/s as a ratio of the first path's (the same server's baseline in the same run), and exits 1 when
// the share of failed requests (errors + non-2xx) of any path is above --max-error-rate.
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    path: { type: "string", multiple: true },
    header: { type: "string", multiple: true },
    connections: { type: "string", default: "50" },
    duration: { type: "string", default: "20" },
    "max-error-rate": { type: "string", default: "0" },
    help: { type: "boolean", short: "h" },
  },
});

function usage(message) {
  if (message) console.error(`load-test: ${message}`);
  console.error("usage: node infra/load-test.mjs --url <base URL> [--path <path>]… [--header 'name: value']… [--connections N] [--duration seconds] [--max-error-rate 0..1]");
  process.exit(message ? 2 : 0);
}
if (values.help) usage();
if (!values.url) usage("--url is required");
let base;
try {
  base = new URL(values.url);
} catch {
  usage(`--url is not a URL: ${values.url}`);
}
if (base.protocol !== "http:" && base.protocol !== "https:") usage("--url must be http:// or https://");
const positive = (name, max) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1 || n > max) usage(`--${name} must be an integer from 1 to ${max}`);
  return n;
};
const connections = positive("connections", 10_000);
const duration = positive("duration", 3600);
const maxErrorRate = Number(values["max-error-rate"]);
if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) usage("--max-error-rate must be between 0 and 1");
const headers = {};
for (const header of values.header ?? []) {
  const colon = header.indexOf(":");
  if (colon < 1) usage(`--header must be "name: value", got ${JSON.stringify(header)}`);
  headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
}
const at = (path) => new URL(path, base).href;

/** /health, then the pinned and the latest pull of the first public item the registry lists. */
async function defaultPaths() {
  const paths = ["/health"];
  const res = await fetch(at("/v1/search?limit=1"), { headers, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET /v1/search answered ${res.status}`);
  const item = (await res.json()).results?.find((r) => r.visibility === "public");
  if (!item) {
    console.error("load-test: the registry lists no public item; measuring /health only");
    return paths;
  }
  const pull = `/v1/pull/${encodeURIComponent(item.item_type)}/${item.item_id.split("/").map(encodeURIComponent).join("/")}`;
  return [...paths, `${pull}?version=${encodeURIComponent(item.version)}`, pull];
}

const paths = values.path?.length ? values.path : await defaultPaths();
console.log(`load-test: ${base.origin}, ${connections} connections, ${duration} s per path`);
let baseline;
let failed = false;
for (const path of paths) {
  const result = await autocannon({ url: at(path), connections, duration, headers });
  const total = result.requests.total + result.errors;
  const bad = result.errors + result.non2xx;
  const rate = total === 0 ? 1 : bad / total;
  baseline ??= result.requests.average;
  const ratio = baseline > 0 ? result.requests.average / baseline : 0;
  console.log(
    `${path}\n  ${result.requests.average.toFixed(0)} req/s (${ratio.toFixed(2)}× ${paths[0]}), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
      `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts (${(rate * 100).toFixed(2)}% failed)`,
  );
  if (rate > maxErrorRate) failed = true;
}
if (failed) {
  console.error(`load-test: FAILED: a path's failed share is above --max-error-rate ${maxErrorRate}`);
  process.exit(1);
}
