/**
 * Namespace verification (services/verification/, docs/namespace-verification.md):
 *   POST   /v1/orgs/{name}/verifications  {kind, subject}          start a claim (owners, admins); the answer has the challenge
 *   GET    /v1/orgs/{name}/verifications                           the claims (members; challenge values for owners and admins)
 *   POST   /v1/orgs/{name}/verifications/{id}/check                prove a DNS claim now (also re-verifies a verified one)
 *   DELETE /v1/orgs/{name}/verifications/{id}                      drop a claim (owners, admins)
 *   POST   /v1/orgs/{name}/verifications/{id}/transfer  {to_org}    hand a verified name over (owner here, owner/admin there)
 *   GET    /v1/namespaces/{name}/verified                          the verified names of a namespace: public
 *   GET    /v1/orgs/{name}/verifications/{id}/github               a GitHub claim: to GitHub to sign in (browser, session)
 *   GET    /v1/verifications/github/callback                       GitHub's redirect back: membership checked, to the settings page
 * Mutations take a bearer token with org:admin, or the website's session cookie + CSRF token.
 */
import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as oauth from "openid-client";
import { RyeError, startVerificationRequestSchema, transferVerificationRequestSchema } from "@rye/core";
import type { GithubProvider } from "../auth/upstream/config.ts";
import { flowKeySource } from "../auth/upstream/flow-key.ts";
import { lookupName } from "../auth/usernames.ts";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { checkDnsChallenge } from "../services/verification/dns-check.ts";
import { createTxtResolver } from "../services/verification/dns-resolver.ts";
import {
  checkGithubMembership,
  GITHUB_VERIFY_COOKIE,
  GITHUB_VERIFY_COOKIE_PATH,
  GITHUB_VERIFY_TTL_SECONDS,
  githubAuthorizationUrl,
  githubVerifyKey,
  openGithubFlow,
  redeemGithubCode,
  sealGithubFlow,
} from "../services/verification/github.ts";
import {
  assertChallengeLive,
  checkError,
  claimForCheck,
  listVerifications,
  recordCheck,
  removeVerification,
  startVerification,
  transferVerification,
  verificationView,
  verifiedBadges,
} from "../services/verification/service.ts";
import { currentCaller, jsonBody, requireCaller } from "./accounts.ts";
import { parseBody } from "./items.ts";

const MANAGE = "org:admin";

