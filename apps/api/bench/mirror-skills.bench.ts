/**
 * Agent Skills through a mirroring registry (docs/mirroring.md): two API processes from the sources (tsx), each on
 * its own PGlite — a public registry and an organization's mirror of it (RYE_UPSTREAM_URL). The same three-file
 * skill is published on the public registry (alice/hot) and on the mirror itself (acme/local); once the mirror holds
 * alice/hot, autocannon measures in the same run, for each of the mirror's answers, its own skill (baseline) and the
 * cached upstream skill: the per-skill discovery index (latest and pinned), SKILL.md, the .tar.gz and the pinned
 * GET /v1/skills with files. Prints upstream ÷ local latency (the target: ≤ 1.2×).
 * BENCH_SECONDS (default 5), BENCH_CONNECTIONS (20).
 * Run: node --import tsx apps/api/bench/mirror-skills.bench.ts
 */
import { createHash } from "node:crypto";
import { loadavg } from "node:os";
import { buildSkillManifest, signSkillManifest, type SkillFile } from "@rye/core";
import { signUpPublisher } from "../test/bundle-publisher.ts";
import { startApiProcess } from "./api-process.ts";
import { type Figures, formatFigures, loadFigures } from "./load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const enc = (s: string) => new TextEncoder().encode(s);

/** Signs up `username`, registers a signing key and returns a function that pushes skill `<username>/<name>@1.0.0`. */
async function publisher(url: string, username: string): Promise<(name: string) => Promise<void>> {
  const { token, key } = await signUpPublisher(url, username);
  return async (name) => {
    const files: SkillFile[] = [
      { path: "SKILL.md", bytes: enc(`---\nname: ${name}\ndescription: Benchmarks ${name}. Use when measuring.\nmetadata:\n  version: "1.0.0"\n---\n\n# ${name}\n\n${"Steps to follow.\n".repeat(200)}`) },
      { path: "scripts/run.sh", bytes: enc(`#!/bin/sh\n${"echo step\n".repeat(300)}`), executable: true },
      { path: "references/guide.md", bytes: enc(`# Guide\n\n${"Details of the guide.\n".repeat(400)}`) },
    ];
    const manifest = await signSkillManifest(buildSkillManifest(files), key);
    const body = { namespace: username, manifest, files: Object.fromEntries(files.map((f) => [f.path, { content_base64: Buffer.from(f.bytes).toString("base64"), sha256: createHash("sha256").update(f.bytes).digest("hex") }])) };
    const res = await fetch(`${url}/v1/skills/push`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`push: ${res.status} ${await res.text()}`);
  };
}

async function ok(url: string): Promise<void> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

console.log(`mirror skills bench: load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
const upstream = await startApiProcess({}, { dataDirPrefix: "rye-bench-mirror-skills-" });
const mirror = await startApiProcess({ RYE_UPSTREAM_URL: upstream.url }, { dataDirPrefix: "rye-bench-mirror-skills-" });
try {
  await (await publisher(upstream.url, "alice"))("hot");
  await (await publisher(mirror.url, "acme"))("local");
  const answers: [string, (ns: string, name: string) => string][] = [
    ["skill index (latest)", (ns, name) => `/${ns}/${name}/.well-known/agent-skills/index.json`],
    ["skill index (pinned)", (ns, name) => `/${ns}/${name}@1.0.0/.well-known/agent-skills/index.json`],
    ["SKILL.md", (ns, name) => `/${ns}/.well-known/agent-skills/${name}/1.0.0/SKILL.md`],
    [".tar.gz", (ns, name) => `/${ns}/.well-known/agent-skills/${name}/1.0.0/${name}-1.0.0.tar.gz`],
    ["GET /v1/skills pinned, files", (ns, name) => `/v1/skills/${ns}/${name}?version=1.0.0&files=1`],
  ];
  // The first request of each caches alice/hot on the mirror (fetch + verify + countersign + store).
  for (const [, path] of answers) await ok(`${mirror.url}${path("alice", "hot")}`);
  console.log(`\nc=${CONNECTIONS}, ${SECONDS} s each, load average ${loadavg()[0]!.toFixed(2)}`);
  let worst = 0;
  for (const [what, path] of answers) {
    const local: Figures = await loadFigures(`${mirror.url}${path("acme", "local")}`, { connections: CONNECTIONS, seconds: SECONDS });
    const mirrored: Figures = await loadFigures(`${mirror.url}${path("alice", "hot")}`, { connections: CONNECTIONS, seconds: SECONDS });
    const ratio = local.rps / mirrored.rps;
    worst = Math.max(worst, ratio);
    console.log(`  ${what.padEnd(30)} local ${formatFigures(local)}`);
    console.log(`  ${"".padEnd(30)} upstream, cached ${formatFigures(mirrored)}   ${ratio.toFixed(2)}× the local skill's time`);
  }
  console.log(`\nworst: a cached upstream skill takes ${worst.toFixed(2)}× the time of a local one (target ≤ 1.2×)`);
} finally {
  await mirror.stop();
  await upstream.stop();
}
