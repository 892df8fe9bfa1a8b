/**
 * Item pages (/directive|tool|knowledge/{id}) and namespace pages (/{namespace}) for a real visitor:
 * rendered content that never executes item HTML, highlighted source, metadata, executor chain links,
 * versions with yanked markers, version diffs, provenance, the in-browser signature verification
 * (WebCrypto and the noble fallback, and a tampered answer caught), no layout shift while it runs,
 * 404s that look the same for missing and private items, and user / organization pages.
 */
import type { Page } from "@playwright/test";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";
import { expect, itemSource, type Published, type Session, test, uniqueItemName, uniqueName } from "./fixtures.ts";
import { RyeApi } from "./helpers/api.ts";

interface Data {
  author: Session;
  token: string;
  org: string;
  guide: Published;
  hostile: Published;
  tool: Published;
  secret: Published;
  versioned: { v1: Published; v2: Published };
}

let data: Data;

const HOSTILE = [
  "# Hostile content",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  '<img src="x" onerror="window.__pwned = \'img\'">',
  "",
  "[click me](javascript:window.__pwned='link')",
  "",
  '<a href="javascript:window.__pwned=\'html-link\'">html link</a>',
  "",
  "![tracking pixel](https://tracker.invalid/pixel.png)",
  "",
  "Plain text survives.",
].join("\n");

