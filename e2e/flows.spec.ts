/**
 * The whole journey of the "Registry website" issue, as one person does it in a browser:
 * sign up → create a token → publish an item from the web (key generated and signed in the browser)
 * → find it by search → its page verifies it in the browser → someone tampers with the stored version
 * in the database → the page shows the verification failing at a specific check.
 * And: an organization's private item is invisible to a signed-out visitor (search and direct URL).
 *
 * Tampering writes to the server's database while it runs, so this file needs PostgreSQL
 * (DATABASE_URL; CI and `npm test` provide it). On PGlite the first test is skipped — under CI it fails.
 */
import { expect, test, uniqueItemName, uniqueName } from "./fixtures.ts";

test.describe.configure({ mode: "serial" });

test("sign up, create a token, publish from the web, find it, verify it; tampering is detected", async ({ page, api, sql }) => {
  test.setTimeout(120_000);
  const username = uniqueName("flow");
  const password = `${username}-correct-horse-battery`;
  const marker = `quokka${uniqueName("x").replace(/-/g, "")}`;
  const name = uniqueItemName("field_notes");
  const itemId = `${username}/guides/${name}`;

  await test.step("sign up", async () => {
    await page.goto("/signup");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Email").fill(`${username}@example.test`);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page).not.toHaveURL(/\/signup/);
    // Signed in: the header offers the account, no longer "Sign in".
    await expect(page.getByRole("banner").getByRole("link", { name: /sign in/i })).toHaveCount(0);
  });

  await test.step("create a personal token in the settings", async () => {
    await page.goto("/settings");
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Tokens" }).click();
    await expect(page).toHaveURL(/\/settings\/tokens/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.getByLabel("Name", { exact: true }).fill("e2e laptop");
    await page.getByRole("checkbox", { name: /items:write/ }).check();
    await page.getByRole("button", { name: /create( a)? token/i }).click();
    // The secret is shown once: read it and prove that it authenticates as this user.
    const secret = page.getByText(/rye_pat_[A-Za-z0-9_-]{20,}/).first();
    await expect(secret).toBeVisible();
    const token = (await secret.textContent())!.match(/rye_pat_[A-Za-z0-9_-]+/)![0];
    const me = await api.call("GET", "/v1/me", { token, expect: 200 });
    expect(me.body!.username).toBe(username);
    expect(me.body!.scopes).toContain("items:write");
  });

  await test.step("publish a knowledge item from the web, signed in the browser", async () => {
    await page.goto("/publish");
    await expect(page.getByRole("heading", { level: 1, name: /publish/i })).toBeVisible();
    await page.getByRole("button", { name: /generate a key/i }).click();
    await page.getByRole("button", { name: /register this key/i }).click();
    await expect(page.getByText(/registered with your account/)).toBeVisible();
    await page.getByRole("radio", { name: /knowledge/i }).check();
    await page.getByLabel("Content", { exact: true }).fill(
      `---\nid: ${name}\ntitle: Field notes ${marker}\nversion: 1.0.0\nentry_type: reference\ncategory: guides\n---\n\n# Field notes\n\nObservations about ${marker} in the wild.\n`,
    );
    // The form checks the item as the person types (debounced): publish once it says the item is valid.
    await expect(page.getByText(/Valid: ready to sign and publish/)).toBeVisible();
    await page.getByRole("button", { name: "Sign and publish" }).click();
    await expect(page.getByRole("heading", { name: `✓ Published ${itemId}@1.0.0` })).toBeVisible();
  });

  await test.step("find it by search", async () => {
    await page.goto("/search");
    const box = page.getByRole("main").getByRole("searchbox");
    await box.fill(marker);
    await box.press("Enter");
    await expect(page).toHaveURL(new RegExp(`[?&]q(uery)?=${marker}`));
    const result = page.getByRole("main").getByRole("link", { name: new RegExp(name) }).first();
    await expect(result).toBeVisible();
    await result.click();
    await expect(page).toHaveURL(new RegExp(`/knowledge/${itemId}`));
  });

  const verification = page.getByRole("region", { name: "Signature verification" });
  await test.step("the item page verifies the item in the browser", async () => {
    await expect(page.getByRole("heading", { level: 1 })).toContainText(/Field notes|field_notes/);
    await expect(verification.getByRole("status")).toHaveText(/Verified in your browser/, { timeout: 20_000 });
    await expect(verification.getByRole("listitem").filter({ hasText: "Failed" })).toHaveCount(0);
  });

  await test.step("tamper with the stored version; the page shows the failed check", async () => {
    const changed = await sql(
      `UPDATE item_versions SET content = replace(content, 'in the wild', 'in a cage')
        WHERE item_id = (SELECT i.id FROM items i JOIN namespaces n ON n.id = i.namespace_id WHERE n.name = $1 AND i.name = $2 AND i.type = 'knowledge')
        RETURNING version`,
      [username, name],
    );
    expect(changed).toHaveLength(1);
    await page.reload();
    await expect(verification.getByRole("status")).toHaveText(/Verification failed: Content hash matches the signature line/, { timeout: 20_000 });
    const failed = verification.getByRole("listitem").filter({ hasText: "Content hash matches the signature line" });
    await expect(failed).toHaveAttribute("data-state", "failed");
    await expect(failed).toContainText("Failed");
  });
});

test("an organization's private item is invisible to a signed-out visitor", async ({ page, api, browser, baseURL }) => {
  const owner = await api.signUp();
  const org = await api.createOrg(owner);
  const token = await api.createToken(owner);
  const marker = `wombat${uniqueName("x").replace(/-/g, "")}`;
  const secret = await api.registerKeyAndPublish(token, {
    type: "knowledge",
    namespace: org,
    id: `${org}/internal/${uniqueItemName("runbook")}`,
    visibility: "private",
  });
  // Give it a searchable word: publish a second version whose body carries the marker.
  const v2 = await api.publish(token, {
    type: "knowledge",
    id: secret.id,
    version: "1.1.0",
    key: secret.key,
    visibility: "private",
    content: `---\nid: ${secret.id.split("/").pop()}\ntitle: Runbook ${marker}\nversion: 1.1.0\nentry_type: reference\ncategory: internal\n---\n\nSecret ${marker} procedure.\n`,
  });

  await test.step("a member sees it (the item exists)", async () => {
    const member = await browser.newContext({ baseURL });
    await api.signInContext(member, owner);
    const memberPage = await member.newPage();
    const res = await memberPage.goto(v2.path);
    expect(res?.status()).toBe(200);
    await expect(memberPage.getByRole("heading", { level: 1 })).toBeVisible();
    await member.close();
  });

  await test.step("signed out: not in search", async () => {
    await page.goto(`/search?q=${marker}`);
    await expect(page.getByRole("main")).toBeVisible();
    await expect(page.getByRole("main").getByRole("link", { name: new RegExp(secret.id.split("/").pop()!) })).toHaveCount(0);
    // The query is echoed back; the item's id and title are not.
    await expect(page.getByRole("main")).not.toContainText(secret.id);
    await expect(page.getByRole("main")).not.toContainText(`Runbook ${marker}`);
  });

  await test.step("signed out: the direct URL is a 404", async () => {
    const res = await page.goto(v2.path);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(/not found/i);
    await expect(page.getByRole("main")).not.toContainText(marker);
    // The API agrees: no metadata, no pull.
    expect((await api.call("GET", `/v1/items/knowledge/${secret.id}`)).status).toBe(404);
    expect((await api.call("GET", `/v1/pull/knowledge/${secret.id}`)).status).toBe(404);
  });
});
