/**
 * Namespace verification (services/verification/, docs/namespace-verification.md):
 *   POST   /v1/orgs/{name}/verifications  {kind, subject}          start a claim (owners, admins); the answer has the challenge
 *   GET    /v1/orgs/{name}/verifications                           the claims (members; challenge values for owners and admins)
 *   POST   /v1/orgs/{name}/verifications/{id}/check                prove a DNS claim now (also re-verifies a verified one)
 *   DELETE /v1/orgs/{name}/verifications/{id}                      drop a claim (owners, admins)
 *   POST   /v1/orgs/{name}/verifications/{id}/transfer  {to_org}    hand a verified name over (owner here, owner/admin there)
 *   GET    /v1/namespaces/{name}/verified                          the verified names of a namespace: public
 * Mutations take a bearer token with org:admin, or the website's session cookie + CSRF token.
 */
import { Hono } from "hono";
import { RyeError, startVerificationRequestSchema, transferVerificationRequestSchema } from "@rye/core";
import { lookupName } from "../auth/usernames.ts";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import { checkDnsChallenge } from "../services/verification/dns-check.ts";
import { createTxtResolver } from "../services/verification/dns-resolver.ts";
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
import { jsonBody, requireCaller } from "./accounts.ts";
import { parseBody } from "./items.ts";

const MANAGE = "org:admin";

export function verificationRoutes(deps: AppDeps): Hono<AppEnv> {
  const { db } = deps;
  const settings = deps.config.verification;
  const resolver = createTxtResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs });
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
    .get("/v1/namespaces/:name/verified", async (c) => {
      const raw = c.req.param("name");
      const name = lookupName(raw);
      const verified = name ? await verifiedBadges(db, name) : null;
      if (!name || !verified) throw new RyeError("NOT_FOUND", `Namespace ${JSON.stringify(raw.slice(0, 64))} does not exist`);
      c.header("Cache-Control", "public, max-age=60");
      return c.json({ namespace: name, verified });
    });
}
