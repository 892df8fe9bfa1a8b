/**
 * Home and search pages as a visitor uses them: search from the home page, facets and sort as links
 * that give shareable addresses, pagination, the signed / deprecated markers, the empty state, copy
 * buttons, and private items that only their organization's members find.
 */
import { type Published, RyeApi, type Session, uniqueItemName, uniqueName } from "./helpers/api.ts";
import { expect, test } from "./fixtures.ts";

interface Data {
  author: Session;
  marker: string;
  knowledge: Published[];
  tool: Published;
  secret: Published;
}

let data: Data | undefined;
const TOTAL_PUBLIC = 24; // 23 knowledge items and a tool carry the marker; the private one is not counted for visitors

test.beforeAll(async ({ server }) => {
  test.setTimeout(180_000);
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const marker = `wombat${uniqueName("m").replace(/-/g, "")}`;
  const key = await api.registerKey(token);
  const knowledge: Published[] = [];
  for (let i = 0; i < 23; i++) {
    const name = uniqueItemName(`burrow_${i}`);
    const id = `${author.username}/${i % 2 ? "guides" : "notes/deep"}/${name}`;
    const content = `---\nid: ${name}\ntitle: ${marker} burrow ${i}\nversion: 1.0.0\nentry_type: reference\ncategory: ${i % 2 ? "guides" : "notes/deep"}\ndescription: How ${marker} number ${i} digs\n---\n\nAll about ${marker} burrows.\n`;
    knowledge.push(await api.publish(token, { type: "knowledge", id, content, key }));
  }
  const toolId = `${author.username}/web/${uniqueItemName("dig_tool")}`;
  const tool = await api.publish(token, {
    type: "tool",
    id: toolId,
    key,
    content: `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: web\ndescription: "Fetch ${marker} burrow maps"\nconfig:\n  url: "{url}"\n`,
  });
  await api.call("POST", `/v1/deprecate/knowledge/${knowledge[0]!.id}`, { token, json: { message: "Use a newer burrow" }, expect: 200 });
  // Pulls put the tool among the registry's most pulled items: the home page lists the most pulled of the whole
  // registry, and the specs before this one pull their own items a few times each.
  for (let i = 0; i < 40; i++) await api.call("GET", `/v1/pull/tool/${toolId}`, { expect: 200 });
  const org = await api.createOrg(author);
  const secretName = uniqueItemName("secret_burrow");
  const secret = await api.publish(token, {
    type: "knowledge",
    id: `${org}/private/${secretName}`,
    key,
    visibility: "private",
    content: `---\nid: ${secretName}\ntitle: ${marker} secret\nversion: 1.0.0\nentry_type: reference\ncategory: private\ndescription: The private ${marker} burrow\n---\n\nSecret.\n`,
  });
  data = { author, marker, knowledge, tool, secret };
});