test.beforeAll(async ({ server }) => {
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const ns = author.username;
  const key = await api.registerKey(token);
  const knowledge = (id: string, body: string, version = "1.0.0") =>
    api.publish(token, { type: "knowledge", id, key, version, content: itemSource.knowledge(id, { version, body, title: `Title of ${id.split("/").pop()}` }) });

  const guide = await knowledge(`${ns}/guides/${uniqueItemName("guide")}`, "## Setup\n\nKeep it **simple**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
  const hostile = await knowledge(`${ns}/guides/${uniqueItemName("hostile")}`, HOSTILE);
  const toolId = `${ns}/web/${uniqueItemName("fetcher")}`;
  const tool = await api.publish(token, {
    type: "tool",
    id: toolId,
    key,
    fileExtension: ".yaml",
    content: `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch a page"\nconfig_schema:\n  type: object\n  properties:\n    url:\n      type: string\n      description: The address to fetch\n  required: [url]\nconfig:\n  url: "{url}"\n`,
  });
  const secretId = `${ns}/private/${uniqueItemName("secret")}`;
  const secret = await api.publish(token, { type: "knowledge", id: secretId, key, visibility: "private", content: itemSource.knowledge(secretId, { title: "Secret" }) });
  const versionedId = `${ns}/guides/${uniqueItemName("changing")}`;
  const v1 = await knowledge(versionedId, "first line\nsecond line\nthird line\n", "1.0.0");
  const v2 = await knowledge(versionedId, "first line\nsecond line, edited\nthird line\nfourth line\n", "1.1.0");
  await api.call("POST", `/v1/yank/knowledge/${versionedId}`, { token, json: { version: "1.0.0", reason: "typo in step two" }, expect: 200 });
  const org = await api.createOrg(author, uniqueName("org"), "Item Spec Org");
  data = { author, token, org, guide, hostile, tool, secret, versioned: { v1, v2 } };
});

async function verified(page: Page): Promise<void> {
  const panel = page.getByRole("region", { name: "Signature verification" });
  await expect(panel.getByRole("status")).toHaveText(/Verified in your browser/, { timeout: 20_000 });
}

test("a knowledge item: rendered markdown, metadata, install commands, provenance, verified in the browser", async ({ page }) => {
  const res = await page.goto(data.guide.path);
  expect(res?.status()).toBe(200);
  const name = data.guide.id.split("/").pop()!;
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page).toHaveTitle(`${data.guide.id} (knowledge) · rye registry`);
  const main = page.getByRole("main");
  // Markdown rendered (headings one level down: the page title is the only h1), tables included.
  await expect(main.getByRole("heading", { level: 3, name: "Setup" })).toBeVisible();
  await expect(main.getByRole("table").filter({ hasText: "a" }).first()).toBeVisible();
  await expect(main.locator("strong", { hasText: "simple" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
  // Metadata and commands.
  await expect(main.getByText(`Title of ${name}`).first()).toBeVisible();
  await expect(main.getByText(`npx ryeos pull ${data.guide.id} --type knowledge`)).toBeVisible();
  await expect(main.getByRole("button", { name: "Copy: Pull with the rye CLI" })).toBeVisible();
  await expect(main.getByText(JSON.stringify({ item_type: "knowledge", item_id: data.guide.id }))).toBeVisible();
  // Provenance: the author key that signed, the registry key, and a working transparency-log link.
  const provenance = page.getByRole("region", { name: "Provenance" });
  await expect(provenance.getByText(data.guide.key.publicKey.fingerprint)).toBeVisible();
  await expect(provenance.getByText("Author signature checked by the registry at publish")).toBeVisible();
  const logLink = provenance.getByRole("link", { name: /entry #\d+/ });
  const href = await logLink.getAttribute("href");
  expect(href).toMatch(/^\/v1\/log\/entries\?from=\d+&limit=1$/);
  const entry = await page.request.get(href!);
  expect(entry.ok()).toBe(true);
  expect(((await entry.json()) as { entries: unknown[] }).entries).toHaveLength(1);
  // The browser's verification: every check passes, shown as text (not colour only).
  await verified(page);
  const checks = page.getByRole("list", { name: "Verification checks" }).getByRole("listitem");
  await expect(checks).toHaveCount(6);
  for (let i = 0; i < 6; i++) await expect(checks.nth(i)).toContainText("Passed");
  await expect(page.getByText("Ed25519 by your browser's WebCrypto")).toBeVisible();
});

test("item content is never executed or rendered as HTML", async ({ page }) => {
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const thirdParty: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("tracker.invalid")) thirdParty.push(r.url());
  });
  await page.goto(data.hostile.path);
  await verified(page);
  const content = page.locator(".prose-rye");
  await expect(content.getByText("Plain text survives.")).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  await expect(content.locator("script, img, iframe, [onerror], [onclick]")).toHaveCount(0);
  await expect(content.locator('a[href^="javascript"]')).toHaveCount(0);
  await expect(content.getByRole("link", { name: "click me" })).toHaveCount(0);
  await expect(content.getByText("click me")).toBeVisible();
  // Images are links, never loaded: no request to a third party from a page view.
  await expect(content.getByRole("link", { name: "[Image: tracking pixel]" })).toBeVisible();
  expect(thirdParty).toEqual([]);
  expect(dialogs).toEqual([]);
  // The raw file view shows the hostile markup as text.
  await page.getByRole("navigation", { name: "Item views" }).getByRole("link", { name: "Source" }).click();
  await expect(page).toHaveURL(/tab=source/);
  await expect(page.getByRole("region", { name: /^Source of/ }).or(page.locator("pre.shiki")).first()).toContainText("<script>window.__pwned");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
});

test("a tool: highlighted source, parameters, and an executor chain that links to the executor's page", async ({ page }) => {
  await page.goto(data.tool.path);
  await expect(page).toHaveTitle(`${data.tool.id} (tool) · rye registry`);
  const source = page.locator(".shiki-wrap pre.shiki");
  await expect(source).toContainText("executor_id: rye/core/primitives/http_client");
  // Highlighted on the server: coloured token spans with a dark-theme variable.
  expect(await source.locator("span[style*='--shiki-dark']").count()).toBeGreaterThan(5);
  const params = page.getByRole("table", { name: "Parameters (CONFIG_SCHEMA)" });
  await expect(params.getByRole("row", { name: /url string Required The address to fetch/ })).toBeVisible();
  const chain = page.getByRole("region", { name: "Executor chain" });
  const executor = chain.getByRole("link", { name: "rye/core/primitives/http_client" });
  await expect(executor).toHaveAttribute("href", "/tool/rye/rye/core/primitives/http_client");
  await verified(page);
  await executor.click();
  await expect(page.getByRole("heading", { level: 1, name: "http_client" })).toBeVisible();
  await expect(page.getByText("is a primitive: it runs directly.")).toBeVisible();
});

test("versions: latest shown, yanked marker with reason, older version banner, diff between versions", async ({ page }) => {
  const { v1, v2 } = data.versioned;
  await page.goto(v2.path);
  const versions = page.getByRole("table", { name: /^Versions of/ });
  await expect(versions.getByRole("row", { name: /^1\.1\.0 \(shown\) .*Latest/ })).toBeVisible();
  await expect(versions.getByRole("row", { name: /^1\.0\.0 .*Yanked: typo in step two/ })).toBeVisible();

  await versions.getByRole("link", { name: "1.0.0", exact: true }).click();
  await expect(page).toHaveURL(/version=1\.0\.0/);
  await expect(page.getByRole("note").filter({ hasText: "Version 1.0.0 was yanked" })).toContainText("typo in step two");
  await expect(page.getByRole("note").filter({ hasText: "You are viewing version 1.0.0" })).toBeVisible();
  await verified(page);

  await page.goto(`${v1.path}?diff=1.0.0...1.1.0`);
  const diff = page.getByRole("table", { name: /Unified diff .* from version 1\.0\.0 to version 1\.1\.0/ });
  await expect(diff).toBeVisible();
  await expect(diff.getByRole("row", { name: /removed second line$/ })).toBeVisible();
  await expect(diff.getByRole("row", { name: /added second line, edited$/ })).toBeVisible();
  await expect(diff.getByRole("row", { name: /added fourth line$/ })).toBeVisible();
  await expect(page.getByText(/\+\d+ lines added/)).toBeVisible();

  // The compare form (plain GET, labelled selects) lands on the same shareable URL.
  await page.goto(v2.path);
  await page.getByLabel("From version").selectOption("1.1.0");
  await page.getByLabel("To version").selectOption("1.0.0");
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page).toHaveURL(/diff=1\.1\.0\.\.\.1\.0\.0/);
  await expect(page.getByRole("heading", { name: "Changes from 1.1.0 to 1.0.0" })).toBeVisible();
});

test("a tampered answer fails verification at the right check, with the failure in words", async ({ page }) => {
  await page.route("**/v1/pull/**", async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { content: string };
    body.content = body.content.replace("simple", "s1mple");
    await route.fulfill({ response, json: body });
  });
  await page.goto(data.guide.path);
  const panel = page.getByRole("region", { name: "Signature verification" });
  await expect(panel.getByRole("status")).toHaveText(/Verification failed: Content hash matches the signature line/, { timeout: 20_000 });
  const checks = panel.getByRole("listitem");
  await expect(checks.nth(0)).toContainText("Failed");
  await expect(checks.nth(0)).toContainText("changed after signing");
  await expect(checks.nth(1)).toContainText("Not run");
  await expect(panel.getByRole("button", { name: "Verify again" })).toBeVisible();
});

