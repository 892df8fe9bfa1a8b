/**
 * Publishing from the website and managing items: a person signs up, opens /publish, creates a key in
 * the browser, registers it, pastes a directive, sees live validation, fixes it and publishes; then
 * manages an item (yank with a reason, deprecate, visibility, the deletion policy's refusal).
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair } from "@rye/core";
import { expect, test, uniqueItemName } from "./fixtures.ts";
import { blockingViolations, formatViolations } from "./helpers/axe.ts";

const directive = (name: string, category = "demo", version = "1.0.0") =>
  `# ${name}\n\n\`\`\`xml\n<directive name="${name}" version="${version}">\n  <metadata>\n    <description>Say hello from the web.</description>\n    <category>${category}</category>\n    <author>e2e</author>\n  </metadata>\n</directive>\n\`\`\`\n`;

test("signed out, /publish sends to sign-in and back", async ({ page }) => {
  await page.goto("/publish");
  await expect(page).toHaveURL(/\/login\?next=(%2F|\/)publish$/);
});

test("generate a key in the browser, register it, validate live, publish a directive, open its page", async ({ page, signedIn }) => {
  const name = uniqueItemName("hello");
  const itemId = `${signedIn.username}/demo/${name}`;
  await page.goto("/publish");
  await expect(page.getByRole("heading", { level: 1, name: "Publish an item" })).toBeVisible();

  await test.step("a new key, generated in the browser and registered with the account", async () => {
    const publishButton = page.getByRole("button", { name: "Sign and publish" });
    await expect(publishButton).toBeDisabled();
    await page.getByRole("button", { name: "Generate a key in this browser" }).click();
    await expect(page.getByText("✗ not registered yet")).toBeVisible();
    await expect(page.getByRole("link", { name: "Download private_key.pem" })).toBeVisible();
    await page.getByRole("button", { name: "Register this key with my account" }).click();
    await expect(page.getByText("✓ registered with your account")).toBeVisible();
  });

  await test.step("live validation lists each problem with its field; publishing stays disabled", async () => {
    await page.getByLabel("Content", { exact: true }).fill(directive("Hello-Web", "demo", "1.0"));
    const summary = page.getByTestId("validation-summary");
    await expect(summary).toHaveText("✗ 2 problems to fix before publishing.");
    const problems = page.getByRole("list", { name: "Validation problems" });
    await expect(problems.getByRole("listitem").filter({ hasText: /^name: name must be snake_case/ })).toBeVisible();
    await expect(problems.getByRole("listitem").filter({ hasText: /^version: version must be a semantic version/ })).toBeVisible();
    await expect(page.getByRole("button", { name: "Sign and publish" })).toBeDisabled();
  });

  await test.step("fixed: the derived id, version and category show and publishing is possible", async () => {
    await page.getByLabel("Content", { exact: true }).fill(directive(name));
    await expect(page.getByTestId("validation-summary")).toHaveText("✓ Valid: ready to sign and publish.");
    await expect(page.getByTestId("derived-id")).toHaveText(itemId);
    await expect(page.getByRole("button", { name: "Sign and publish" })).toBeEnabled();
  });

  await test.step("sign and publish: the registry's answer", async () => {
    const fingerprint = (await page.getByTestId("key-fingerprint").textContent())!;
    await page.getByRole("button", { name: "Sign and publish" }).click();
    await expect(page.getByRole("heading", { name: `✓ Published ${itemId}@1.0.0` })).toBeVisible();
    await expect(page.getByText(/rye-registry@/)).toBeVisible();
    await expect(page.getByText(fingerprint, { exact: true }).last()).toBeVisible();
  });

  await test.step("the same version again: 409 with the API's message and a hint", async () => {
    await page.getByRole("button", { name: "Sign and publish" }).click();
    const refusal = page.getByText(/^Not published: .*already exists; versions are immutable/);
    await expect(refusal).toBeVisible();
    await expect(page.getByText(/^Hint: /)).toBeVisible();
    await expect(page.getByText("409 VERSION_EXISTS", { exact: false })).toBeVisible();
  });

  await test.step("the item page shows the published directive", async () => {
    await page.getByLabel("Content", { exact: true }).fill(directive(name, "demo", "1.0.1"));
    await page.getByRole("button", { name: "Sign and publish" }).click();
    await page.getByRole("link", { name: "Open the item page" }).click();
    await expect(page).toHaveURL(new RegExp(`/directive/${itemId}\\?version=1\\.0\\.1$`));
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  });
});

test("an existing key imported from its PEM file signs a tool", async ({ page, api, signedIn }) => {
  const token = await api.createToken(signedIn);
  const key = await api.registerKey(token);
  const dir = await mkdtemp(join(tmpdir(), "rye-e2e-key-"));
  await writeFile(join(dir, "private_key.pem"), key.privateKeyPem);
  const name = uniqueItemName("count");

  await page.goto("/publish");
  await page.getByLabel("Import your private key (PEM)").setInputFiles(join(dir, "private_key.pem"));
  await expect(page.getByTestId("key-fingerprint")).toHaveText(key.publicKey.fingerprint);
  await expect(page.getByText("✓ registered with your account")).toBeVisible();

  await page.getByRole("radio", { name: /^Tool/ }).check();
  await page.getByLabel("Content", { exact: true }).fill(
    `export const __version__ = "0.1.0";\nexport const __tool_type__ = "javascript";\nexport const __executor_id__ = "rye/core/runtimes/node";\nexport const __category__ = "text";\nexport const __tool_description__ = "Count words";\nconsole.log(process.argv.length);\n`,
  );
  await expect(page.getByRole("list", { name: "Validation problems" })).toContainText("file name");
  await page.getByLabel(/^File name/).fill(`${name}.mjs`);
  await expect(page.getByTestId("derived-id")).toHaveText(`${signedIn.username}/text/${name}`);
  await page.getByRole("button", { name: "Sign and publish" }).click();
  await expect(page.getByRole("heading", { name: `✓ Published ${signedIn.username}/text/${name}@0.1.0` })).toBeVisible();

  const pulled = await api.call("GET", `/v1/pull/tool/${signedIn.username}/text/${name}`, { expect: 200 });
  expect(pulled.body!.author_key.fingerprint).toBe(key.publicKey.fingerprint);
  expect(pulled.body!.content).toMatch(/^\/\/ rye:signed:/);
});

test("several files publish one after another, each with its status", async ({ page, signedIn }) => {
  const dir = await mkdtemp(join(tmpdir(), "rye-e2e-bulk-"));
  const [a, b] = [uniqueItemName("bulk"), uniqueItemName("bulk")];
  await writeFile(join(dir, `${a}.md`), directive(a, "kit"));
  await writeFile(join(dir, `${b}.md`), `---\nid: ${b}\ntitle: ${b}\nversion: 1.0.0\nentry_type: reference\ncategory: kit\n---\n\nBody.\n`);
  await writeFile(join(dir, "broken.md"), "---\nid: broken\nversion: nope\n---\nx\n");

  await page.goto("/publish");
  await page.getByRole("button", { name: "Generate a key in this browser" }).click();
  await page.getByRole("button", { name: "Register this key with my account" }).click();
  await expect(page.getByText("✓ registered with your account")).toBeVisible();
  await page.getByText("Publish several files at once").click();
  await page.getByLabel("Files to publish").setInputFiles([`${a}.md`, `${b}.md`, "broken.md"].map((f) => join(dir, f)));
  const table = page.getByRole("table", { name: "Files to publish and their status" });
  await expect(table.getByRole("row", { name: /broken\.md/ })).toContainText("version must be a semantic version");
  await page.getByRole("button", { name: "Sign and publish 2 files" }).click();
  await expect(page.getByText("Done: 2 of 2 published.")).toBeVisible();
  await expect(table.getByRole("link", { name: `${signedIn.username}/kit/${a}@1.0.0` })).toBeVisible();
  await expect(table.getByRole("link", { name: `${signedIn.username}/kit/${b}@1.0.0` })).toBeVisible();
});

test("manage an item: yank with a reason, deprecate, make private, the deletion policy", async ({ page, api, signedIn }) => {
  const token = await api.createToken(signedIn);
  const published = await api.registerKeyAndPublish(token, { namespace: signedIn.username, type: "knowledge" });
  const key = published.key;
  const itemId = published.id;
  const v2 = await api.publish(token, { type: "knowledge", id: itemId, version: "1.1.0", key, content: published.content.replace("version: 1.0.0", "version: 1.1.0") });
  expect(v2.version).toBe("1.1.0");

  await page.goto(`/manage/knowledge/${itemId}`);
  await expect(page.getByRole("heading", { level: 1, name: `Manage ${itemId}` })).toBeVisible();
  const status = page.getByTestId("manage-status");

  await test.step("yank 1.1.0 with a reason, in an accessible confirmation dialog", async () => {
    await page.getByRole("button", { name: "Yank 1.1.0" }).click();
    const dialog = page.getByRole("dialog", { name: `Yank ${itemId}@1.1.0?` });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Reason (optional, shown to users)").fill("breaks the build");
    await dialog.getByRole("button", { name: "Yank 1.1.0" }).click();
    await expect(status).toHaveText(`✓ ${itemId}@1.1.0 is yanked.`);
    await expect(page.getByRole("row", { name: /1\.1\.0/ })).toContainText("yanked: breaks the build");
    const meta = await api.call("GET", `/v1/items/knowledge/${itemId}`, { expect: 200 });
    expect(meta.body!.latest_version).toBe("1.0.0");
  });

  await test.step("Escape cancels a confirmation; unyank needs none", async () => {
    await page.getByRole("button", { name: "Delete 1.0.0" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toBeHidden();
    await page.getByRole("button", { name: "Unyank 1.1.0" }).click();
    await expect(status).toHaveText(`✓ ${itemId}@1.1.0 is available again.`);
  });

  await test.step("deprecate with a replacement id, then un-deprecate", async () => {
    await page.getByLabel("Message").fill("Superseded.");
    await page.getByLabel("Replacement item id (optional)").fill(`${signedIn.username}/e2e/newer`);
    await page.getByRole("button", { name: "Deprecate" }).click();
    await expect(status).toHaveText(`✓ ${itemId} is deprecated.`);
    await expect(page.getByText(`Superseded. Use ${signedIn.username}/e2e/newer instead.`)).toBeVisible();
    await page.getByRole("button", { name: "Un-deprecate" }).click();
    await expect(status).toHaveText(`✓ ${itemId} is no longer deprecated.`);
  });

  await test.step("make it private: the owner still manages it, a signed-out visitor gets 404", async () => {
    await page.getByRole("radio", { name: /^Private/ }).check();
    await page.getByRole("button", { name: "Save visibility" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Make private" }).click();
    await expect(status).toHaveText(`✓ ${itemId} is now private.`);
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: `Manage ${itemId}` })).toBeVisible();
    await expect(page.getByRole("radio", { name: /^Private.*\(current\)/ })).toBeChecked();
    expect((await api.call("GET", `/v1/items/knowledge/${itemId}`)).status).toBe(404);
  });

  await test.step("a downloaded version cannot be deleted: the API's message and hint", async () => {
    await api.call("GET", `/v1/pull/knowledge/${itemId}?version=1.0.0`, { token, expect: 200 });
    await page.getByRole("button", { name: "Delete 1.0.0" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete 1.0.0" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Delete 1.0.0 failed" });
    await expect(alert).toContainText("can no longer be deleted: it has been downloaded");
    await expect(alert).toContainText("Hint: Yank it instead");
  });
});

test("a member of an organization without the owner or admin role cannot manage its items", async ({ page, api, signedIn }) => {
  const owner = await api.signUp();
  const org = await api.createOrg(owner);
  const ownerToken = await api.createToken(owner);
  const item = await api.registerKeyAndPublish(ownerToken, { namespace: org });
  const invite = await api.call("POST", `/v1/orgs/${org}/invitations`, { session: owner, json: { username: signedIn.username, role: "member" } });
  expect(invite.status, JSON.stringify(invite.body)).toBe(201);
  const pending = await api.call("GET", "/v1/me/invitations", { session: signedIn, expect: 200 });
  const id = pending.body!.invitations[0].id;
  await api.call("POST", `/v1/me/invitations/${id}/accept`, { session: signedIn, expect: 200 });

  await page.goto(`/manage/${item.type}/${item.id}`);
  await expect(page.getByText("You cannot manage this item.")).toBeVisible();
  await expect(page.getByRole("button", { name: /Yank/ })).toHaveCount(0);
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`publish and manage pages have no serious or critical axe violations (${colorScheme})`, async ({ page, api, signedIn }) => {
    await page.emulateMedia({ colorScheme });
    const check = async (what: string) => {
      const violations = await blockingViolations(page);
      expect(violations.length, `serious/critical axe violations on ${what} (${colorScheme}):\n\n${formatViolations(violations)}\n`).toBe(0);
    };
    await page.goto("/publish");
    await page.getByRole("button", { name: "Generate a key in this browser" }).click();
    await expect(page.getByText("✗ not registered yet")).toBeVisible();
    await page.getByLabel("Content", { exact: true }).fill(directive("Bad-Name"));
    await expect(page.getByTestId("validation-summary")).toHaveText(/problem/);
    await check("/publish with validation problems");
    await page.getByRole("button", { name: "Register this key with my account" }).click();
    await page.getByLabel("Content", { exact: true }).fill(directive(uniqueItemName("axe")));
    await page.getByRole("button", { name: "Sign and publish" }).click();
    await expect(page.getByRole("heading", { name: /✓ Published/ })).toBeVisible();
    await check("/publish after publishing");

    const token = await api.createToken(signedIn);
    const item = await api.registerKeyAndPublish(token, { namespace: signedIn.username });
    await page.goto(`/manage/${item.type}/${item.id}`);
    await page.getByRole("button", { name: "Yank 1.0.0" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await check("/manage with the yank dialog open");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Yank 1.0.0" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Yank 1.0.0" }).click();
    await expect(page.getByTestId("manage-status")).toContainText("is yanked");
    await check("/manage after yanking");
  });
}