export function verificationRoutes(deps: AppDeps): Hono<AppEnv> {
  const { db } = deps;
  const settings = deps.config.verification;
  const resolver = createTxtResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs });
  const publicUrl = deps.config.publicUrl;
  const secure = publicUrl.startsWith("https:");
  const flowKey = flowKeySource(deps.config.upstream.cookieSecret, deps.keyring);
  const callbackUrl = `${publicUrl}/v1/verifications/github/callback`;
  const githubProvider = (): GithubProvider => {
    const provider = deps.config.upstream.providers.find((p): p is GithubProvider => p.type === "github");
    if (!provider) throw new RyeError("UNAVAILABLE", "This registry has no GitHub sign-in configured, so GitHub organizations cannot be verified here", { hint: "Verify a domain instead, or ask the operator to add a GitHub provider to RYE_OIDC_PROVIDERS." });
    return provider;
  };
  return new Hono<AppEnv>()
    .post("/v1/orgs/:name/verifications", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = parseBody(startVerificationRequestSchema, await c.req.json());
      const { verification, created } = await startVerification(db, actor, c.req.param("name"), body, { challengeTtlMs: settings.challengeTtlMs });
      return c.json(verification, created ? 201 : 200);
    })
    .get("/v1/orgs/:name/verifications", async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ verifications: await listVerifications(db, actor, c.req.param("name")) });
    })
    .post("/v1/orgs/:name/verifications/:id/check", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const row = await claimForCheck(db, actor, c.req.param("name"), c.req.param("id"));
      if (row.kind !== "dns") {
        throw new RyeError("BAD_REQUEST", "GitHub organizations are proven by signing in at GitHub, not by a check", { hint: `Open ${verificationView(row, true).instructions?.authorize_path ?? "the authorize path"} in a browser while signed in.` });
      }
      assertChallengeLive(row);
      const outcome = await checkDnsChallenge(resolver, row.subject, row.challenge);
      const after = await recordCheck(db, actor, row, outcome);
      if (!outcome.ok) throw checkError(after, outcome);
      return c.json(verificationView(after, true));
    })
    .delete("/v1/orgs/:name/verifications/:id", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await removeVerification(db, actor, c.req.param("name"), c.req.param("id")));
    })
    .post("/v1/orgs/:name/verifications/:id/transfer", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = parseBody(transferVerificationRequestSchema, await c.req.json());
      return c.json(await transferVerification(db, actor, c.req.param("name"), c.req.param("id"), body.to_org));
    })
    .get("/v1/orgs/:name/verifications/:id/github", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const row = await claimForCheck(db, actor, c.req.param("name"), c.req.param("id"));
      if (row.kind !== "github") throw new RyeError("BAD_REQUEST", "This claim is a domain: it is proven by its DNS record", { hint: "POST …/check instead." });
      assertChallengeLive(row);
      const provider = githubProvider();
      const state = oauth.randomState();
      const codeVerifier = oauth.randomPKCECodeVerifier();
      const url = githubAuthorizationUrl(provider, { redirectUri: callbackUrl, state, codeChallenge: await oauth.calculatePKCECodeChallenge(codeVerifier) });
      const sealed = sealGithubFlow(githubVerifyKey(await flowKey()), { claimId: row.id, userId: actor.userId, state, codeVerifier });
      setCookie(c, GITHUB_VERIFY_COOKIE, sealed, { httpOnly: true, sameSite: "Lax", secure, path: GITHUB_VERIFY_COOKIE_PATH, maxAge: GITHUB_VERIFY_TTL_SECONDS });
      c.header("Cache-Control", "no-store");
      return c.redirect(url.href, 302);
    })
    .get("/v1/verifications/github/callback", async (c) => {
      c.header("Cache-Control", "no-store");
      const sealed = getCookie(c, GITHUB_VERIFY_COOKIE);
      deleteCookie(c, GITHUB_VERIFY_COOKIE, { path: GITHUB_VERIFY_COOKIE_PATH, secure }); // one use, whatever the outcome
      const flow = sealed ? openGithubFlow(githubVerifyKey(await flowKey()), sealed) : null;
      const state = c.req.query("state") ?? "";
      if (!flow || state.length !== flow.state.length || !timingSafeEqual(Buffer.from(state), Buffer.from(flow.state))) {
        throw new RyeError("BAD_REQUEST", "This GitHub sign-in does not belong to a verification started in this browser (or it expired)", { hint: "Start it again from the organization's Verified names page." });
      }
      const caller = await currentCaller(c, db);
      if (!caller || caller.actor.userId !== flow.userId) throw new RyeError("FORBIDDEN", "The verification was started by another registry account", { hint: "Sign in to the registry as the account that started it." });
      const row = await db.prisma.namespaceVerification.findUnique({ where: { id: flow.claimId }, include: { organization: { select: { name: true } } } });
      if (!row || row.kind !== "github") throw new RyeError("NOT_FOUND", "The verification claim no longer exists");
      // Still an owner or admin of the organization at the moment of proof.
      const claim = await claimForCheck(db, caller.actor, row.organization.name, row.id);
      assertChallengeLive(claim);
      const settingsPage = `/settings/orgs/${encodeURIComponent(claim.organization.name)}/verification`;
      if (c.req.query("error")) return c.redirect(`${settingsPage}?github=${encodeURIComponent("VERIFICATION_NOT_MEMBER")}&subject=${encodeURIComponent(claim.subject)}`, 302);
      const provider = githubProvider();
      const current = new URL(callbackUrl);
      current.search = new URL(c.req.url).search;
      let accessToken: string;
      try {
        accessToken = await redeemGithubCode(provider, current, flow);
      } catch (err) {
        throw new RyeError("UNAUTHORIZED", `${provider.name} refused the sign-in: ${(err as Error).message}`, { hint: "Start the verification again." });
      }
      const outcome = await checkGithubMembership(provider, accessToken, claim.subject);
      await recordCheck(db, caller.actor, claim, outcome);
      return c.redirect(`${settingsPage}?github=${outcome.ok ? "verified" : encodeURIComponent(outcome.code)}&subject=${encodeURIComponent(claim.subject)}`, 302);
    })
    .get("/v1/namespaces/:name/verified", async (c) => {
      const raw = c.req.param("name");
      const name = lookupName(raw);
      const verified = name ? await verifiedBadges(db, name) : null;
      if (!name || !verified) throw new RyeError("NOT_FOUND", `Namespace ${JSON.stringify(raw.slice(0, 64))} does not exist`);
      c.header("Cache-Control", "public, max-age=60");
      return c.json({ namespace: name, verified });
    });
}
