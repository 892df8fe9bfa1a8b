/**
 * The command line's sign-in through the website, with the real `rye` binary as a child process (an
 * isolated home, no browser opened): `rye login` (device flow) approved and denied on /device, and
 * `rye login --web` (authorization code + PKCE) through the sign-in page and the consent page.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "./fixtures.ts";
import { repoRoot } from "./helpers/server.ts";

const RYE = join(repoRoot, "packages/rye/bin/rye.mjs");

interface Rye {
  child: ChildProcess;
  exited: Promise<number>;
  /** Waits for `re` on stderr (where the CLI talks to the person) and returns its match. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  output(): { stdout: string; stderr: string };
}

const homes: string[] = [];
const children = new Set<ChildProcess>();

async function isolatedHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "rye-e2e-cli-"));
  homes.push(home);
  return home;
}

function rye(args: string[], home: string, registryUrl: string): Rye {
  const child = spawn(process.execPath, [RYE, ...args], {
    cwd: home,
    env: { ...process.env, HOME: home, USER_SPACE: home, RYE_REGISTRY_URL: registryUrl, RYE_NO_BROWSER: "1", RYE_TOKEN: "", RYE_OFFLINE: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => (children.delete(child), resolve(code ?? 1))));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    async waitFor(re, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const m = re.exec(stderr);
        if (m) return m;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`rye ${args.join(" ")}: no ${re} in its output:\n${stderr}\n${stdout}`);
    },
  };
}

test.afterAll(async () => {
  for (const child of children) child.kill("SIGKILL"); // a failed test must not leave a login waiting
  for (const home of homes) await rm(home, { recursive: true, force: true });
});

test("rye login (device flow): the printed link opens /device, approving signs the CLI in; rye whoami works", async ({ page, baseURL, signedIn }) => {
  const home = await isolatedHome();
  const login = rye(["login"], home, baseURL!);
  const [, code] = await login.waitFor(/enter the code ([A-Z]{4}-[A-Z]{4})/);
  const [, link] = await login.waitFor(/open (\S+) directly/);
  expect(link).toBe(`${baseURL}/device?user_code=${code}`);

  await page.goto(link!);
  await expect(page.getByRole("heading", { level: 1, name: "Connect a device" })).toBeVisible();
  const request = page.getByRole("region", { name: /wants to access your account/ });
  await expect(request).toContainText(code!);
  await expect(request).toContainText("rye command-line interface");
  await expect(request).toContainText("items:write");
  await expect(request).toContainText("rye-cli/"); // the program that asked (its user agent)
  await expect(request).toContainText("127.0.0.1"); // and from where
  await page.getByRole("button", { name: /^Approve/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Device connected" })).toBeVisible();
  await expect(page.getByText("Return to your terminal")).toBeVisible();

  expect(await login.exited, login.output().stderr).toBe(0);
  expect(login.output().stdout).toContain(`Signed in to ${baseURL} as ${signedIn.username}.`);
  const whoami = rye(["whoami"], home, baseURL!);
  expect(await whoami.exited, whoami.output().stderr).toBe(0);
  expect(whoami.output().stdout).toContain(`${signedIn.username} @ ${baseURL} (signed in with device)`);
});

test("rye login denied on /device (code typed by hand); wrong and malformed codes are explained", async ({ page, baseURL }) => {
  const home = await isolatedHome();
  const login = rye(["login"], home, baseURL!);
  const [, code] = await login.waitFor(/enter the code ([A-Z]{4}-[A-Z]{4})/);

  // Signed out: /device asks to sign in first, then comes back.
  const context = page.context();
  await context.clearCookies();
  await page.goto("/device");
  await expect(page).toHaveURL(/\/login\?next=%2Fdevice$/);
  await expect(page.getByText("Sign in to connect a device")).toBeVisible();
  await page.getByRole("link", { name: "Create an account" }).click();
  await expect(page).toHaveURL(/\/signup\?next=%2Fdevice$/);
  await expect(page.getByText("Create an account to connect a device")).toBeVisible();
  const username = `dev-${Date.now().toString(36)}`;
  await page.getByLabel("Username", { exact: true }).fill(username);
  await page.getByLabel("Email").fill(`${username}@example.test`);
  await page.getByLabel("Password", { exact: true }).fill(`${username}-long-password`);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/device$/);

  await page.getByLabel("Code").fill("hello");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "That is not a device code" })).toContainText("8 letters");
  await page.getByLabel("Code").fill("BCDF-GHJK");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "No pending sign-in has the code BCDF-GHJK" })).toContainText("expire");

  // Lower case and without the dash: the same code.
  await page.getByLabel("Code").fill(code!.replace("-", "").toLowerCase());
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("region", { name: /wants to access your account/ })).toContainText(code!);
  await page.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Request denied" })).toBeVisible();

  expect(await login.exited).toBe(1);
  expect(login.output().stderr).toMatch(/denied/i);
  const whoami = rye(["whoami"], home, baseURL!);
  expect(await whoami.exited).toBe(1);

  // The code is used up: opening its link again says so.
  await page.goto(`/device?user_code=${code}`);
  await expect(page.getByRole("alert").filter({ hasText: `No pending sign-in has the code ${code}` })).toBeVisible();
});

test("rye login --web: the authorize endpoint sends the browser through /login and back to the consent page", async ({ page, api, baseURL }) => {
  const account = await api.signUp();
  const home = await isolatedHome();
  const login = rye(["login", "--web"], home, baseURL!);
  const [, url] = await login.waitFor(/(http:\/\/\S+\/oauth\/authorize\?\S+)/);

  await page.goto(url!);
  await expect(page).toHaveURL(/\/login\?next=%2Foauth%2Fauthorize%3F/);
  await expect(page.getByText("Sign in to authorize the rye command line")).toBeVisible();
  await page.getByLabel("Username or email").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The API's consent page, on the same origin, with the session the sign-in page started.
  await expect(page).toHaveURL(/\/oauth\/authorize\?/);
  await expect(page.getByRole("heading", { name: /Authorize rye command-line interface/ })).toBeVisible();
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(/Signed in to rye/)).toBeVisible();

  expect(await login.exited, login.output().stderr).toBe(0);
  expect(login.output().stdout).toContain(`as ${account.username}.`);
  const whoami = rye(["whoami"], home, baseURL!);
  expect(await whoami.exited).toBe(0);
  expect(whoami.output().stdout).toContain(`${account.username} @ ${baseURL} (signed in with web)`);

  // The sign-in is listed on the tokens page, and revoking it there signs the CLI out of the registry.
  await page.goto("/settings/tokens");
  const signedIn = page.getByRole("list", { name: "Signed-in applications" }).getByRole("listitem").filter({ hasText: "rye command-line interface" });
  await expect(signedIn).toHaveCount(1);
  await signedIn.getByRole("button", { name: "Revoke the sign-in of rye command-line interface" }).click();
  await signedIn.getByRole("group").getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByText("No application is signed in as you.")).toBeVisible();
});
