/**
 * An organization's owner forbids remote MCP clients on its settings page: the organization's private item is then
 * not found through the registry's /mcp (a member's token) while the member still pulls it over HTTP; allowed again,
 * /mcp serves it. A plain member sees the setting but no control.
 */
import { expect, test } from "./fixtures.ts";

type Json = Record<string, any>;

test("an owner forbids remote MCP clients for the organization's private items, and allows them again", async ({ page, context, api, server, browser }) => {
  const owner = await api.signUp();
  const org = (await api.createOrg(owner)).toLowerCase();
  const token = await api.createToken(owner);
  const { id } = await api.registerKeyAndPublish(token, { namespace: org, visibility: "private" });

  const getItem = async (): Promise<Json> => {
    const res = await fetch(`${server.baseURL}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_item", arguments: { item_type: "knowledge", item_id: id } } }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as Json).result;
  };
  expect((await getItem()).isError).toBeFalsy();

  await api.signInContext(context, owner);
  await page.goto(`/settings/orgs/${org}`);
  const section = page.getByRole("region", { name: "Remote MCP clients" });
  const allowed = section.getByLabel(`Remote MCP clients may read ${org}'s private items`);
  await expect(allowed).toBeChecked();
  await allowed.uncheck();
  await section.getByRole("button", { name: "Save the remote MCP setting" }).click();
  await expect(section).toContainText(`Saved: remote MCP clients no longer see ${org}'s private items.`);
  await expect(section).toContainText("Remote MCP clients see none of");

  const hidden = await getItem();
  expect(hidden.isError).toBe(true);
  expect(JSON.parse(hidden.content[0].text).error.code).toBe("ITEM_NOT_FOUND");
  const pulled = await api.call("GET", `/v1/pull/knowledge/${id}`, { token });
  expect(pulled.status).toBe(200);

  // A plain member reads the setting but has no control.
  const member = await api.signUp();
  await api.call("POST", `/v1/orgs/${org}/invitations`, { session: owner, json: { username: member.username, role: "member" }, expect: 201 });
  const invitation = ((await api.call("GET", "/v1/me/invitations", { session: member, expect: 200 })).body!.invitations as { id: string }[])[0]!;
  await api.call("POST", `/v1/me/invitations/${invitation.id}/accept`, { session: member, expect: 200 });
  const memberContext = await browser.newContext({ baseURL: server.baseURL });
  await api.signInContext(memberContext, member);
  const memberPage = await memberContext.newPage();
  await memberPage.goto(`/settings/orgs/${org}`);
  const memberSection = memberPage.getByRole("region", { name: "Remote MCP clients" });
  await expect(memberSection).toContainText("Remote MCP clients see none of");
  await expect(memberSection.getByRole("checkbox")).toHaveCount(0);
  await memberContext.close();

  await allowed.check();
  await section.getByRole("button", { name: "Save the remote MCP setting" }).click();
  await expect(section).toContainText(`Saved: remote MCP clients of ${org}'s members see its private items.`);
  expect((await getItem()).isError).toBeFalsy();
});
