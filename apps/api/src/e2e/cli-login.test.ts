/**
 * End to end: the real registry on a loopback port, the real `rye` binary as a child process.
 * `rye login` (device flow) approved by a signed-in user over HTTP, then `rye whoami` and an
 * authenticated push; `--web` (PKCE + loopback redirect), `--token-stdin`, cancel and logout.
 */
import "@rye/core/node";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { openTestDatabase } from "@rye/db/testing";
import { skipWithoutProgram } from "../../../../scripts/test-requirements.ts";
import { createApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import type { AppEnv } from "../env.ts";
import { silentLogger } from "../logger.ts";
import { openRegistry } from "../registry.ts";

const RYE = fileURLToPath(new URL("../../../../packages/rye/bin/rye.mjs", import.meta.url));

let registryUrl: string;
let close: () => Promise<void>;
const children = new Set<import("node:child_process").ChildProcess>();

before(async () => {
  let app: Hono<AppEnv> | undefined;
  const server = serve({ fetch: (req, env) => app!.fetch(req, env), port: 0, hostname: "127.0.0.1" });
  await once(server, "listening");
  registryUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = await openTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "rye-e2e-login-"));
  const config = loadConfig({ RYE_DATA_DIR: dataDir, RYE_REGISTRY_URL: registryUrl, RYE_LOG_LEVEL: "silent" });
  app = createApp(await openRegistry(config, silentLogger, { env: { RYE_REGISTRY_KEY_DIR: join(dataDir, "keys") }, db }));
  close = async () => {
    server.close();
    await db.close();
  };
});
after(async () => {
  for (const child of children) child.kill("SIGKILL"); // a failed test must not leave a login waiting
  await close();
});

interface Browser {
  cookie: string;
  csrf: string;
}

async function signUp(username: string): Promise<Browser> {
  const res = await fetch(`${registryUrl}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: "correct horse battery staple" }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
}

function startRye(args: string[], home: string, input?: string) {
  const child = spawn(process.execPath, [RYE, ...args, "--registry", registryUrl], {
    env: { ...process.env, USER_SPACE: home, RYE_NO_BROWSER: "1", RYE_TOKEN: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.add(child);
  child.on("exit", () => children.delete(child));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  const exited = new Promise<number>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1))));
  const waitFor = async (re: RegExp, ms = 20_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const m = re.exec(stderr);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${re} in:\n${stderr}`);
  };
  return { child, exited, waitFor, out: () => ({ stdout, stderr }) };
}

async function rye(args: string[], home: string, input?: string) {
  const run = startRye(args, home, input);
  const code = await run.exited;
  return { code, ...run.out() };
}

test("device login approved in the browser session, then whoami, an authenticated push and logout", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-home-"));
  const browser = await signUp("alice");
  const login = startRye(["login"], home);
  const [, userCode] = await login.waitFor(/enter the code ([A-Z]{4}-[A-Z]{4})/);
  // The complete URL is printed on the next line, which may arrive in a later chunk.
  await login.waitFor(new RegExp(`${registryUrl}/device\\?user_code=${userCode}`));
  assert.doesNotMatch(login.out().stderr, /[▀▄█]/, "no QR code when stdout is not a terminal");

  const info = await fetch(`${registryUrl}/v1/device?user_code=${userCode}`, { headers: { cookie: browser.cookie } });
  const details = (await info.json()) as { client_id: string; request_ip: string; requested_at: string };
  assert.equal(details.client_id, "rye-cli");
  assert.ok(details.request_ip, "the approval page can show where the request came from");
  const approve = await fetch(`${registryUrl}/v1/device/approve`, {
    method: "POST",
    headers: { cookie: browser.cookie, "content-type": "application/json", "x-csrf-token": browser.csrf },
    body: JSON.stringify({ user_code: userCode }),
  });
  assert.equal(approve.status, 200, await approve.clone().text());
  assert.equal(await login.exited, 0, login.out().stderr);
  assert.match(login.out().stdout, /Signed in to .* as alice/);
  // No keychain on this machine (no D-Bus session, no Secret Service): the 0600 file, and it says so.
  assert.match(login.out().stderr, /Stored the tokens in .*credentials\.json \(mode 0600; no OS keychain is in use\)/);

  const credentialsPath = join(home, ".ai/auth/credentials.json");
  const { mode } = await import("node:fs/promises").then((fs) => fs.stat(credentialsPath));
  assert.equal(mode & 0o777, 0o600);
  const whoami = await rye(["whoami", "--json"], home);
  assert.equal(whoami.code, 0, whoami.stderr);
  assert.equal(JSON.parse(whoami.stdout).username, "alice");

  const stored = JSON.parse(await readFile(credentialsPath, "utf8")).registries[registryUrl];
  const push = await fetch(`${registryUrl}/v1/push`, {
    method: "POST",
    headers: { authorization: `Bearer ${stored.access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ item_type: "knowledge", item_id: "alice/notes/hello", version: "1.0.0", content: "---\nid: hello\ntitle: Hello\nversion: 1.0.0\nentry_type: reference\ncategory: notes\n---\n\nHi.\n" }),
  });
  assert.equal(push.status, 201, await push.clone().text());

  const logout = await rye(["logout"], home);
  assert.equal(logout.code, 0);
  const after = await rye(["whoami"], home);
  assert.equal(after.code, 1);
  assert.match(after.stderr, /error\[UNAUTHORIZED\][\s\S]*rye login/);
  // The refresh token was revoked at the server.
  const refresh = await fetch(`${registryUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: stored.refresh_token, client_id: "rye-cli" }),
  });
  assert.equal(((await refresh.json()) as { error: string }).error, "invalid_grant");
  // And the access token, though not expired, is refused from now on.
  const revoked = await fetch(`${registryUrl}/v1/me`, { headers: { authorization: `Bearer ${stored.access_token}` } });
  assert.equal(revoked.status, 401);
  assert.equal(((await revoked.json()) as { error: { code: string } }).error.code, "TOKEN_REVOKED");
});

