/**
 * The changes feed and webhooks, on the embedded PGlite (or PostgreSQL when DATABASE_URL is set):
 * - feed throughput: reading a 5 000-entry log through GET /v1/changes (1 000 entries a page), against reading the
 *   same log through GET /v1/log/entries in the same run (the ratio is the figure);
 * - webhook delivery latency: a publish → the receiver has the signed POST, with the dispatcher polling every
 *   100 ms and at the default 1 000 ms, against the publish request's own latency in the same run.
 * Run: node --import tsx apps/api/bench/changes.bench.ts   (BENCH_LOG_ENTRIES, BENCH_DELIVERIES scale it)
 */
import "@rye/core/node";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { createTestRegistry } from "../test/harness.ts";
import { silentLogger } from "../src/logger.ts";
import { appendLogEntry } from "../src/services/publish-log.ts";
import { WebhookDispatcher } from "../src/services/webhooks/dispatcher.ts";

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 5_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 1_000_000, writes: 1_000_000 } } });
const user = await reg.createUser("bench");
const token = await reg.token(user);

// A log of ENTRIES public publishes (appended straight into the log, in batches of 500 per transaction).
for (let i = 0; i < ENTRIES; i += 500) {
  await reg.db.prisma.$transaction(async (tx) => {
    for (let j = i; j < Math.min(i + 500, ENTRIES); j++) {
      await appendLogEntry(tx, "publish", { kind: "item", item_type: "knowledge", id: `bench/notes/n${j}`, version: "1.0.0", file_sha256: "0".repeat(64), content_hash: "0".repeat(64), publisher: "bench" });
    }
  }, { timeout: 120_000 });
}

async function readAll(path: (cursor: number) => string, next: (body: any) => number | null): Promise<number> {
  const started = performance.now();
  let cursor: number | null = 0;
  while (cursor !== null) {
    const res = await reg.request("GET", path(cursor));
    cursor = next(await res.json());
  }
  return performance.now() - started;
}
const feedMs: number[] = [];
const logMs: number[] = [];
for (let round = 0; round < 3; round++) {
  logMs.push(await readAll((c) => `/v1/log/entries?from=${c}&limit=1000`, (b) => b.next_from));
  feedMs.push(await readAll((c) => `/v1/changes?since=${c}&limit=1000`, (b) => (b.caught_up ? null : b.next_since)));
}
const feedRate = ENTRIES / (median(feedMs) / 1000);
const logRate = ENTRIES / (median(logMs) / 1000);

// Webhook latency: a real receiver on loopback.
let arrived: ((t: number) => void) | undefined;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    arrived?.(performance.now());
    res.writeHead(204).end();
  });
});
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
await reg.db.prisma.webhook.create({ data: { namespaceId: (await reg.db.prisma.namespace.findUniqueOrThrow({ where: { name: "bench" } })).id, url: hookUrl, secret: "whsec_bench", events: ["publish"] } });

const note = (n: number) => `---\nid: w${n}\ntitle: w${n}\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nBody ${n}.\n`;
let published = 0;
async function latency(pollMs: number): Promise<{ deliver: number; publish: number }> {
  const dispatcher = new WebhookDispatcher({ db: reg.db, logger: silentLogger, secrets: reg.deps.secrets, registryUrl: "http://bench", userAgent: "bench", allowPrivateNetworks: true, timeoutMs: 5000, maxAttempts: 3, retryBaseMs: 1000, pollMs });
  dispatcher.start();
  const deliver: number[] = [];
  const publish: number[] = [];
  try {
    for (let i = 0; i < DELIVERIES; i++) {
      // Publish at a random point of the dispatcher's poll cycle (right after a delivery it would look again at once).
      await new Promise((r) => setTimeout(r, pollMs * (1 + Math.random())));
      const n = published++;
      const got = new Promise<number>((resolve) => (arrived = resolve));
      const started = performance.now();
      const res = await reg.request("POST", "/v1/push", { token, json: { item_type: "knowledge", item_id: `bench/notes/w${n}`, content: note(n), version: "1.0.0" } });
      if (res.status !== 201) throw new Error(`push ${res.status}: ${await res.text()}`);
      publish.push(performance.now() - started);
      deliver.push((await got) - started);
    }
  } finally {
    await dispatcher.stop();
  }
  return { deliver: median(deliver), publish: median(publish) };
}
const fast = await latency(100);
const standard = await latency(1000);
receiver.close();
await reg.close();

const f = (ms: number) => `${ms.toFixed(1)} ms`;
console.log(`changes feed and webhooks (${reg.db.kind}; load average ${loadavg().map((l) => l.toFixed(2)).join(" ")})`);
console.log(`  feed:    ${ENTRIES} entries in ${f(median(feedMs))} = ${Math.round(feedRate)} changes/s; /v1/log/entries ${Math.round(logRate)} entries/s → feed ÷ log ×${(feedRate / logRate).toFixed(2)}`);
console.log(`  webhook: publish → delivered, poll 100 ms: ${f(fast.deliver)} (publish alone ${f(fast.publish)}, ×${(fast.deliver / fast.publish).toFixed(2)})`);
console.log(`  webhook: publish → delivered, poll 1000 ms (default): ${f(standard.deliver)} (publish alone ${f(standard.publish)}, ×${(standard.deliver / standard.publish).toFixed(2)})`);
