/**
 * Organizations: create, view, invitations, members and roles, organization-owned CI tokens; and the
 * caller's side: their organizations and the invitations addressed to them (`/v1/me/orgs`,
 * `/v1/me/invitations`), which the website's settings list.
 */
import { Hono } from "hono";
import { z } from "zod";
import { NAME_MAX_LENGTH } from "../auth/usernames.ts";
import type { AppEnv } from "../env.ts";
import type { AppDeps } from "../services/deps.ts";
import {
  acceptInvitation,
  acceptInvitationById,
  changeRole,
  createOrg,
  createOrgToken,
  declineInvitation,
  describeOrg,
  inviteMember,
  listMyInvitations,
  listMyOrgs,
  listOrgInvitations,
  listOrgTokens,
  removeMember,
  revokeOrgInvitation,
  revokeOrgToken,
} from "../services/orgs.ts";
import { currentCaller, jsonBody, plainText, requireCaller } from "./accounts.ts";
import { parseBody } from "./items.ts";
import { readTokenRequest } from "./tokens.ts";

const role = z.enum(["owner", "admin", "member"]);

const createSchema = z.strictObject({
  name: z.string().max(100),
  display_name: plainText(100).optional(),
});

const inviteSchema = z
  .strictObject({ username: z.string().max(NAME_MAX_LENGTH).optional(), email: z.string().max(300).optional(), role: role.default("member") })
  .refine((b) => (b.username === undefined) !== (b.email === undefined), { message: "Send exactly one of username and email" });

const acceptSchema = z.strictObject({ token: z.string().min(1).max(200) });
const roleSchema = z.strictObject({ role });

/** Mutations by bearer token need the org:admin scope; by session, the CSRF token (see requireCaller). */
const MANAGE = "org:admin";

export function orgRoutes(deps: AppDeps): Hono<AppEnv> {
  const { db } = deps;
  return new Hono<AppEnv>()
    .post("/v1/orgs", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = parseBody(createSchema, await c.req.json());
      return c.json(await createOrg(db, actor, { name: body.name, displayName: body.display_name }), 201);
    })
    .post("/v1/orgs/invitations/accept", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await acceptInvitation(db, actor, parseBody(acceptSchema, await c.req.json()).token));
    })
    .get("/v1/me/orgs", async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ orgs: await listMyOrgs(db, actor) });
    })
    .get("/v1/me/invitations", async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ invitations: await listMyInvitations(db, actor) });
    })
    .post("/v1/me/invitations/:id/accept", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await acceptInvitationById(db, actor, c.req.param("id")));
    })
    .post("/v1/me/invitations/:id/decline", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await declineInvitation(db, actor, c.req.param("id")));
    })
    .get("/v1/orgs/:name", async (c) => {
      const caller = await currentCaller(c, db);
      return c.json(await describeOrg(db, caller?.actor ?? null, c.req.param("name")));
    })
    .post("/v1/orgs/:name/invitations", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await inviteMember(db, actor, c.req.param("name"), parseBody(inviteSchema, await c.req.json())), 201);
    })
    .get("/v1/orgs/:name/invitations", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json({ invitations: await listOrgInvitations(db, actor, c.req.param("name")) });
    })
    .delete("/v1/orgs/:name/invitations/:id", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await revokeOrgInvitation(db, actor, c.req.param("name"), c.req.param("id")));
    })
    .patch("/v1/orgs/:name/members/:username", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = parseBody(roleSchema, await c.req.json());
      return c.json(await changeRole(db, actor, c.req.param("name"), c.req.param("username"), body.role));
    })
    .delete("/v1/orgs/:name/members/:username", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await removeMember(db, actor, c.req.param("name"), c.req.param("username")));
    })
    .post("/v1/orgs/:name/tokens", jsonBody, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await createOrgToken(db, actor, c.req.param("name"), await readTokenRequest(c)), 201);
    })
    .get("/v1/orgs/:name/tokens", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json({ tokens: await listOrgTokens(db, actor, c.req.param("name")) });
    })
    .delete("/v1/orgs/:name/tokens/:id", async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await revokeOrgToken(db, actor, c.req.param("name"), c.req.param("id")));
    });
}