/** `rye login` with stdout on a pseudo-terminal (util-linux `script`), denied at once so it ends. */
async function loginOnTerminal(extra: string[], username: string): Promise<{ output: string; link: string }> {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-home-"));
  const browser = await signUp(username);
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, RYE, "login", "--registry", registryUrl, ...extra].map(quote).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], { env: { ...process.env, USER_SPACE: home, RYE_NO_BROWSER: "1", RYE_TOKEN: "", RYE_CREDENTIAL_STORE: "file" }, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  const exited = once(child, "exit");
  for (let i = 0; i < 200 && !/enter the code [A-Z]{4}-[A-Z]{4}/.test(output); i++) await new Promise((r) => setTimeout(r, 50));
  const userCode = /enter the code ([A-Z]{4}-[A-Z]{4})/.exec(output)?.[1];
  assert.ok(userCode, output);
  await fetch(`${registryUrl}/v1/device/deny`, { method: "POST", headers: { cookie: browser.cookie, "content-type": "application/json", "x-csrf-token": browser.csrf }, body: JSON.stringify({ user_code: userCode }) });
  await exited;
  children.delete(child);
  return { output: output.replace(/\r/g, ""), link: `${registryUrl}/device?user_code=${userCode}` };
}

test("on a terminal, rye login prints a QR code of verification_uri_complete; --no-qr leaves it out", { skip: skipWithoutProgram("script") }, async () => {
  const { loginQr } = await import("../../../../packages/rye/src/registry/qr.ts");
  const shown = await loginOnTerminal([], "quinn");
  assert.ok(shown.output.includes(loginQr(shown.link)), `the QR code of ${shown.link} is printed:\n${shown.output}`);
  const hidden = await loginOnTerminal(["--no-qr"], "quincy");
  assert.match(hidden.output, /enter the code/);
  assert.doesNotMatch(hidden.output, /[▀▄]/);
});

test("denied and cancelled device logins fail cleanly", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-home-"));
  const browser = await signUp("bob");
  const denied = startRye(["login"], home);
  const [, userCode] = await denied.waitFor(/enter the code ([A-Z]{4}-[A-Z]{4})/);
  await fetch(`${registryUrl}/v1/device/deny`, {
    method: "POST",
    headers: { cookie: browser.cookie, "content-type": "application/json", "x-csrf-token": browser.csrf },
    body: JSON.stringify({ user_code: userCode }),
  });
  assert.equal(await denied.exited, 1);
  assert.match(denied.out().stderr, /denied/);

  const cancelled = startRye(["login"], home);
  await cancelled.waitFor(/Waiting for approval/);
  cancelled.child.kill("SIGINT");
  assert.equal(await cancelled.exited, 130);
  assert.match(cancelled.out().stderr, /Login cancelled/);
});

test("browser login: authorization code with PKCE through a loopback redirect", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-home-"));
  const browser = await signUp("carol");
  const login = startRye(["login", "--web"], home);
  const [authorizeUrl] = await login.waitFor(/http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+/);
  const url = new URL(authorizeUrl!);
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.match(url.searchParams.get("redirect_uri")!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const consent = await fetch(authorizeUrl!, { headers: { cookie: browser.cookie }, redirect: "manual" });
  assert.equal(consent.status, 200);
  const html = await consent.text();
  const form = /<form[^>]*action="([^"]+)"[\s\S]*?<\/form>/.exec(html);
  assert.ok(form, html);
  const fields = Object.fromEntries([...form[0].matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&").replace(/&quot;/g, '"')]));
  const decision = await fetch(new URL(form[1]!.replace(/&amp;/g, "&"), registryUrl), {
    method: "POST",
    headers: { cookie: browser.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, decision: "approve" }),
    redirect: "manual",
  });
  assert.equal(decision.status, 302, await decision.clone().text());
  const callback = new URL(decision.headers.get("location")!);
  assert.equal(callback.searchParams.get("iss"), registryUrl, "RFC 9207 iss in the response");
  await fetch(callback);
  assert.equal(await login.exited, 0, login.out().stderr);
  assert.match(login.out().stdout, /as carol/);
});

test("--token-stdin stores a personal token; RYE_TOKEN overrides the store", async () => {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-home-"));
  const browser = await signUp("dave");
  const created = await fetch(`${registryUrl}/v1/tokens`, {
    method: "POST",
    headers: { cookie: browser.cookie, "content-type": "application/json", "x-csrf-token": browser.csrf },
    body: JSON.stringify({ name: "ci", scopes: ["items:read"] }),
  });
  const { token } = (await created.json()) as { token: string };
  const login = await rye(["login", "--token-stdin"], home, `${token}\n`);
  assert.equal(login.code, 0, login.stderr);
  assert.equal(JSON.parse((await rye(["whoami", "--json"], home)).stdout).source, "token");
  const bad = await rye(["login", "--token-stdin"], home, "rye_pat_not-a-real-token\n");
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /UNAUTHORIZED/);
  const unreachable = await runUnreachable(home);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /error\[UNAVAILABLE\]: Cannot reach the registry/);
});

async function runUnreachable(home: string) {
  const child = spawn(process.execPath, [RYE, "whoami", "--registry", "http://127.0.0.1:9"], { env: { ...process.env, USER_SPACE: home, RYE_TOKEN: "x" } });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = (await once(child, "exit")) as [number];
  return { code, stderr };
}
