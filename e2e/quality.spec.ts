/**
 * Quality factors and the static safety report on item pages (docs/quality.md), for a real visitor: a signed,
 * documented tool meets every factor and has no findings; an unsigned tool that runs processes it does not
 * declare and holds a dangerous command shows each missed factor with how to meet it and the gate rule it matches;
 * knowledge has no safety report; a private tool's report is its members' only.
 */
import { expect, itemSource, type Published, type Session, test, uniqueItemName } from "./fixtures.ts";
import { RyeApi } from "./helpers/api.ts";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";

interface Data {
  author: Session;
  good: Published;
  risky: string;
  note: Published;
  secret: Published;
}
let data: Data;

const goodTool = (category: string) =>
  [
    'export const __version__ = "1.0.0";',
    'export const __tool_type__ = "javascript";',
    'export const __executor_id__ = "rye/core/runtimes/node";',
    `export const __category__ = "${category}";`,
    'export const __tier__ = "T1";',
    'export const __tool_description__ = "Fetch a page and return its title";',
    'export const CONFIG_SCHEMA = { type: "object", properties: { url: { type: "string", description: "The page to read" } } };',
    "/** Fetches the page at `url` and returns the text of its <title> element, or null when it has none. */",
    "export async function main(params) {",
    "  const html = await (await fetch(params.url)).text();",
    "  return { title: /<title>([^<]*)<\\/title>/i.exec(html)?.[1] ?? null };",
    "}",
  ].join("\n");

const riskyTool = (category: string) =>
  [
    'export const __version__ = "1.0.0";',
    'export const __tool_type__ = "javascript";',
    'export const __executor_id__ = "rye/core/runtimes/node";',
    `export const __category__ = "${category}";`,
    'export const __tool_description__ = "Clean up";',
    'import { execSync } from "node:child_process";',
    "export function main() {",
    '  return execSync("rm -rf ./build && echo done").toString();',
    "}",
  ].join("\n");

test.beforeAll(async ({ server }) => {
  const api = new RyeApi(server.baseURL);
  const author = await api.signUp();
  const token = await api.createToken(author);
  const ns = author.username;
  const key = await api.registerKey(token);
  const good = await api.publish(token, { type: "tool", id: `${ns}/web/${uniqueItemName("title")}`, key, fileExtension: ".mjs", content: goodTool("web") });
  // Unsigned, straight through the API.
  const risky = `${ns}/ops/${uniqueItemName("cleanup")}`;
  await api.call("POST", "/v1/push", { token, json: { item_type: "tool", item_id: risky, content: riskyTool("ops"), version: "1.0.0", file_extension: ".mjs" }, expect: 201 });
  const noteId = `${ns}/guides/${uniqueItemName("note")}`;
  const note = await api.publish(token, { type: "knowledge", id: noteId, key, content: itemSource.knowledge(noteId, { title: "A note on quality signals", body: "Enough words in this body to count as documentation for whoever reads it." }) });
  const secret = await api.publish(token, { type: "tool", id: `${ns}/web/${uniqueItemName("secret")}`, key, fileExtension: ".mjs", content: goodTool("web"), visibility: "private" });
  data = { author, good, risky, note, secret };
});

test("a signed, documented tool: every quality factor met, and a safety report without findings", async ({ page }) => {
  expect((await page.goto(data.good.path))?.status()).toBe(200);
  const quality = page.getByRole("region", { name: /^Quality/ });
  await expect(quality.getByTestId("quality-score")).toHaveText("100 / 100");
  const factors = quality.getByRole("listitem");
  await expect(factors).toHaveCount(7);
  for (const label of ["Has a description", "Has documentation", "Inputs documented", "Signed by a registered key", "Provenance complete", "No yanked versions", "Recently updated"]) {
    await expect(factors.filter({ hasText: label })).toContainText("met:");
    await expect(factors.filter({ hasText: label })).not.toContainText("not met");
  }
  await expect(quality.getByText("How to meet it")).toHaveCount(0);

  const safety = page.getByRole("region", { name: /^Safety report/ });
  await expect(safety.getByTestId("safety-verdict")).toHaveText("No findings");
  await expect(safety.getByText("T1 (declared)")).toBeVisible();
  await expect(safety.getByRole("row", { name: /Network/ })).toContainText(/yes\s*yes \(line 11\)/);
  await expect(safety.getByRole("row", { name: /Runs processes/ })).toContainText(/no\s*no/);
  await expect(safety.getByText("No line matches the security gate's dangerous-pattern rules.")).toBeVisible();
});

