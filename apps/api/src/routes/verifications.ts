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
import { createRoute } from "@hono/zod-openapi";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as oauth from "openid-client";
import { z } from "zod";
import { RyeError, startVerificationRequestSchema, transferVerificationRequestSchema, verificationListSchema, verificationSchema, verifiedBadgeListSchema } from "@rye/core";
import { access, errors, json, jsonRequest, noBody } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
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

const MANAGE = "org:admin";

// ---------------------------------------------------------------- requests and answers (@rye/core: the CLI's `rye org verify` reads them)
const StartVerificationRequest = startVerificationRequestSchema.meta({ id: "StartVerificationRequest" });
const TransferVerificationRequest = transferVerificationRequestSchema.meta({ id: "TransferVerificationRequest" });
const Verification = verificationSchema;
const VerificationList = verificationListSchema.meta({ id: "VerificationList" });
const VerifiedBadges = verifiedBadgeListSchema.meta({ id: "VerifiedBadges" });
const RemovedVerification = z.object({ removed: z.literal(true) }).meta({ id: "RemovedVerification" });
const GithubCallbackQuery = z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() });

// ---------------------------------------------------------------- routes
const claims = "/v1/orgs/{name}/verifications";
const NOT_YOURS: [number, string] = [403, "FORBIDDEN: not an owner or admin of the organization, or a token without org:admin"];
const NOT_FOUND: [number, string] = [404, "NOT_FOUND: no such organization or claim"];

export const startVerificationRoute = createRoute({
  method: "post",
  path: claims,
  operationId: "startVerification",
  summary: "Claim a DNS domain or GitHub organization for the organization: the answer says how to prove it (owners and admins)",
  tags: ["orgs"],
  ...access("caller+csrf", [MANAGE]),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(StartVerificationRequest) },
  responses: {
    201: json(Verification, "A new claim (200: the pending or verified claim that already existed, or a renewed challenge)"),
    200: json(Verification, "The pending or verified claim that already existed, or the claim with a renewed challenge"),
    ...errors([400, "BAD_REQUEST; INVALID_DOMAIN; VALIDATION_FAILED: not a GitHub organization name"], NOT_YOURS, NOT_FOUND, [409, "LIMIT_EXCEEDED: 20 claims"], 413),
  },
});
export const listVerificationsRoute = createRoute({
  method: "get",
  path: claims,
  operationId: "listVerifications",
  summary: "The organization's claims (members; challenge values for owners and admins)",
  tags: ["orgs"],
  ...access("caller"),
  responses: { 200: json(VerificationList, "Claims, oldest first"), ...errors([403, "FORBIDDEN: not a member"], NOT_FOUND) },
});
export const checkVerificationRoute = createRoute({
  method: "post",
  path: `${claims}/{id}/check`,
  operationId: "checkVerification",
  summary: "Look the DNS challenge up now: verifies a pending claim, re-verifies a verified one (which lapses when the record is gone)",
  tags: ["orgs"],
  ...access("caller+csrf", [MANAGE]),
  responses: {
    200: json(Verification, "Verified"),
    ...errors(
      [400, "BAD_REQUEST: a GitHub claim (proven by signing in)"],
      NOT_YOURS,
      NOT_FOUND,
      [409, "VERIFICATION_RECORD_MISSING: no TXT record at _rye.<domain> (yet); VERIFICATION_RECORD_MISMATCH: records without this challenge"],
      [410, "VERIFICATION_EXPIRED: the challenge expired; start again"],
      [503, "VERIFICATION_DNS_UNAVAILABLE: the resolver did not answer"],
    ),
  },
});
export const removeVerificationRoute = createRoute({
  method: "delete",
  path: `${claims}/{id}`,
  operationId: "removeVerification",
  summary: "Drop a claim (a verified name loses its badge)",
  tags: ["orgs"],
  ...access("caller+csrf", [MANAGE]),
  responses: { 200: json(RemovedVerification, "Removed"), ...errors(NOT_YOURS, NOT_FOUND) },
});
export const transferVerificationRoute = createRoute({
  method: "post",
  path: `${claims}/{id}/transfer`,
  operationId: "transferVerification",
  summary: "Hand a verified name to another organization (owner here, owner or admin there)",
  tags: ["orgs"],
  ...access("caller+csrf", [MANAGE]),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(TransferVerificationRequest) },
  responses: {
    200: json(Verification, "Transferred"),
    ...errors(400, [403, "FORBIDDEN: not an owner here, or not an owner or admin of the receiving organization"], NOT_FOUND, [409, "CONFLICT: the claim is not verified"], 413),
  },
});
export const startGithubVerificationRoute = createRoute({
  method: "get",
  path: `${claims}/{id}/github`,
  operationId: "startGithubVerification",
  summary: "Prove a GitHub organization claim: to GitHub to sign in (scope read:org) as one of its owners (a browser with the registry session)",
  tags: ["orgs"],
  ...access("caller", [MANAGE]),
  responses: {
    302: noBody("To GitHub's authorization endpoint; sets the sealed flow cookie (Cache-Control: no-store)", { Location: { required: true, schema: { type: "string", format: "uri" } } }),
    ...errors([400, "BAD_REQUEST: a domain claim"], NOT_YOURS, NOT_FOUND, [410, "VERIFICATION_EXPIRED"], [503, "UNAVAILABLE: no GitHub provider configured"]),
  },
});
export const finishGithubVerificationRoute = createRoute({
  method: "get",
  path: "/v1/verifications/github/callback",
  operationId: "finishGithubVerification",
  summary: "GitHub's redirect back: the signed-in GitHub account's membership is checked (active admin proves it)",
  tags: ["orgs"],
  ...access("caller"),
  request: { query: GithubCallbackQuery },
  responses: {
    302: noBody("To the organization's verification settings page with ?github=verified or ?github=<error code> (VERIFICATION_NOT_MEMBER, UNAVAILABLE)", {
      Location: { required: true, schema: { type: "string", format: "uri-reference" } },
    }),
    ...errors([400, "No flow cookie from this browser, expired, or state mismatch"], [403, "FORBIDDEN: started by another registry account, or no longer an owner or admin"], 404, [410, "VERIFICATION_EXPIRED"]),
  },
});
export const verifiedNamesRoute = createRoute({
  method: "get",
  path: "/v1/namespaces/{name}/verified",
  operationId: "getVerifiedNames",
  summary: "A namespace's verified domains and GitHub organizations (public)",
  tags: ["orgs"],
  ...access("none"),
  responses: { 200: json(VerifiedBadges, "Verified names"), ...errors(404) },
});

