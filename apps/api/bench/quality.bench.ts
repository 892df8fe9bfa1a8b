/**
 * What quality and safety signals cost a publish (docs/quality.md), on the embedded PGlite (or PostgreSQL when
 * DATABASE_URL is set). For three tools — a small YAML tool, rye's own bash tool (about 1.5 KB of JavaScript) and a
 * 256 KiB generated JavaScript tool — it measures in one run:
 * - the whole POST /v1/push (signals included), median of BENCH_PUBLISHES versions;
 * - the signal work alone: the safety report with the gate's rules and the quality factors (pure), and the item's
 *   stored score (refreshItemQuality, one read and one write in the publish's transaction);
 * and prints the signals' share, as a ratio against the publish without them (push − signals) measured in the same run.
 * Run: node --import tsx apps/api/bench/quality.bench.ts   (BENCH_PUBLISHES scales it)
 */
import "@rye/core/node";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseItem, safetyReport, stripSignature } from "@rye/core";
import type { Prisma } from "@rye/db";
import { createTestRegistry } from "../test/harness.ts";
import { refreshItemQuality, safetyOf, versionSignals } from "../src/services/quality.ts";
import { systemSafetyRules } from "../src/services/safety-rules.ts";

const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 30);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const reg = await createTestRegistry({ config: { rateLimit: { windowSeconds: 60, reads: 1_000_000, writes: 1_000_000 } } });
const token = await reg.token(await reg.createUser("bench"));
const rules = await systemSafetyRules();

const bash = readFileSync(new URL("../../../.ai/tools/rye/bash/bash.mjs", import.meta.url), "utf8").replace(/^\/\/ rye:signed:.*\n/, "").replace('__category__ = "rye/bash"', '__category__ = "tools"');
const filler = Array.from({ length: 6_000 }, (_, i) => `  total += await step${i % 50}(input, "value ${i}"); // line ${i}`).join("\n");
const TOOLS: { label: string; extension: string; content: (v: string) => string }[] = [
  { label: "small YAML tool", extension: ".yaml", content: (v) => `version: "${v}"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: tools\ntier: T1\ndescription: "Fetch a page"\nconfig:\n  url: "{url}"\n` },
  { label: "rye/bash/bash.mjs", extension: ".mjs", content: (v) => bash.replace('__version__ = "1.0.0"', `__version__ = "${v}"`) },
  { label: "256 KiB JavaScript", extension: ".mjs", content: (v) => `${bash.replace('__version__ = "1.0.0"', `__version__ = "${v}"`)}\nexport async function big(input) {\n  let total = 0;\n${filler}\n  return total;\n}\n`.slice(0, 262_144).replace(/\n[^\n]*$/, "\n}\n") },
];

let lastPublish = 0;
console.log(`quality and safety signals per publish (${reg.db.kind}, ${PUBLISHES} publishes each, ${rules.rules.length} gate rules, load ${loadavg()[0]!.toFixed(1)})`);
for (const [n, tool] of TOOLS.entries()) {
  const name = `t${n}`;
  const push: number[] = [];
  for (let i = 0; i < PUBLISHES; i++) {
    const version = `1.0.${i}`;
    const started = performance.now();
    const res = await reg.request("POST", "/v1/push", { token, json: { item_type: "tool", item_id: `bench/tools/${name}`, content: tool.content(version), version, file_extension: tool.extension } });
    push.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`push ${tool.label}: ${res.status} ${await res.text()}`);
  }
  const content = tool.content("1.0.0");
  const body = stripSignature(content, "tool");
  const parsed = parseItem(body, "tool", { path: `${name}${tool.extension}` });
  const compute: number[] = [];
  for (let i = 0; i < PUBLISHES; i++) {
    const started = performance.now();
    versionSignals(parsed, body, { authorVerified: false, authorFingerprint: null, logIndex: 1, attested: true }, safetyOf(parsed, content, rules));
    compute.push(performance.now() - started);
  }
  const { id } = await reg.db.prisma.item.findFirstOrThrow({ where: { name } });
  const store: number[] = [];
  for (let i = 0; i < PUBLISHES; i++) {
    const started = performance.now();
    // Its two statements as the publish runs them, inside its transaction (no BEGIN/COMMIT of their own).
    await refreshItemQuality(reg.db.prisma as unknown as Prisma.TransactionClient, id);
    store.push(performance.now() - started);
  }
  const total = median(push);
  lastPublish = total;
  const signals = median(compute) + median(store);
  console.log(
    `  ${tool.label.padEnd(20)} (${(Buffer.byteLength(content) / 1024).toFixed(1)} KiB): publish ${total.toFixed(2)} ms; signals ${signals.toFixed(2)} ms (compute ${median(compute).toFixed(3)} ms, store ${median(store).toFixed(2)} ms) = ×${(signals / (total - signals)).toFixed(3)} of a publish without them`,
  );
}

// The worst case for line patterns: a 1 MiB one-line file built to make them backtrack (repeated `rm -`, the
// pattern found slowest without windows), scanned in SAFETY_MAX_WINDOW_CHARS windows, against a publish of the
// 256 KiB tool above.
const hostile = `#!/bin/bash\n# @tier T3\n${"rm -".repeat(262_144)}\n`;
const hostileMs: number[] = [];
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  safetyReport({ format: "shell", body: hostile, executorId: null, extras: {}, config: undefined }, rules.rules);
  hostileMs.push(performance.now() - started);
}
console.log(`  hostile 1 MiB one-line file: safety report ${median(hostileMs).toFixed(0)} ms = ×${(median(hostileMs) / lastPublish).toFixed(2)} of the 256 KiB tool's publish`);
await reg.close();