test("without WebCrypto Ed25519 the browser falls back to @noble/ed25519 and still verifies", async ({ page }) => {
  await page.addInitScript(() => {
    const subtle = crypto.subtle;
    const importKey = subtle.importKey.bind(subtle) as (...args: unknown[]) => Promise<CryptoKey>;
    // Pretend this browser has no Ed25519 in WebCrypto (as older Safari and Chrome did).
    subtle.importKey = ((...args: unknown[]) => {
      const algorithm = args[2] as AlgorithmIdentifier;
      const name = typeof algorithm === "string" ? algorithm : algorithm.name;
      if (name === "Ed25519") return Promise.reject(new DOMException("Unrecognized name", "NotSupportedError"));
      return importKey(...args);
    }) as SubtleCrypto["importKey"];
  });
  await page.goto(data.guide.path);
  await verified(page);
  await expect(page.getByText("Ed25519 by @noble/ed25519 (this browser's WebCrypto has no Ed25519)")).toBeVisible();
});

test("no layout shift while the page loads and the browser verifies", async ({ page }) => {
  await page.addInitScript(() => {
    (window as unknown as { __cls: number }).__cls = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) (window as unknown as { __cls: number }).__cls += entry.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  // A tall viewport (everything, footer included, is on screen) and a 4× slower CPU, so late changes show.
  await page.setViewportSize({ width: 1280, height: 2400 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  await page.goto(data.tool.path);
  await verified(page);
  await page.waitForTimeout(300);
  const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
  expect(cls, "cumulative layout shift").toBeLessThan(0.001);
});

test("missing, private and malformed items answer the same 404; members see private items", async ({ page, context, api }) => {
  const missing = await page.goto(`/knowledge/${data.author.username}/guides/no_such_item`);
  expect(missing?.status()).toBe(404);
  const missingText = await page.getByRole("main").innerText();
  const privateRes = await page.goto(data.secret.path);
  expect(privateRes?.status()).toBe(404);
  expect(await page.getByRole("main").innerText()).toBe(missingText);
  for (const path of ["/tool/a/b", "/directive/x/y/..%2F..%2Fz", `${data.guide.path}?version=9.9.9`, `/directive${data.guide.path.slice("/knowledge".length)}`]) {
    expect((await page.goto(path))?.status(), path).toBe(404);
  }
  await api.signInContext(context, data.author);
  const own = await page.goto(data.secret.path);
  expect(own?.status()).toBe(200);
  await expect(page.getByText("Private", { exact: true })).toBeVisible();
  await verified(page);
});

test("namespace pages: a user's items, an organization's members for members only, 404 for unknown names", async ({ page, context, api }) => {
  const res = await page.goto(`/${data.author.username}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: data.author.username })).toBeVisible();
  await expect(page.getByText("User", { exact: true })).toBeVisible();
  const items = page.getByRole("region", { name: "Items" });
  await expect(items.getByRole("link", { name: data.guide.id })).toBeVisible();
  await expect(items.getByRole("link", { name: data.secret.id })).toHaveCount(0);
  await items.getByRole("navigation", { name: "Filter by type" }).getByRole("link", { name: "Tools" }).click();
  await expect(page).toHaveURL(/type=tool/);
  await expect(items.getByRole("link", { name: data.tool.id })).toBeVisible();
  await expect(items.getByRole("link", { name: data.guide.id })).toHaveCount(0);

  await page.goto(`/${data.org}`);
  await expect(page.getByRole("heading", { level: 1, name: "Item Spec Org" })).toBeVisible();
  await expect(page.getByText("The member list is visible to members of")).toBeVisible();
  await expect(page.getByText("No items published here yet.")).toBeVisible();
  await api.signInContext(context, data.author);
  await page.reload();
  const members = page.getByRole("region", { name: "Members" });
  await expect(members.getByRole("listitem").filter({ hasText: data.author.username })).toContainText("owner");

  expect((await page.goto(`/${uniqueName("nobody")}`))?.status()).toBe(404);
  expect((await page.goto("/Not_A_Name"))?.status()).toBe(404);
  expect((await page.goto(`/${data.author.username.toUpperCase()}`))?.url()).toMatch(new RegExp(`/${data.author.username}$`));
});

test("item, diff and namespace pages have no serious or critical axe violations", async ({ page }) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    for (const path of [data.tool.path, `${data.versioned.v2.path}?diff=1.0.0...1.1.0`, `${data.hostile.path}?tab=source`, `/${data.author.username}`]) {
      await page.goto(path);
      if (!path.startsWith(`/${data.author.username}`)) await verified(page);
      const violations = await blockingViolations(page);
      expect(violations.length, `${path} (${colorScheme}):\n\n${formatViolations(violations)}`).toBe(0);
    }
  }
});

test("the downloads panel shows the last 30 days and the versions downloaded; page views do not count", async ({ page, server }) => {
  const api = new RyeApi(server.baseURL);
  const id = `${data.author.username}/guides/${uniqueItemName("counted")}`;
  const publish = (version: string) => api.publish(data.token, { type: "knowledge", id, key: data.guide.key, version, content: itemSource.knowledge(id, { version }) });
  const v1 = await publish("1.0.0");
  await publish("1.1.0");
  for (let i = 0; i < 3; i++) expect((await page.request.get(`/v1/pull/knowledge/${id}`)).ok()).toBe(true);
  expect((await page.request.get(`/v1/pull/knowledge/${id}?version=1.0.0`)).ok()).toBe(true);
  await page.goto(v1.path); // the page's own pulls say X-Rye-Purpose: view
  const panel = page.getByRole("region", { name: "Downloads" });
  await expect
    .poll(async () => {
      await page.reload();
      return panel.getByText(/downloads? in the last 30 days/).textContent();
    }, { timeout: 15_000 })
    .toBe("4 downloads in the last 30 days");
  await expect(panel.getByRole("img", { name: /^Downloads per day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}, at most 4 a day$/ })).toBeVisible();
  const rows = panel.getByRole("table", { name: "Downloads per version in the last 30 days" }).getByRole("row");
  await expect(rows.nth(1)).toHaveText(/1\.1\.0\s*3/);
  await expect(rows.nth(2)).toHaveText(/1\.0\.0\s*1/);
});
