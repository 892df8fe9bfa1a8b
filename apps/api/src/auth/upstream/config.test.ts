/** RYE_OIDC_PROVIDERS / RYE_LOCAL_ACCOUNTS / RYE_COOKIE_SECRET parsing: defaults and errors that name the field. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RyeError } from "@rye/core";
import { isLoopbackHttp, loadSupabaseAuth, loadUpstreamAuthConfig, loadUpstreamProviders, localAccountsEnabled } from "./config.ts";

const providers = (list: unknown) => ({ RYE_OIDC_PROVIDERS: JSON.stringify(list) });
const oidc = { id: "acme", type: "oidc", name: "Acme", issuer: "https://sso.acme.example/", client_id: "rye", client_secret: "s" };
const github = { id: "github", type: "github", name: "GitHub", client_id: "Iv1.x", client_secret: "s" };

function rejects(env: NodeJS.ProcessEnv, pattern: RegExp, load: (env: NodeJS.ProcessEnv) => unknown = loadUpstreamProviders): void {
  assert.throws(() => load(env), (err: unknown) => err instanceof RyeError && err.code === "BAD_REQUEST" && pattern.test(err.message));
}

describe("upstream provider configuration", () => {
  test("defaults: scopes, sign-up, client authentication, GitHub endpoints; the issuer is kept verbatim", () => {
    const [a, g] = loadUpstreamProviders(providers([oidc, github]));
    assert.equal(a?.type === "oidc" && a.issuer, "https://sso.acme.example/");
    assert.equal(a?.scopes, "openid email profile");
    assert.equal(a?.allow_signup, true);
    assert.equal(a?.only, false);
    assert.equal(a?.token_endpoint_auth_method, "client_secret_basic");
    assert.equal(g?.scopes, "read:user user:email");
    assert.equal(g?.token_endpoint_auth_method, "client_secret_post");
    assert.ok(g?.type === "github");
    assert.equal(g.github_api_url, "https://api.github.com");
    assert.equal(g.authorization_url, "https://github.com/login/oauth/authorize");
    assert.equal(g.token_url, "https://github.com/login/oauth/access_token");
    const [pub] = loadUpstreamProviders(providers([{ ...oidc, client_secret: undefined }]));
    assert.equal(pub?.token_endpoint_auth_method, "none", "a public client (PKCE only)");
  });

  test("unset or empty means no providers; local accounts default on", () => {
    assert.deepEqual(loadUpstreamProviders({}), []);
    assert.deepEqual(loadUpstreamProviders({ RYE_OIDC_PROVIDERS: "  " }), []);
    assert.equal(localAccountsEnabled({}), true);
    assert.equal(localAccountsEnabled({ ...providers([oidc]), RYE_LOCAL_ACCOUNTS: "false" }), false);
  });

  test("errors name the provider and the field", () => {
    rejects({ RYE_OIDC_PROVIDERS: "[{" }, /not valid JSON/);
    rejects(providers({}), /expected array/);
    rejects(providers([{ ...oidc, issuer: undefined }]), /\[0\]\(acme\)\.issuer/);
    rejects(providers([{ ...oidc, issuer: "http://sso.acme.example" }]), /\[0\]\(acme\)\.issuer: must be an https:\/\/ URL/);
    rejects(providers([{ ...oidc, type: "saml" }]), /\[0\]\(acme\)\.type/);
    rejects(providers([{ ...oidc, id: "Acme SSO" }]), /\[0\]\.id|\[0\]\(Acme SSO\)\.id/);
    rejects(providers([{ ...oidc, only: "yes" }]), /\[0\]\(acme\)\.only/);
    rejects(providers([{ ...oidc, clientId: "x" }]), /clientId/);
    rejects(providers([oidc, { ...github, id: "acme" }]), /\[1\]\(acme\)\.id: duplicate provider id/);
    rejects(providers([{ ...github, github_api_url: "ftp://x" }]), /github_api_url/);
    rejects(providers([{ ...oidc, client_secret: undefined, token_endpoint_auth_method: "client_secret_post" }]), /acme\.client_secret: required/);
    rejects(providers([{ ...oidc, id: "supabase" }]), /reserved/);
  });

  test("only: the sole provider, and it turns local accounts off", () => {
    assert.equal(localAccountsEnabled(providers([{ ...oidc, only: true }])), false);
    rejects(providers([{ ...oidc, only: true }, github]), /\[0\]\(acme\)\.only: a provider marked "only" must be the sole provider/);
    rejects({ ...providers([{ ...oidc, only: true }]), RYE_LOCAL_ACCOUNTS: "true" }, /contradicts/, localAccountsEnabled);
    rejects({ RYE_LOCAL_ACCOUNTS: "false" }, /needs a provider in RYE_OIDC_PROVIDERS or SUPABASE_URL/, localAccountsEnabled);
    assert.equal(localAccountsEnabled({ RYE_LOCAL_ACCOUNTS: "false", SUPABASE_URL: "https://abcd.supabase.co" }), false);
    rejects({ RYE_LOCAL_ACCOUNTS: "maybe" }, /RYE_LOCAL_ACCOUNTS/, localAccountsEnabled);
  });

  test("Supabase Auth: off without SUPABASE_URL; URL checked; not with an \"only\" provider", () => {
    assert.equal(loadSupabaseAuth({}), null);
    assert.deepEqual(loadSupabaseAuth({ SUPABASE_URL: "https://abcd.supabase.co/" }), { url: "https://abcd.supabase.co", anonKey: undefined, allowSignup: true });
    assert.equal(loadSupabaseAuth({ SUPABASE_URL: "https://abcd.supabase.co", SUPABASE_ANON_KEY: "k", RYE_SUPABASE_ALLOW_SIGNUP: "false" })?.allowSignup, false);
    rejects({ SUPABASE_URL: "http://abcd.supabase.co" }, /SUPABASE_URL: must be an https/, loadSupabaseAuth);
    rejects({ SUPABASE_URL: "https://abcd.supabase.co", RYE_SUPABASE_ALLOW_SIGNUP: "yes" }, /RYE_SUPABASE_ALLOW_SIGNUP/, loadSupabaseAuth);
    rejects({ SUPABASE_URL: "https://abcd.supabase.co", ...providers([{ ...oidc, only: true }]) }, /contradicts/, loadSupabaseAuth);
  });

  test("RYE_COOKIE_SECRET must be long enough", () => {
    assert.equal(loadUpstreamAuthConfig({}).cookieSecret, undefined);
    assert.equal(loadUpstreamAuthConfig({ RYE_COOKIE_SECRET: "x".repeat(32) }).cookieSecret, "x".repeat(32));
    rejects({ RYE_COOKIE_SECRET: "short" }, /RYE_COOKIE_SECRET/, loadUpstreamAuthConfig);
  });

  test("plain http only for loopback hosts", () => {
    for (const url of ["http://localhost:8080", "http://127.0.0.1", "http://[::1]:3000/x"]) assert.equal(isLoopbackHttp(url), true, url);
    for (const url of ["https://localhost", "http://127.0.0.1.evil.example", "http://localhost.evil.example", "http://10.0.0.1"]) assert.equal(isLoopbackHttp(url), false, url);
  });
});
