/**
 * End-to-end tests of the website and the API on one origin (e2e/*.spec.ts), in Debian's Chromium.
 * The server is started by the worker fixture in e2e/fixtures.ts (a fresh database per worker), not by
 * Playwright's webServer, so no `baseURL` is set here: the fixture provides it.
 *
 *   npx playwright test                  # everything (builds the site first when it is stale)
 *   npx playwright test e2e/flows.spec.ts
 *   CHROMIUM_PATH=/path/to/chromium npx playwright test
 *
 * `npx playwright install` cannot download browsers here: the system Chromium is used.
 */
import { defineConfig, devices } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // 2 cores shared by the API, Next.js, PostgreSQL and the browser: one worker, one server.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // The first test of a worker may wait for `next build` and the server's first start (migrations, seed).
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Playwright empties its output directory when a run starts. Engineers sharing a checkout run specs at the
  // same time, so local runs get their own directory (the runner's pid, inherited by its workers); CI one.
  outputDir: process.env.CI ? "test-results/playwright" : `test-results/playwright-${(process.env.RYE_E2E_RUN ??= String(process.pid))}`,
  reporter: process.env.CI ? [["list"], ["junit", { outputFile: "test-results/junit.xml" }]] : [["list"]],
  use: {
    ...devices["Desktop Chrome"],
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    actionTimeout: 10_000,
    navigationTimeout: 30_000,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
      ],
    },
  },
  projects: [{ name: "chromium" }],
});
