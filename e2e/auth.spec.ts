/**
 * Accounts in the browser: sign up (with the API's field errors), sign out and in again (wrong
 * password, `?next=` honoured, foreign `next` refused), the sign-in forms without JavaScript, and the
 * settings: a personal token created (secret shown once, it authenticates) and revoked, an author key
 * checked in the browser (fingerprint) then added and removed, an organization created, a member
 * invited, accepted, promoted, and the last owner protected.
 */
import { generateKeyPair } from "@rye/core";
import { expect, test, uniqueName } from "./fixtures.ts";

test("sign up with field errors, sign out, sign in again (wrong password first), next= honoured", async ({ page, api }) => {
  const username = uniqueName("auth");
  const password = `${username}-correct-horse-battery`;

  await page.goto("/signup");
  await expect(page.getByRole("heading", { level: 1, name: /create your rye account/i })).toBeVisible();
  await page.getByLabel("Username", { exact: true }).fill(username);
  await page.getByLabel("Email").fill(`${username}@example.test`);
  // Long enough for the browser's own check, but the API refuses a password equal to the username.
  await page.getByLabel("Password", { exact: true }).fill(username);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not valid" })).toBeVisible();
  await expect(page.getByText("The password must not be your username")).toBeVisible();
  await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Username", { exact: true })).toHaveValue(username);

  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/$/);
  const header = page.getByRole("banner");
  await expect(header.getByRole("link", { name: username })).toBeVisible();

  // A second account with the same name: the API's conflict is shown next to the field.
  const other = await page.context().browser()!.newContext();
  const otherPage = await other.newPage();
  await otherPage.goto(new URL("/signup", page.url()).href);
  await otherPage.getByLabel("Username", { exact: true }).fill(username);
  await otherPage.getByLabel("Email").fill(`other-${username}@example.test`);
  await otherPage.getByLabel("Password", { exact: true }).fill(password);
  await otherPage.getByRole("button", { name: "Create account" }).click();
  await expect(otherPage.getByText(`The name ${username} is taken`).first()).toBeVisible();
  await expect(otherPage.getByLabel("Username", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await other.close();

  await header.getByRole("button", { name: "Sign out" }).click();
  await expect(header.getByRole("link", { name: "Sign in" })).toBeVisible();
  await expect(header.getByRole("link", { name: username })).toHaveCount(0);

  // A signed-in-only page sends the visitor to sign in and back.
  await page.goto("/settings/keys");
  await expect(page).toHaveURL(/\/login\?next=%2Fsettings%2Fkeys$/);
  await page.getByLabel("Username or email").fill(username);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong username, email or password" })).toBeVisible();
  await expect(page.getByLabel("Username or email")).toHaveValue(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/settings\/keys$/);
  await expect(page.getByRole("heading", { level: 1, name: "Keys" })).toBeVisible();

  // The session is the API's: the same cookie authenticates /v1/auth/session.
  const session = await page.request.get("/v1/auth/session");
  expect((await session.json()).user.username).toBe(username);
  expect(api.baseURL).toBeTruthy();
});

test("next= only leads to this site; sign-in works without JavaScript", async ({ browser, api, baseURL }) => {
  const account = await api.signUp();
  const context = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const page = await context.newPage();
  await page.goto(`/login?next=${encodeURIComponent("//evil.example/steal")}`);
  await page.getByLabel("Username or email").fill(account.email);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${baseURL}/`);
  await expect(page.getByRole("banner").getByRole("link", { name: account.username })).toBeVisible();

  // Signed in already: the sign-in page forwards to next at once.
  await page.goto(`/login?next=${encodeURIComponent("/settings/tokens")}`);
  await expect(page).toHaveURL(/\/settings\/tokens$/);

  // Sign out without JavaScript too (a form post to a server action).
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
  await context.close();
});

test("tokens: create one (secret shown once, it works), then revoke it after confirming", async ({ page, api, signedIn }) => {
  await page.goto("/settings/tokens");
  await expect(page.getByRole("heading", { level: 1, name: "Tokens" })).toBeVisible();
  await expect(page.getByText("No tokens yet")).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill("ci deploy");
  await page.getByRole("checkbox", { name: /items:write/ }).check();
  await page.getByLabel("Expires after").selectOption("30");
  await page.getByRole("button", { name: "Create token" }).click();

  const secret = page.getByTestId("new-token-secret");
  await expect(secret).toHaveText(/^rye_pat_[A-Za-z0-9_-]{20,}$/);
  const token = (await secret.textContent())!;
  await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
  const me = await api.call("GET", "/v1/me", { token, expect: 200 });
  expect(me.body!.username).toBe(signedIn.username);
  expect(me.body!.scopes).toEqual(["items:read", "items:write"]);

  const list = page.getByRole("list", { name: "Tokens" });
  const row = list.getByRole("listitem").filter({ hasText: "ci deploy" });
  await expect(row).toContainText("Active");
  await expect(row).toContainText(token.slice(0, 12));
  await page.getByRole("button", { name: "Done, I copied it" }).click();
  await expect(secret).toHaveCount(0);
  await page.reload();
  await expect(page.getByText(token)).toHaveCount(0); // shown once only

  await row.getByRole("button", { name: "Revoke token ci deploy" }).click();
  await row.getByRole("button", { name: "Cancel" }).click();
  expect((await api.call("GET", "/v1/me", { token })).status).toBe(200);
  await row.getByRole("button", { name: "Revoke token ci deploy" }).click();
  await row.getByRole("group").getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("Revoked");
  expect((await api.call("GET", "/v1/me", { token })).status).toBe(401);
});

test("keys: a pasted PEM is checked in the browser (fingerprint) before it is added; remove revokes it", async ({ page, api, signedIn }) => {
  const key = await generateKeyPair();
  await page.goto("/settings/keys");
  const pem = page.getByLabel("Public key (PEM)");
  await pem.fill("-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----");
  await expect(page.getByText("Not a PUBLIC KEY PEM block")).toBeVisible();
  await expect(page.getByRole("button", { name: "Add key" })).toBeDisabled();
  await pem.fill(key.privateKeyPem);
  await expect(page.getByText("This is a private key")).toBeVisible();
  // CRLF line ends: the fingerprint is the canonical PEM's, as the API computes it.
  await pem.fill(key.publicKey.pem.replace(/\n/g, "\r\n"));
  await expect(page.getByTestId("key-fingerprint")).toHaveText(key.publicKey.fingerprint);
  await page.getByLabel("Label (optional)").fill("laptop");
  await page.getByRole("button", { name: "Add key" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Key added" })).toContainText(key.publicKey.fingerprint);

  const row = page.getByRole("list", { name: "Keys" }).getByRole("listitem").filter({ hasText: key.publicKey.fingerprint });
  await expect(row).toContainText("laptop");
  await expect(row).toContainText("Active");
  const listed = await api.call("GET", "/v1/me/keys", { session: signedIn, expect: 200 });
  expect(listed.body!.keys.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([key.publicKey.fingerprint]);

  await row.getByRole("button", { name: `Remove key ${key.publicKey.fingerprint}` }).click();
  await row.getByRole("group").getByRole("button", { name: "Remove" }).click();
  await expect(row).toContainText("Revoked");
  const after = await api.call("GET", "/v1/me/keys", { session: signedIn, expect: 200 });
  expect(after.body!.keys[0].revoked).toBe(true);
});

test("organizations: create, invite by username, the invitee accepts, roles change, the last owner is protected", async ({ page, api, browser, baseURL, signedIn }) => {
  const org = uniqueName("org");
  await page.goto("/settings/orgs");
  await expect(page.getByText("You are not a member of any organization yet")).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(org);
  await page.getByLabel("Display name (optional)").fill("E2E Org");
  await page.getByRole("button", { name: "Create organization" }).click();
  await expect(page).toHaveURL(new RegExp(`/settings/orgs/${org}$`));
  await expect(page.getByRole("heading", { level: 1, name: "E2E Org" })).toBeVisible();
  const members = page.getByRole("list", { name: "Members" });
  await expect(members.getByRole("listitem")).toHaveCount(1);
  await expect(members).toContainText(signedIn.username);
  await expect(members).toContainText("owner");

  // The only owner cannot leave: the API's answer is shown.
  await members.getByRole("button", { name: `Leave ${org}` }).click();
  await members.getByRole("group").getByRole("button", { name: "Leave" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "last owner" })).toContainText("Make another member an owner first");

  // Invite someone by username: the link is shown once; the invitee also sees it in their settings.
  const invitee = await api.signUp();
  await page.getByLabel("Username or email").fill(invitee.username);
  await page.getByRole("button", { name: "Invite", exact: true }).click();
  await expect(page.getByTestId("invitation-link")).toHaveText(/\/invitations\?token=rye_inv_/);
  await expect(page.getByRole("list", { name: "Pending invitations" })).toContainText(invitee.username);

  const context = await browser.newContext({ baseURL });
  await api.signInContext(context, invitee);
  const inviteePage = await context.newPage();
  await inviteePage.goto("/settings/orgs");
  const invitation = inviteePage.getByRole("list", { name: "Pending invitations" }).getByRole("listitem").filter({ hasText: org });
  await expect(invitation).toContainText(`${signedIn.username} invited you`);
  await invitation.getByRole("button", { name: `Accept the invitation to ${org}` }).click();
  await expect(inviteePage).toHaveURL(new RegExp(`/settings/orgs/${org}\\?joined=1$`));
  await expect(inviteePage.getByRole("status").filter({ hasText: `You joined ${org} as member` })).toBeVisible();
  // Members see the members but manage nothing.
  await expect(inviteePage.getByRole("list", { name: "Members" }).getByRole("listitem")).toHaveCount(2);
  await expect(inviteePage.getByRole("heading", { name: "Invite a member" })).toHaveCount(0);
  await context.close();

  // The owner makes the new member an owner; then the first owner may leave.
  await page.reload();
  await expect(page.getByRole("list", { name: "Pending invitations" })).toHaveCount(0);
  const row = members.getByRole("listitem").filter({ hasText: invitee.username });
  await row.getByLabel(`Role of ${invitee.username}`, { exact: true }).selectOption("owner");
  await row.getByRole("button", { name: `Save the role of ${invitee.username}` }).click();
  await expect(row.getByText("Role saved.")).toBeVisible();
  const details = await api.call("GET", `/v1/orgs/${org}`, { session: signedIn, expect: 200 });
  expect(details.body!.members.find((m: { username: string }) => m.username === invitee.username).role).toBe("owner");

  // CI tokens of the organization: created with the organization's namespace.
  await page.getByRole("region", { name: "CI tokens" }).getByLabel("Name", { exact: true }).fill("deploy");
  await page.getByRole("region", { name: "CI tokens" }).getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token-secret")).toHaveText(/^rye_pat_/);
  const ciToken = (await page.getByTestId("new-token-secret").textContent())!;
  const me = await api.call("GET", "/v1/me", { token: ciToken, expect: 200 });
  expect(me.body!.token.namespace).toBe(org);

  await members.getByRole("button", { name: `Leave ${org}` }).click();
  await members.getByRole("group").getByRole("button", { name: "Leave" }).click();
  await expect(page).toHaveURL(/\/settings\/orgs$/);
  await expect(page.getByRole("list", { name: "Your organizations" })).toHaveCount(0);
});

test("an invitation link (/invitations?token=…) is accepted after signing in", async ({ page, api }) => {
  const owner = await api.signUp();
  const invitee = await api.signUp();
  const org = await api.createOrg(owner);
  const invitation = await api.call("POST", `/v1/orgs/${org}/invitations`, { session: owner, json: { username: invitee.username, role: "admin" }, expect: 201 });
  const link = `/invitations?token=${encodeURIComponent(invitation.body!.token)}`;

  await page.goto(link);
  await expect(page).toHaveURL(/\/login\?next=%2Finvitations%3Ftoken%3Drye_inv_/);
  await expect(page.getByText("Sign in to answer your organization invitation.")).toBeVisible();
  await page.getByLabel("Username or email").fill(invitee.username);
  await page.getByLabel("Password").fill(invitee.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`/invitations\\?token=rye_inv_`));
  await page.getByRole("button", { name: "Accept the invitation", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/settings/orgs/${org}\\?joined=1$`));
  await expect(page.getByRole("status").filter({ hasText: `You joined ${org} as admin` })).toBeVisible();

  // The link works once.
  await page.goto(link);
  await page.getByRole("button", { name: "Accept the invitation", exact: true }).click();
  await expect(page.getByRole("alert").filter({ hasText: "unknown, expired, revoked or already used" })).toBeVisible();
});
