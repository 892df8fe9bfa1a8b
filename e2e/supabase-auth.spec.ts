/**
 * Supabase Auth on the website (SUPABASE_URL + SUPABASE_ANON_KEY): the sign-in page offers a Supabase form; the
 * browser signs in with supabase-js against the project (a GoTrue stand-in, helpers/fake-supabase-auth.ts), the
 * registry verifies the access token against the project's JWKS and opens its own session, and the visitor lands
 * on `next` signed in. A wrong password shows Supabase's message; sign-up through Supabase creates the account.
 */
import { expect, test as base, uniqueName } from "./fixtures.ts";
import { type FakeSupabaseAuth, startFakeSupabaseAuth } from "./helpers/fake-supabase-auth.ts";
import { startServer } from "./helpers/server.ts";

// This file's server knows the Supabase project (one server per worker, as in fixtures.ts).
const test = base.extend<{ supabase: FakeSupabaseAuth }, { supabaseProject: FakeSupabaseAuth }>({
  supabaseProject: [
    async ({}, use) => {
      const project = await startFakeSupabaseAuth();
      try {
        await use(project);
      } finally {
        await project.close();
      }
    },
    { scope: "worker" },
  ],
  server: [
    async ({ supabaseProject }, use) => {
      const server = await startServer({ env: { SUPABASE_URL: supabaseProject.url, SUPABASE_ANON_KEY: supabaseProject.anonKey } });
      try {
        await use(server);
      } finally {
        await server.stop();
      }
    },
    { scope: "worker", timeout: 300_000 },
  ],
  supabase: async ({ supabaseProject }, use) => use(supabaseProject),
});

test("sign in with Supabase: wrong password refused, then signed in on next=", async ({ page, supabase }) => {
  const name = uniqueName("sb");
  const email = `${name}@example.test`;
  supabase.users.set(email, { id: crypto.randomUUID(), email, password: "correct horse battery", confirmed: true });

  await page.goto("/login?next=/settings");
  const form = page.getByRole("form", { name: "Sign in with Supabase" });
  await expect(form).toBeVisible();
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill("wrong");
  await form.getByRole("button", { name: "Sign in with Supabase" }).click();
  await expect(form.getByRole("alert")).toContainText("Invalid login credentials");

  await form.getByLabel("Password").fill("correct horse battery");
  await form.getByRole("button", { name: "Sign in with Supabase" }).click();
  await expect(page).toHaveURL(/\/settings/);
  await expect(page.getByRole("banner").getByRole("link", { name })).toBeVisible();
  // The browser talked to Supabase; the registry checked the token's keys and the email's confirmation.
  expect(supabase.requests).toContain("POST /auth/v1/token?grant_type=password");
  expect(supabase.requests).toContain("GET /auth/v1/.well-known/jwks.json");
  expect(supabase.requests).toContain("GET /auth/v1/user");
  // The local form is still there for local accounts.
  await page.context().clearCookies();
  await page.goto("/login");
  await expect(page.getByLabel("Username or email")).toBeVisible();
});

test("sign up with Supabase creates the rye account", async ({ page, supabase, baseURL }) => {
  const name = uniqueName("sbnew");
  await page.goto("/signup");
  const form = page.getByRole("form", { name: "Sign up with Supabase" });
  await form.getByLabel("Email").fill(`${name}@example.test`);
  await form.getByLabel("Password").fill("a long enough password");
  await form.getByRole("button", { name: "Sign up with Supabase" }).click();
  await expect(page).toHaveURL(`${baseURL}/`);
  await expect(page.getByRole("banner").getByRole("link", { name })).toBeVisible();
  expect(supabase.users.has(`${name}@example.test`)).toBe(true);
});
