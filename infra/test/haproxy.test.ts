/**
 * infra/haproxy.cfg run for real (Debian's haproxy 2.6): its frontend, verbatim, in front of two stand-in API
 * replicas and a stand-in website on loopback. The Docker-only parts are swapped for loopback ones: the `resolvers`
 * section goes, each `server-template` becomes fixed servers, and health checks run every 100 ms instead of 5 s.
 * Proves: haproxy sends exactly the paths the one-origin server treats as the API's (apps/web/server/routing.ts) to
 * the API replicas, round-robin, with X-Forwarded-For; a replica whose GET /ready fails leaves the rotation and
 * comes back when it passes.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isApiPath } from "../../apps/web/server/routing.ts";
import { freePort } from "../../apps/api/test/free-port.ts";
import { programPath, skipWithoutProgram } from "../../scripts/test-requirements.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const skip = skipWithoutProgram("haproxy");

interface Upstream {
  name: string;
  ready: boolean;
  seen: { path: string; forwardedFor: string | undefined }[];
  server: Server;
  port: number;
}

async function upstream(name: string): Promise<Upstream> {
  const u = { name, ready: true, seen: [] } as unknown as Upstream;
  u.server = createServer((req, res) => {
    const path = req.url ?? "/";
    // haproxy's own health checks carry no X-Forwarded-For (option forwardfor adds it to proxied requests only).
    const check = req.headers["x-forwarded-for"] === undefined;
    if (check) {
      res.writeHead(path === "/ready" && !u.ready ? 503 : 200).end();
      return;
    }
    u.seen.push({ path, forwardedFor: req.headers["x-forwarded-for"] as string | undefined });
    res.writeHead(200, { "content-type": "text/plain" }).end(name);
  });
  await new Promise<void>((r) => u.server.listen(0, "127.0.0.1", r));
  u.port = (u.server.address() as AddressInfo).port;
  return u;
}

/** The shipped config with Docker's DNS replaced by loopback servers and a fast check interval. */
function loopbackConfig(shipped: string, frontendPort: number, api: number[], web: number[]): string {
  const resolvers = /^resolvers docker\n(?:[ \t]+.*\n)+/m;
  assert.match(shipped, resolvers, "the shipped config resolves replicas through Docker's DNS");
  let config = shipped.replace(resolvers, "");
  config = config.replace(/^(\s+bind ):8080$/m, `$1127.0.0.1:${frontendPort}`);
  config = config.replaceAll(/ check resolvers docker init-addr none/g, " check").replaceAll("inter 5s", "inter 100ms").replaceAll("fall 2 rise 2", "fall 1 rise 1");
  config = config.replace(/^\s+server-template api 2 api:3000$/m, api.map((p, i) => `    server api${i} 127.0.0.1:${p}`).join("\n"));
  config = config.replace(/^\s+server-template web 1 web:3000$/m, web.map((p, i) => `    server web${i} 127.0.0.1:${p}`).join("\n"));
  config = config.replace(/^\s+log stdout.*$/m, "");
  // With checks every 100 ms, a check's own timeout would be 100 ms too (haproxy uses `inter` when `timeout check` is
  // unset): on a loaded machine a slow answer then took a healthy replica out (503 "no server is available").
  config = config.replace(/^(\s+)timeout connect 5s$/m, "$1timeout connect 5s\n$1timeout check 5s");
  assert.doesNotMatch(config, /server-template|resolvers|:8080/, "every Docker-only line was replaced");
  assert.match(config, /timeout check 5s/);
  return config;
}

describe("infra/haproxy.cfg in front of loopback replicas", { skip }, () => {
  let dir: string;
  let haproxy: ChildProcess;
  let url: string;
  let apiA: Upstream;
  let apiB: Upstream;
  let web: Upstream;

  before(async () => {
    [apiA, apiB, web] = await Promise.all([upstream("api-a"), upstream("api-b"), upstream("web")]);
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), "rye-haproxy-"));
    const cfg = join(dir, "haproxy.cfg");
    writeFileSync(cfg, loopbackConfig(readFileSync(join(root, "infra/haproxy.cfg"), "utf8"), port, [apiA.port, apiB.port], [web.port]));
    haproxy = spawn(programPath("haproxy")!, ["-db", "-f", cfg], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let spawnError: Error | undefined;
    haproxy.on("error", (error) => (spawnError = error));
    haproxy.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    url = `http://127.0.0.1:${port}`;
    while (!(await fetch(`${url}/login`).then((r) => r.ok, () => false))) {
      assert.equal(spawnError, undefined, "haproxy could not be started");
      assert.equal(haproxy.exitCode, null, `haproxy exited: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Both API replicas in the rotation (their first checks passed) before any test counts where requests go.
    const answers = new Set<string>();
    for (let i = 0; answers.size < 2; i++) {
      assert.ok(i < 400, `both API replicas did not come up behind haproxy: ${[...answers].join(", ")} ${stderr}`);
      const answer = await fetch(`${url}/v1/search`).then((r) => r.text(), () => "");
      if (answer.startsWith("api-")) answers.add(answer);
      else await new Promise((r) => setTimeout(r, 50));
    }
    apiA.seen.length = 0;
    apiB.seen.length = 0;
  });

  after(async () => {
    haproxy?.kill("SIGTERM");
    await Promise.all([apiA, apiB, web].map((u) => new Promise((r) => u?.server.close(r))));
    rmSync(dir, { recursive: true, force: true });
  });

  const target = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return res.text();
  };

  test("haproxy routes exactly the one-origin server's API paths to the API", async () => {
    const paths = [
      "/health",
      "/v1",
      "/v1/search?q=x",
      "/v1/pull/directive/alice/a/b?version=1.0.0",
      "/oauth/token",
      "/.well-known/jwks.json",
      "/alice/.well-known/agent-skills/index.json",
      "/alice/review/.well-known/agent-skills/review/SKILL.md",
      "/",
      "/login",
      "/search?q=x",
      "/v1x",
      "/alice",
      "/alice/review",
      "/_next/static/chunk.js",
      "/alice/a/b/.well-known/agent-skills/x",
    ];
    for (const path of paths) {
      const answeredBy = await target(path);
      assert.equal(answeredBy.startsWith("api"), isApiPath(path), `${path}: haproxy sent it to ${answeredBy}, routing.ts says ${isApiPath(path) ? "API" : "website"}`);
    }
  });

  test("API requests alternate between the replicas and carry X-Forwarded-For", async () => {
    apiA.seen.length = 0;
    apiB.seen.length = 0;
    for (let i = 0; i < 10; i++) await target("/v1/search");
    assert.equal(apiA.seen.length, 5);
    assert.equal(apiB.seen.length, 5);
    assert.equal(apiA.seen[0]!.forwardedFor, "127.0.0.1");
  });

  test("a replica whose /ready fails leaves the rotation, and comes back when it passes", async () => {
    apiB.ready = false;
    // Wait for haproxy's checks (every 100 ms here) to see it: then every request lands on the other replica.
    const settled = async (predicate: () => Promise<boolean>) => {
      while (!(await predicate())) await new Promise((r) => setTimeout(r, 100));
    };
    await settled(async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => target("/v1/search")));
      return answers.every((a) => a === "api-a");
    });
    apiB.ready = true;
    await settled(async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => target("/v1/search")));
      return answers.includes("api-b");
    });
  });
});