export function verificationRoutes(deps: AppDeps) {
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
  return contractRouter()
    .openapi(startVerificationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = c.req.valid("json");
      const { verification, created } = await startVerification(db, actor, c.req.param("name"), body, { challengeTtlMs: settings.challengeTtlMs });
      return c.json(verification, created ? 201 : 200);
    })
    .openapi(listVerificationsRoute, async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ verifications: await listVerifications(db, actor, c.req.param("name")) }, 200);
    })
    .openapi(checkVerificationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const row = await claimForCheck(db, actor, c.req.param("name"), c.req.param("id"));
      if (row.kind !== "dns") {
        throw new RyeError("BAD_REQUEST", "GitHub organizations are proven by signing in at GitHub, not by a check", { hint: `Open ${verificationView(row, true).instructions?.authorize_path ?? "the authorize path"} in a browser while signed in.` });
      }
      assertChallengeLive(row);
      const outcome = await checkDnsChallenge(resolver, row.subject, row.challenge);
      const after = await recordCheck(db, actor, row, outcome);
      if (!outcome.ok) throw checkError(after, outcome);
      return c.json(verificationView(after, true), 200);
    })
    .openapi(removeVerificationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await removeVerification(db, actor, c.req.param("name"), c.req.param("id")), 200);
    })
    .openapi(transferVerificationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await transferVerification(db, actor, c.req.param("name"), c.req.param("id"), c.req.valid("json").to_org), 200);
    })
    .openapi(startGithubVerificationRoute, async (c) => {
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
    .openapi(finishGithubVerificationRoute, async (c) => {
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
    .openapi(verifiedNamesRoute, async (c) => {
      const raw = c.req.param("name");
      const name = lookupName(raw);
      const verified = name ? await verifiedBadges(db, name) : null;
      if (!name || !verified) throw new RyeError("NOT_FOUND", `Namespace ${JSON.stringify(raw.slice(0, 64))} does not exist`);
      c.header("Cache-Control", "public, max-age=60");
      return c.json({ namespace: name, verified }, 200);
    });
}