test("search from the home page; counts, lists and copy buttons", async ({ page, context, baseURL }) => {
  const d = data!;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL! });
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/signed building blocks/i);
  // Counts are cached for a few seconds (GET /v1/stats): the author's namespace shows up by then.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("term").filter({ hasText: /^publishers$/ })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByRole("heading", { name: "Most pulled" })).toBeVisible();
  // Download counts are written in batches (RYE_DOWNLOAD_FLUSH_MS): the list shows them after the next flush.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("region", { name: "Most pulled" }).getByRole("link", { name: d.tool.id })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });

  await page.getByRole("button", { name: "Copy the login command" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copied to the clipboard" })).toBeAttached();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`npx ryeos login --registry ${baseURL}`);
  await page.getByRole("button", { name: "Copy the MCP configuration" }).click();
  const mcp = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  expect(mcp.mcpServers.rye).toMatchObject({ command: "npx", args: ["-y", "ryeos", "mcp"], env: { RYE_REGISTRY_URL: baseURL } });

  await page.getByRole("main").getByRole("searchbox", { name: "Search the registry" }).fill(d.marker);
  await page.getByRole("main").getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${d.marker}$`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: /results for/ })).toContainText(`${TOTAL_PUBLIC} results`);
});

test("facets and sort are links with shareable addresses; results show signed and deprecated", async ({ page }) => {
  const d = data!;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/search?q=${d.marker}`);
  const filters = page.getByRole("navigation", { name: "Filters" });
  await filters.getByRole("link", { name: /^tool\b/ }).click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${d.marker}&type=tool$`));
  await expect(page.getByRole("status").filter({ hasText: /results? for/ })).toContainText("1 result");
  const result = page.getByRole("article").filter({ has: page.getByRole("link", { name: d.tool.id }) });
  await expect(result.getByText("signed", { exact: false })).toBeVisible();
  await expect(result).toContainText(`by ${d.author.username}`);

  // The address alone restores the view: the facet is selected, selecting it again removes it.
  await page.goto(`/search?q=${d.marker}&type=tool`);
  const selected = filters.getByRole("link", { name: /^tool\b/ });
  await expect(selected).toHaveAttribute("aria-current", "true");
  await selected.click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${d.marker}$`));

  // Categories drill down: notes → notes/deep.
  await filters.getByRole("link", { name: /^notes\b/ }).click();
  await expect(page).toHaveURL(/category=notes$/);
  await expect(filters.getByRole("link", { name: /^notes\/deep\b/ })).toBeVisible();

  await page.goto(`/search?q=${d.marker}`);
  await page.getByRole("navigation", { name: "Sort" }).getByRole("link", { name: "Most pulled" }).click();
  await expect(page).toHaveURL(/sort=downloads/);
  await expect(page.getByRole("article").first().getByRole("link", { name: d.tool.id })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Sort" }).getByRole("link", { name: "Most pulled" })).toHaveAttribute("aria-current", "true");

  await page.goto(`/search?q=${d.marker}&sort=recent&namespace=${d.author.username}`);
  const deprecated = page.getByRole("article").filter({ has: page.getByRole("link", { name: d.knowledge[0]!.id }) });
  await expect(deprecated.getByText("deprecated", { exact: true })).toBeVisible();
});

test("pagination keeps the address shareable", async ({ page }) => {
  const d = data!;
  await page.goto(`/search?q=${d.marker}`);
  const pagination = page.getByRole("navigation", { name: "Pagination" });
  await expect(pagination).toContainText("Page 1 of 2");
  await expect(page.getByRole("article")).toHaveCount(20);
  await pagination.getByRole("link", { name: "Next" }).click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${d.marker}&page=2$`));
  await expect(page.getByRole("article")).toHaveCount(TOTAL_PUBLIC - 20);
  await expect(page.getByRole("status").filter({ hasText: /results for/ })).toContainText(`21–${TOTAL_PUBLIC} of ${TOTAL_PUBLIC}`);
  await page.reload();
  await expect(page.getByRole("article")).toHaveCount(TOTAL_PUBLIC - 20);
  await pagination.getByRole("link", { name: "Previous" }).click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${d.marker}$`));
});

test("no results: an empty state with suggestions; a refused request shows the registry's message", async ({ page }) => {
  await page.goto(`/search?q=zzqx${uniqueName("none").replace(/-/g, "")}&type=knowledge`);
  await expect(page.getByText(/No items match/)).toBeVisible();
  await page.getByRole("link", { name: /Remove the type .knowledge. filter/ }).click();
  await expect(page).not.toHaveURL(/type=/);
  await expect(page.getByRole("link", { name: "Browse everything" })).toBeVisible();

  await page.goto("/search?q=x&type=widget");
  // (Next.js has a route announcer with the alert role too.)
  await expect(page.getByRole("alert").filter({ hasText: /widget/ })).toContainText(/item type/i);
});

test("private items: members find them, visitors do not", async ({ page, context, api }) => {
  const d = data!;
  await page.goto(`/search?q=${d.marker}`);
  await expect(page.getByRole("status").filter({ hasText: /results for/ })).toContainText(`${TOTAL_PUBLIC} results`);
  await expect(page.getByRole("link", { name: d.secret.id })).toHaveCount(0);
  await page.goto(`/search?q=${d.marker}%20secret`);
  await expect(page.getByText(/No items match/)).toBeVisible();

  await api.signInContext(context, d.author);
  await page.goto(`/search?q=${d.marker}%20secret`);
  const secret = page.getByRole("article").filter({ has: page.getByRole("link", { name: d.secret.id }) });
  await expect(secret).toBeVisible();
  await expect(secret.getByText("private", { exact: true })).toBeVisible();
});
