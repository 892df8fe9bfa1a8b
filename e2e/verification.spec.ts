/**
 * Namespace verification in the browser: an organization owner opens the organization's verified names, claims a
 * domain, checks too early (the precise error shows), publishes the TXT record the page names at a real local DNS
 * server (dns2, the registry's resolver via RYE_DNS_RESOLVER), checks again, and sees the verified badge on the
 * settings page, the namespace page and an item page.
 */
import { test as base, expect } from "./fixtures.ts";
import { type LocalDnsServer, startLocalDnsServer } from "../apps/api/test/fixtures/dns-server.ts";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";
import { startServer } from "./helpers/server.ts";

// This spec's server resolves DNS through its own local DNS server (a worker of its own).
const test = base.extend<Record<never, never>, { dns: LocalDnsServer }>({
  dns: [
    async ({}, use) => {
      const dns = await startLocalDnsServer();
      try {
        await use(dns);
      } finally {
        await dns.close();
      }
    },
    { scope: "worker" },
  ],
  server: [
    async ({ dns }, use) => {
      const server = await startServer({ env: { RYE_DNS_RESOLVER: dns.address, RYE_DNS_TIMEOUT_MS: "1000" } });
      try {
        await use(server);
      } finally {
        await server.stop();
      }
    },
    { scope: "worker", timeout: 300_000 },
  ],
});

test("an owner verifies a domain and the badge shows on the namespace and its items", async ({ page, context, api, dns }) => {
  const owner = await api.signUp();
  const org = (await api.createOrg(owner)).toLowerCase();
  const domain = `${org}.example.com`;
  const token = await api.createToken(owner);
  const item = await api.registerKeyAndPublish(token, { namespace: org });
  await api.signInContext(context, owner);

  await page.goto(`/settings/orgs/${org}`);
  await page.getByRole("link", { name: "Verified names" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Verified names" })).toBeVisible();
  await page.getByRole("textbox", { name: "Domain" }).fill(domain);
  await page.getByRole("button", { name: "Start verification" }).click();

  const claim = page.getByRole("list", { name: "Verification claims" }).getByRole("listitem").filter({ hasText: domain });
  await expect(claim).toContainText("waiting for proof");
  await expect(claim.getByLabel("Record name")).toHaveText(`_rye.${domain}`);
  const value = (await claim.getByLabel("Record value").textContent())!.trim();
  expect(value).toMatch(/^rye-verification=/);
  const violations = await blockingViolations(page);
  expect(violations, formatViolations(violations)).toEqual([]);

  // Too early: nothing published yet.
  await claim.getByRole("button", { name: `Check ${domain} now` }).click();
  await expect(claim.getByRole("alert")).toContainText("VERIFICATION_RECORD_MISSING");

  dns.txt.set(`_rye.${domain}`, [[value]]);
  await claim.getByRole("button", { name: `Check ${domain} now` }).click();
  await expect(claim).toContainText("verified");
  await expect(claim.getByLabel("Record value")).toHaveCount(0);
  const badges = (where: string) => page.getByRole("list", { name: `Verified names of ${org}` }).filter({ hasText: where });
  await expect(badges(domain)).toBeVisible();

  await page.goto(`/${org}`);
  await expect(badges(domain)).toContainText(`Verified ${domain}`);

  await page.goto(`/knowledge/${item.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(badges(domain)).toBeVisible();

  // The record removed: a re-check lapses the claim and the badge goes.
  dns.txt.delete(`_rye.${domain}`);
  await page.goto(`/settings/orgs/${org}/verification`);
  await claim.getByRole("button", { name: `Check ${domain} now` }).click();
  await expect(claim).toContainText("lapsed");
  await page.goto(`/${org}`);
  await expect(page.getByRole("list", { name: `Verified names of ${org}` })).toHaveCount(0);
});