test("an unsigned tool with an undeclared process and a dangerous command: the misses, their hints and the rule", async ({ page }) => {
  expect((await page.goto(`/tool/${data.risky}`))?.status()).toBe(200);
  const quality = page.getByRole("region", { name: /^Quality/ });
  const signed = quality.getByRole("listitem").filter({ hasText: "Signed by a registered key" });
  await expect(signed).toContainText("not met");
  await expect(signed).toContainText("How to meet it: Sign the item with your key (rye sign)");
  await expect(quality.getByRole("listitem").filter({ hasText: "Inputs documented" })).toContainText("No parameter schema");
  const score = Number((await quality.getByTestId("quality-score").innerText()).split(" ")[0]);
  expect(score).toBeLessThan(50);

  const safety = page.getByRole("region", { name: /^Safety report/ });
  await expect(safety.getByTestId("safety-verdict")).toHaveText("Dangerous patterns");
  await expect(safety.getByText("T3 (none declared: the gate treats it as T3), T4 with the patterns found")).toBeVisible();
  await expect(safety.getByRole("row", { name: /Runs processes/ })).toContainText(/no\s*yes \(line 7, 9\)/);
  const rule = safety.getByRole("listitem").filter({ hasText: "recursive forced delete" });
  await expect(rule).toContainText("Line 9"); // the served file's line (its first line is the registry's signature)
  await expect(rule).toContainText("rm-recursive-force");
  await expect(rule.locator("code")).toHaveText("rm -rf ");
});

test("knowledge has quality factors (inputs not applicable) but no safety report", async ({ page }) => {
  expect((await page.goto(data.note.path))?.status()).toBe(200);
  const quality = page.getByRole("region", { name: /^Quality/ });
  await expect(quality.getByTestId("quality-score")).toHaveText("100 / 100");
  await expect(quality.getByRole("listitem").filter({ hasText: "Inputs documented" })).toContainText("not applicable");
  await expect(page.getByRole("region", { name: /^Safety report/ })).toHaveCount(0);
});

test("a private tool's report is its members' only: the page and the API answer 404 to others", async ({ page, context, api }) => {
  expect((await page.goto(data.secret.path))?.status()).toBe(404);
  await expect(page.getByRole("region", { name: /^Safety report/ })).toHaveCount(0);
  expect((await page.request.get(`/v1/quality/tool/${data.secret.id}`)).status()).toBe(404);
  await api.signInContext(context, data.author);
  expect((await page.goto(data.secret.path))?.status()).toBe(200);
  await expect(page.getByRole("region", { name: /^Safety report/ }).getByTestId("safety-verdict")).toHaveText("No findings");
  expect((await page.request.get(`/v1/quality/tool/${data.secret.id}`)).status()).toBe(200);
});

test("search sorts by quality: the well-kept tool before the risky one, each card with its score", async ({ page }) => {
  await page.goto(`/search?namespace=${data.author.username}&type=tool`);
  await page.getByRole("navigation", { name: "Sort" }).getByRole("link", { name: "Best quality" }).click();
  await expect(page).toHaveURL(/sort=quality/);
  const cards = page.getByRole("article");
  await expect(cards.first()).toContainText("quality 100");
  const texts = await cards.allInnerTexts();
  const at = (id: string) => texts.findIndex((t) => t.includes(id));
  expect(at(data.good.id)).toBeGreaterThanOrEqual(0);
  expect(at(data.good.id)).toBeLessThan(at(data.risky));
  await expect(cards.filter({ hasText: data.risky })).toContainText(/quality \d+/);
});

test("the quality and safety panels have no serious or critical axe violations, light and dark", async ({ page }) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto(`/tool/${data.risky}`);
    await expect(page.getByRole("region", { name: /^Safety report/ })).toBeVisible();
    const violations = await blockingViolations(page);
    expect(violations.length, `${colorScheme}:\n\n${formatViolations(violations)}`).toBe(0);
  }
});
