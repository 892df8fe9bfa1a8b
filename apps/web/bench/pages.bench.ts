/**
 * Website figures on the real one-origin server (apps/web/server/main.ts, a fresh database: PostgreSQL
 * when DATABASE_URL is set, else PGlite; the site is built first when stale, under the build lock):
 *
 * 1. Time to first byte of an item page (server-rendered by Next.js, which asks the API over loopback
 *    HTTP) against `GET /health` (the API alone) in the same run: p50 / p99 and the ratio. Requests are
 *    sequential over one keep-alive connection, over several published items.
 * 2. JavaScript shipped per item page: the `/_next/static/**.js` files the page's HTML names in its
 *    script tags, raw and gzip (level 6, what a compressing proxy sends); and, when Chromium is
 *    available, every such file the browser actually loads (lazy chunks included).
 *
 * Run: node --import tsx apps/web/bench/pages.bench.ts   (BENCH_SAMPLES=… to change the sample count)
 */
import { existsSync } from "node:fs";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { itemSource, RyeApi, type Published } from "../../../e2e/helpers/api.ts";
import { startServer } from "../../../e2e/helpers/server.ts";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARMUP = 30;
const ITEMS = 6;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Milliseconds to the response headers (TTFB) and to the last byte, of one GET. */
function timedGet(url: string): Promise<{ ttfb: number; total: number; status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request(url, { agent, headers: { accept: "text/html,application/json" } }, (res) => {
      let ttfb: number | undefined;
      const chunks: Buffer[] = [];
      res.once("data", () => (ttfb = performance.now() - start));
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const total = performance.now() - start;
        resolve({ ttfb: ttfb ?? total, total, status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

interface Stats {
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
}

async function measure(urls: string[]): Promise<Stats> {
  for (let i = 0; i < WARMUP; i++) await timedGet(urls[i % urls.length]!);
  const ttfb: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const r = await timedGet(urls[i % urls.length]!);
    if (r.status !== 200) throw new Error(`${urls[i % urls.length]} answered ${r.status}`);
    ttfb.push(r.ttfb);
    total.push(r.total);
  }
  ttfb.sort((a, b) => a - b);
  total.sort((a, b) => a - b);
  return { ttfbP50: percentile(ttfb, 50), ttfbP99: percentile(ttfb, 99), totalP50: percentile(total, 50), totalP99: percentile(total, 99) };
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** The /_next/static/…js files named by the HTML's <script src> tags (not `nomodule` polyfills: modern browsers skip them). */
function scriptUrls(html: string, base: string): string[] {
  const urls = new Set<string>();
  for (const m of html.matchAll(/<script\b([^>]*)\bsrc="([^"]+)"([^>]*)>/g)) {
    if (/\bnomodule\b/i.test(`${m[1]} ${m[3]}`)) continue;
    const src = m[2]!.replace(/&amp;/g, "&");
    const url = new URL(src, base);
    if (url.pathname.startsWith("/_next/static/") && url.pathname.endsWith(".js")) urls.add(url.toString());
  }
  return [...urls];
}

async function jsBytes(urls: string[]): Promise<{ raw: number; gzip: number; files: number; largest: string }> {
  let raw = 0;
  let gzip = 0;
  const sizes: { name: string; gzip: number }[] = [];
  for (const url of urls) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    const zipped = gzipSync(body, { level: 6 }).length;
    raw += body.length;
    gzip += zipped;
    sizes.push({ name: new URL(url).pathname.split("/").pop()!, gzip: zipped });
  }
  const largest = sizes
    .sort((a, b) => b.gzip - a.gzip)
    .slice(0, 3)
    .map((f) => `${f.name} ${kib(f.gzip)}`)
    .join(", ");
  return { raw, gzip, files: urls.length, largest };
}

/** Every /_next/static/…js the browser loads for the page (hydration and lazy chunks), or null without Chromium. */
async function browserScriptUrls(pageUrl: string): Promise<string[] | null> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) return null;
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const page = await browser.newPage();
    const urls = new Set<string>();
    page.on("response", (res) => {
      const url = new URL(res.url());
      if (url.pathname.startsWith("/_next/static/") && url.pathname.endsWith(".js")) urls.add(res.url());
    });
    await page.goto(pageUrl, { waitUntil: "networkidle" });
    // The in-browser verification runs after hydration: wait for its verdict so its code is counted.
    await page
      .getByRole("region", { name: "Signature verification" })
      .getByRole("status")
      .filter({ hasNotText: /Verifying/ })
      .waitFor({ timeout: 20_000 })
      .catch(() => undefined);
    await page.waitForLoadState("networkidle");
    return [...urls];
  } finally {
    await browser.close();
  }
}

const server = await startServer();
try {
  console.log(`pages bench: ${server.baseURL} on ${server.kind}, ${SAMPLES} sequential requests per URL set after ${WARMUP} warm-up`);
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const key = await api.registerKey(token);
  const items: Published[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const type = (["directive", "knowledge", "tool"] as const)[i % 3]!;
    const id = `${author.username}/bench/item_${i}`;
    const body = `${"Reference text for the benchmark. ".repeat(40)}\n`;
    let content = itemSource[type](id, { version: "1.0.0" });
    if (type === "knowledge") content += `\n## Details\n\n${body}`;
    items.push(await api.publish(token, { type, id, content, key }));
  }
  const itemUrls = items.map((it) => `${server.baseURL}${it.path}`);
  const health = await measure([`${server.baseURL}/health`]);
  const pages = await measure(itemUrls);
  const line = (name: string, s: Stats) =>
    console.log(`${name.padEnd(26)} TTFB p50 ${s.ttfbP50.toFixed(2).padStart(7)} ms  p99 ${s.ttfbP99.toFixed(2).padStart(7)} ms   full p50 ${s.totalP50.toFixed(2).padStart(7)} ms  p99 ${s.totalP99.toFixed(2).padStart(7)} ms`);
  line("GET /health (baseline)", health);
  line("GET /{type}/{id} (item)", pages);
  console.log(`item page / health TTFB ratio: p50 ${(pages.ttfbP50 / health.ttfbP50).toFixed(1)}x  p99 ${(pages.ttfbP99 / health.ttfbP99).toFixed(1)}x`);

  const sample = items.find((it) => it.type === "knowledge")!;
  const html = (await timedGet(`${server.baseURL}${sample.path}`)).body.toString("utf8");
  const fromHtml = await jsBytes(scriptUrls(html, server.baseURL));
  console.log(`item page HTML: ${kib(Buffer.byteLength(html))} raw, ${kib(gzipSync(html).length)} gzip`);
  console.log(`JS named by the item page's script tags: ${fromHtml.files} files, ${kib(fromHtml.raw)} raw, ${kib(fromHtml.gzip)} gzip`);
  const loaded = await browserScriptUrls(`${server.baseURL}${sample.path}`);
  if (loaded) {
    const all = await jsBytes(loaded);
    console.log(`JS the browser loads for the item page (incl. lazy chunks): ${all.files} files, ${kib(all.raw)} raw, ${kib(all.gzip)} gzip`);
    console.log(`  largest (gzip): ${all.largest}`);
  } else {
    console.log("JS the browser loads: skipped (no Chromium at $CHROMIUM_PATH or /usr/bin/chromium)");
  }
} finally {
  agent.destroy();
  await server.stop();
}
