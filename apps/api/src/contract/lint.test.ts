/**
 * Redocly CLI's recommended rules on the served GET /v1/openapi.json: no error and no warning. The document is
 * generated from the route declarations, so this holds each new route to the same bar (a 4xx answer, a described tag,
 * every shared component used, …).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createTestRegistry, type TestRegistry } from "../../test/harness.ts";

const redocly = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js");

let reg: TestRegistry;
let dir: string;
before(async () => {
  // A deployment's own address: the recommended rules refuse example.com and localhost servers.
  reg = await createTestRegistry({ config: { publicUrl: "https://registry.acme.internal" } });
  dir = await mkdtemp(join(tmpdir(), "rye-openapi-lint-"));
});
after(async () => {
  await reg.close();
  await rm(dir, { recursive: true, force: true });
});

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

test("Redocly CLI lint (recommended rules) finds no error and no warning in /v1/openapi.json", async () => {
  const res = await reg.request("GET", "/v1/openapi.json");
  assert.equal(res.status, 200);
  const file = join(dir, "openapi.json");
  await writeFile(file, await res.text());
  const run = await promisify(execFile)(process.execPath, [redocly, "lint", file, "--format=json"], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    maxBuffer: 32 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? "", stderr: err.stderr ?? "" }));
  const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
  const listed = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`);
  assert.deepEqual(listed, [], run.stderr);
  assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
});
