/**
 * A real npm registry server for tests and benchmarks: Verdaccio (a dev dependency of the repository) on a
 * loopback port, with its storage, users and config in a throwaway directory. Without `uplink` it serves only
 * what is published to it (nothing can come from anywhere else); with one it proxies the other packages.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const exec = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

export interface Verdaccio {
  /** Base URL without a trailing slash. */
  url: string;
  /** `npm publish <tarball>` as an authenticated user of this registry. */
  publish(tarball: string, tag?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts Verdaccio with its files in `dir`. `local` lists package names (or globs such as `@rye/*`) that are
 * never proxied; everything else goes to `uplink` when one is given.
 */
export async function startVerdaccio(dir: string, options: { uplink?: string; local?: string[] } = {}): Promise<Verdaccio> {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const config = join(dir, "config.yaml");
  const packages = [
    ...(options.local ?? []).map((name) => `  ${JSON.stringify(name)}: { access: $all, publish: $authenticated }`),
    `  '**': { access: $all, publish: $authenticated${options.uplink ? ", proxy: upstream" : ""} }`,
  ];
  await writeFile(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      `auth: { htpasswd: { file: ${JSON.stringify(join(dir, "htpasswd"))}, max_users: 10 } }`,
      options.uplink ? `uplinks: { upstream: { url: ${JSON.stringify(options.uplink)}, timeout: 60s } }` : "uplinks: {}",
      "packages:",
      ...packages,
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const bin = join(dirname(fileURLToPath(import.meta.resolve("verdaccio/package.json"))), "bin", "verdaccio");
  const child = spawn(process.execPath, [bin, "--config", config, "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, "exit");
    }
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${log}`);
    if (await fetch(`${url}/-/ping`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`verdaccio did not start within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  let userconfig: string | undefined;
  async function publisherConfig(): Promise<string> {
    if (userconfig) return userconfig;
    const res = await fetch(`${url}/-/user/org.couchdb.user:publisher`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "publisher", password: "publisher-password-1" }),
    });
    if (res.status !== 201) throw new Error(`verdaccio refused the publisher account: ${res.status} ${await res.text()}`);
    const { token } = (await res.json()) as { token: string };
    userconfig = join(dir, "publisher.npmrc");
    await writeFile(userconfig, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return userconfig;
  }

  return {
    url,
    async publish(tarball, tag) {
      await exec(NPM, ["publish", tarball, "--userconfig", await publisherConfig(), "--registry", `${url}/`, ...(tag ? ["--tag", tag] : [])], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOME: dir, npm_config_cache: join(dir, "publisher-cache") },
        shell: process.platform === "win32",
      });
    },
    stop,
  };
}
