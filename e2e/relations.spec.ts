/**
 * Relations on item pages (issue #17, item 4): a directive's page lists what it uses (its tool and knowledge,
 * linked, with a deprecated dependency flagged) and a tool's page lists which items use it and what it runs on.
 * A private directive that uses the tool appears in "Used by" for its owner only, never for other visitors.
 */
import { expect, itemSource, test, uniqueItemName } from "./fixtures.ts";

const withActions = (source: string, actions: string[]) => source.replace("  </metadata>\n", `  </metadata>\n  <process>\n${actions.map((a) => `    <step>${a}</step>`).join("\n")}\n  </process>\n`);

test("uses and used-by on item pages; a deprecated dependency is flagged; a private user is shown to its owner only", async ({ page, api, browser }) => {
  const author = await api.signUp();
  const token = await api.createToken(author);
  const key = await api.registerKey(token);
  const ns = author.username;
  const toolId = `${ns}/web/${uniqueItemName("fetch")}`;
  const guideId = `${ns}/guides/${uniqueItemName("style")}`;
  const flowId = `${ns}/flows/${uniqueItemName("triage")}`;
  await api.publish(token, { type: "tool", id: toolId, key, content: itemSource.tool(toolId) });
  await api.publish(token, { type: "knowledge", id: guideId, key, content: itemSource.knowledge(guideId) });
  const flow = await api.publish(token, { type: "directive", id: flowId, key, content: withActions(itemSource.directive(flowId), [`<execute item_type="tool" item_id="${toolId}"/>`, `<load item_type="knowledge" item_id="${guideId}"/>`]) });
  await api.call("POST", `/v1/deprecate/knowledge/${guideId}`, { token, json: { message: "Use the new style guide" }, expect: 200 });

  // Someone else's private directive uses the same tool.
  const other = await api.signUp();
  const otherToken = await api.createToken(other);
  const otherKey = await api.registerKey(otherToken);
  const secretId = `${other.username}/flows/${uniqueItemName("secret")}`;
  await api.publish(otherToken, { type: "directive", id: secretId, key: otherKey, visibility: "private", content: withActions(itemSource.directive(secretId), [`<execute item_type="tool" item_id="${toolId}"/>`]) });

  // The directive's page: what it uses, linked, and the deprecated dependency flagged.
  await page.goto(flow.path);
  const relations = page.getByRole("region", { name: "Relations" });
  const uses = relations.getByRole("region", { name: /^Uses/ });
  await expect(uses.getByRole("heading")).toHaveText("Uses (2)");
  await expect(uses.getByRole("link", { name: `${toolId}@1.0.0` })).toHaveAttribute("href", `/tool/${toolId}?version=1.0.0`);
  await expect(uses.getByRole("listitem").filter({ hasText: guideId })).toContainText("Deprecated");
  await expect(relations.getByRole("note")).toContainText(`${guideId}: deprecated (Use the new style guide)`);
  await expect(relations.getByText("pulls this item with everything it uses, verified and pinned in one step")).toBeVisible();

  // The tool's page, as an anonymous visitor: used by the public directive only; it runs on the system primitive.
  await page.goto(`/tool/${toolId}`);
  const usedBy = page.getByRole("region", { name: "Relations" }).getByRole("region", { name: /^Used by/ });
  await expect(usedBy.getByRole("heading")).toHaveText("Used by (1)");
  await expect(usedBy.getByRole("link", { name: flowId })).toHaveAttribute("href", `/directive/${flowId}`);
  await expect(usedBy.getByText(secretId)).toHaveCount(0);
  await expect(page.getByRole("region", { name: /^Uses/ }).getByRole("listitem")).toContainText(/runs on tool .*rye\/core\/primitives\/http_client/);
  await usedBy.getByRole("link", { name: flowId }).click();
  await expect(page).toHaveURL(new RegExp(`/directive/${flowId}$`));

  // The private directive's owner sees it among the tool's users.
  const ownerContext = await browser.newContext();
  try {
    await api.signInContext(ownerContext, other);
    const ownerPage = await ownerContext.newPage();
    await ownerPage.goto(`/tool/${toolId}`);
    const ownerUsedBy = ownerPage.getByRole("region", { name: "Relations" }).getByRole("region", { name: /^Used by/ });
    await expect(ownerUsedBy.getByRole("heading")).toHaveText("Used by (2)");
    await expect(ownerUsedBy.getByRole("link", { name: secretId })).toBeVisible();
  } finally {
    await ownerContext.close();
  }
});
