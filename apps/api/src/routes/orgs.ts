/**
 * Organizations: create, view, invitations, members and roles, organization-owned CI tokens; and the
 * caller's side: their organizations and the invitations addressed to them (`/v1/me/orgs`,
 * `/v1/me/invitations`), which the website's settings list.
 */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { isoTimestampSchema } from "@rye/core";
import { NAME_MAX_LENGTH } from "../auth/usernames.ts";
import type { SameKeys } from "../contract/operation.ts";
import { access, declared, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";
import {
  acceptInvitation,
  acceptInvitationById,
  changeRole,
  createOrg,
  createOrgToken,
  declineInvitation,
  describeOrg,
  INVITATION_TTL_MS,
  inviteMember,
  listMyInvitations,
  listMyOrgs,
  listOrgInvitations,
  listOrgTokens,
  ORG_TOKEN_SCOPES,
  orgRemoteMcp,
  removeMember,
  revokeOrgInvitation,
  revokeOrgToken,
  setOrgRemoteMcp,
} from "../services/orgs.ts";
import { currentCaller, JSON_BODY, jsonBody, NAME_RULES, plainText, requireCaller, TOO_LARGE } from "./accounts.ts";
import { CreatedToken, TokenInfo, tokenRequestSchema, toTokenRequest } from "./tokens.ts";

const timestamp = isoTimestampSchema;
const role = z.enum(["owner", "admin", "member"]);

// ---------------------------------------------------------------- requests
const CreateOrgRequest = z.strictObject({ name: z.string().max(100).meta({ description: NAME_RULES }), display_name: plainText(100).optional() }).meta({ id: "CreateOrgRequest" });
const InviteRequest = z
  .union([z.strictObject({ username: z.string().max(NAME_MAX_LENGTH), role: role.default("member") }), z.strictObject({ email: z.string().max(300), role: role.default("member") })])
  .meta({ id: "InviteRequest", description: "Exactly one of username (an existing user) and email. Only owners invite owners." });
const AcceptInvitationRequest = z.strictObject({ token: z.string().min(1).max(200) }).meta({ id: "AcceptInvitationRequest" });
const RoleRequest = z.strictObject({ role }).meta({ id: "RoleRequest" });
const RemoteMcpRequest = z
  .strictObject({ allowed: z.boolean().meta({ description: "false: remote MCP clients see none of the organization's private items and held versions." }) })
  .meta({ id: "OrgRemoteMcpRequest" });

// ---------------------------------------------------------------- answers
export const OrgCreated = z.object({ name: z.string(), display_name: z.string(), role: z.literal("owner"), created_at: timestamp }).meta({ id: "OrgCreated" });
const Org = z
  .object({
    name: z.string(),
    display_name: z.string(),
    item_count: z.number().int().meta({ description: "Public items; every item for members." }),
    created_at: timestamp,
    role: role.optional().meta({ description: "Members only: the caller's role." }),
    members: z.array(z.object({ username: z.string(), role, joined_at: timestamp })).optional().meta({ description: "Members only." }),
  })
  .meta({ id: "Org" });
const Invitation = z
  .object({
    id: z.uuid(),
    token: z.string().meta({ description: `The invitation secret (rye_inv_…), shown this once; valid ${INVITATION_TTL_MS / 86_400_000} days, for POST /v1/orgs/invitations/accept. A new invitation for the same person revokes the previous one.` }),
    org: z.string(),
    username: z.string().nullable(),
    email: z.string().nullable(),
    role,
    expires_at: timestamp,
  })
  .meta({ id: "Invitation" });
const InvitationAccepted = z.object({ org: z.string(), role }).meta({ id: "InvitationAccepted" });
const OrgRemoteMcp = z
  .object({
    org: z.string(),
    allowed: z.boolean().meta({
      description:
        "Whether remote MCP clients (the registry's /mcp, tokens issued to third-party OAuth clients) see the organization's private items and held versions. Public items are public either way.",
    }),
  })
  .meta({ id: "OrgRemoteMcp" });
const MemberRole = z.object({ org: z.string(), username: z.string(), role }).meta({ id: "MemberRole" });
const MemberRemoved = z.object({ org: z.string(), username: z.string(), removed: z.literal(true) }).meta({ id: "MemberRemoved" });
const OrgTokenInfo = TokenInfo.extend({ created_by: z.string().meta({ description: "Username of the member who created it." }) }).meta({ id: "OrgTokenInfo" });
const OrgTokenList = z.object({ tokens: z.array(OrgTokenInfo) }).meta({ id: "OrgTokenList" });
const MyOrg = z.object({
  name: z.string(),
  display_name: z.string(),
  role: role.meta({ description: "The caller's role." }),
  member_count: z.number().int(),
  joined_at: timestamp,
});
const MyOrgList = z.object({ orgs: z.array(MyOrg).meta({ description: "By name; a namespace-restricted token sees its namespace's organization only." }) }).meta({ id: "MyOrgList" });
const MyInvitation = z.object({
  id: z.uuid().meta({ description: "For POST /v1/me/invitations/{id}/accept or /decline." }),
  org: z.string(),
  org_display_name: z.string(),
  role,
  invited_by: z.string().nullable().meta({ description: "Username of the member who invited (null when that account is gone)." }),
  created_at: timestamp,
  expires_at: timestamp,
});
const MyInvitationList = z
  .object({ invitations: z.array(MyInvitation).meta({ description: "Pending invitations naming the caller's username, or their email once verified; newest first." }) })
  .meta({ id: "MyInvitationList" });
const InvitationDeclined = z.object({ org: z.string(), id: z.uuid(), declined: z.literal(true) }).meta({ id: "InvitationDeclined" });
const OrgInvitation = z.object({ id: z.uuid(), username: z.string().nullable(), email: z.string().nullable(), role, invited_by: z.string().nullable(), created_at: timestamp, expires_at: timestamp });
const OrgInvitationList = z
  .object({ invitations: z.array(OrgInvitation).meta({ description: "Pending (not accepted, revoked or expired), newest first; the secrets are never shown again." }) })
  .meta({ id: "OrgInvitationList" });
const InvitationRevoked = z.object({ org: z.string(), id: z.uuid(), revoked: z.literal(true) }).meta({ id: "InvitationRevoked" });

true satisfies SameKeys<z.output<typeof OrgCreated>, Awaited<ReturnType<typeof createOrg>>>;
true satisfies SameKeys<z.output<typeof Org>, Awaited<ReturnType<typeof describeOrg>>>;
true satisfies SameKeys<z.output<typeof Invitation>, Awaited<ReturnType<typeof inviteMember>>>;
true satisfies SameKeys<z.output<typeof InvitationAccepted>, Awaited<ReturnType<typeof acceptInvitation>>>;
true satisfies SameKeys<z.output<typeof MemberRole>, Awaited<ReturnType<typeof changeRole>>>;
true satisfies SameKeys<z.output<typeof MemberRemoved>, Awaited<ReturnType<typeof removeMember>>>;
true satisfies SameKeys<z.output<typeof OrgTokenInfo>, Awaited<ReturnType<typeof listOrgTokens>>[number]>;
true satisfies SameKeys<z.output<typeof MyOrg>, Awaited<ReturnType<typeof listMyOrgs>>[number]>;
true satisfies SameKeys<z.output<typeof MyInvitation>, Awaited<ReturnType<typeof listMyInvitations>>[number]>;
true satisfies SameKeys<z.output<typeof InvitationDeclined>, Awaited<ReturnType<typeof declineInvitation>>>;
true satisfies SameKeys<z.output<typeof OrgInvitation>, Awaited<ReturnType<typeof listOrgInvitations>>[number]>;
true satisfies SameKeys<z.output<typeof InvitationRevoked>, Awaited<ReturnType<typeof revokeOrgInvitation>>>;

// ---------------------------------------------------------------- routes
/** Mutations by bearer token need the org:admin scope; by session, the CSRF token (see requireCaller). */
const MANAGE = "org:admin";
const NO_ORG: [number, string] = [404, "No such organization"];
const NOT_PENDING: [number, string] = [404, "No pending invitation with this id for the caller (someone else's answers the same)"];
/** An owner's or admin's operation on /v1/orgs…: a bearer token with org:admin, or the session (+ CSRF but on GET). */
const managing = (method: "get" | "post" | "patch" | "delete") => access(method === "get" ? "caller" : "caller+csrf", [MANAGE]);

export const createOrgRoute = createRoute({
  method: "post",
  path: "/v1/orgs",
  operationId: "createOrg",
  summary: "Create an organization (and its namespace); the caller becomes its owner",
  tags: ["orgs"],
  ...managing("post"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(CreateOrgRequest) },
  responses: { 201: json(OrgCreated, "Created"), ...errors(JSON_BODY, [409, "The name is taken"], TOO_LARGE) },
});
export const acceptInvitationRoute = createRoute({
  method: "post",
  path: "/v1/orgs/invitations/accept",
  operationId: "acceptInvitation",
  summary: "Join an organization with an invitation (for the invited username, or the invited email once verified)",
  tags: ["orgs"],
  ...managing("post"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(AcceptInvitationRequest) },
  responses: {
    200: json(InvitationAccepted, "Joined"),
    ...errors(JSON_BODY, [403, "The invitation is for another account"], [404, "Unknown, expired, revoked or used invitation"], [409, "Already a member"], TOO_LARGE),
  },
});
export const myOrgsRoute = createRoute({
  method: "get",
  path: "/v1/me/orgs",
  operationId: "listMyOrgs",
  summary: "The caller's organizations and role in each",
  tags: ["orgs"],
  ...access("caller"),
  responses: { 200: json(MyOrgList, "Organizations"), ...errors([403, "Organization tokens"]) },
});
export const myInvitationsRoute = createRoute({
  method: "get",
  path: "/v1/me/invitations",
  operationId: "listMyInvitations",
  summary: "Pending invitations addressed to the caller",
  tags: ["orgs"],
  ...access("caller"),
  responses: { 200: json(MyInvitationList, "Invitations"), ...errors([403, "Organization tokens"]) },
});
export const acceptMyInvitationRoute = createRoute({
  method: "post",
  path: "/v1/me/invitations/{id}/accept",
  operationId: "acceptMyInvitation",
  summary: "Join an organization through a pending invitation addressed to the caller (no invitation secret needed)",
  tags: ["orgs"],
  ...managing("post"),
  responses: { 200: json(InvitationAccepted, "Joined"), ...errors(NOT_PENDING, [409, "Already a member"]) },
});
export const declineMyInvitationRoute = createRoute({
  method: "post",
  path: "/v1/me/invitations/{id}/decline",
  operationId: "declineMyInvitation",
  summary: "Decline a pending invitation addressed to the caller",
  tags: ["orgs"],
  ...managing("post"),
  responses: { 200: json(InvitationDeclined, "Declined"), ...errors(NOT_PENDING) },
});
export const getOrgRoute = createRoute({
  method: "get",
  path: "/v1/orgs/{name}",
  operationId: "getOrg",
  summary: "An organization: public view, plus members and the caller's role for members",
  tags: ["orgs"],
  ...access("optional-caller"),
  responses: { 200: json(Org, "The organization"), ...errors(404) },
});
export const inviteMemberRoute = createRoute({
  method: "post",
  path: "/v1/orgs/{name}/invitations",
  operationId: "inviteMember",
  summary: "Invite a user or an email address (owners and admins)",
  tags: ["orgs"],
  ...managing("post"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(InviteRequest) },
  responses: { 201: json(Invitation, "Invited; the invitation token is shown this once"), ...errors(JSON_BODY, [404, "No such organization or user"], [409, "Already a member"], TOO_LARGE) },
});
export const listOrgInvitationsRoute = createRoute({
  method: "get",
  path: "/v1/orgs/{name}/invitations",
  operationId: "listOrgInvitations",
  summary: "The organization's pending invitations (owners and admins)",
  tags: ["orgs"],
  ...managing("get"),
  responses: { 200: json(OrgInvitationList, "Invitations"), ...errors(NO_ORG) },
});
export const revokeOrgInvitationRoute = createRoute({
  method: "delete",
  path: "/v1/orgs/{name}/invitations/{id}",
  operationId: "revokeOrgInvitation",
  summary: "Withdraw a pending invitation (owners and admins; owner invitations: owners)",
  tags: ["orgs"],
  ...managing("delete"),
  responses: { 200: json(InvitationRevoked, "Withdrawn"), ...errors([404, "No such organization, or no pending invitation with this id in it"]) },
});
export const setMemberRoleRoute = createRoute({
  method: "patch",
  path: "/v1/orgs/{name}/members/{username}",
  operationId: "setMemberRole",
  summary: "Change a member's role (owners; admins for non-owners)",
  tags: ["orgs"],
  ...managing("patch"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(RoleRequest) },
  responses: { 200: json(MemberRole, "The member's role"), ...errors(JSON_BODY, [404, "No such organization, or not a member"], [409, "The last owner cannot be demoted"], TOO_LARGE) },
});
export const removeMemberRoute = createRoute({
  method: "delete",
  path: "/v1/orgs/{name}/members/{username}",
  operationId: "removeMember",
  summary: "Remove a member (owners and admins) or leave; the member's organization tokens are revoked",
  tags: ["orgs"],
  ...managing("delete"),
  responses: { 200: json(MemberRemoved, "Removed"), ...errors([404, "No such organization, or not a member"], [409, "The last owner cannot leave"]) },
});
export const createOrgTokenRoute = createRoute({
  method: "post",
  path: "/v1/orgs/{name}/tokens",
  operationId: "createOrgToken",
  summary: `Create an organization (CI) token: namespace forced to the organization, scopes ${ORG_TOKEN_SCOPES.join(" and ")} only`,
  tags: ["orgs"],
  ...managing("post"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(tokenRequestSchema) },
  responses: { 201: json(CreatedToken, "Created; the secret is in token, shown this once"), ...errors(JSON_BODY, NO_ORG, TOO_LARGE) },
});
export const listOrgTokensRoute = createRoute({
  method: "get",
  path: "/v1/orgs/{name}/tokens",
  operationId: "listOrgTokens",
  summary: "The organization's tokens, newest first (owners and admins)",
  tags: ["orgs"],
  ...managing("get"),
  responses: { 200: json(OrgTokenList, "Tokens (no secrets)"), ...errors(NO_ORG) },
});
export const revokeOrgTokenRoute = createRoute({
  method: "delete",
  path: "/v1/orgs/{name}/tokens/{id}",
  operationId: "revokeOrgToken",
  summary: "Revoke an organization token (owners and admins)",
  tags: ["orgs"],
  ...managing("delete"),
  responses: { 200: json(TokenInfo, "Revoked"), ...errors([404, "No such organization or token"]) },
});

export const getOrgRemoteMcpRoute = createRoute({
  method: "get",
  path: "/v1/orgs/{name}/remote-mcp",
  operationId: "getOrgRemoteMcp",
  summary: "Whether remote MCP clients see the organization's private items (members)",
  tags: ["orgs"],
  ...access("caller"),
  responses: { 200: json(OrgRemoteMcp, "The setting"), ...errors([403, "FORBIDDEN: not a member of the organization"], NO_ORG) },
});
export const setOrgRemoteMcpRoute = createRoute({
  method: "patch",
  path: "/v1/orgs/{name}/remote-mcp",
  operationId: "setOrgRemoteMcp",
  summary: "Allow or forbid remote MCP clients for the organization's private items (owners and admins; audited)",
  tags: ["orgs"],
  ...managing("patch"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(RemoteMcpRequest) },
  responses: { 200: json(OrgRemoteMcp, "The setting"), ...errors(JSON_BODY, NO_ORG, TOO_LARGE) },
});

export function orgRoutes(deps: AppDeps) {
  const { db } = deps;
  return contractRouter()
    .openapi(createOrgRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      const body = c.req.valid("json");
      return c.json(await createOrg(db, actor, { name: body.name, displayName: body.display_name }), 201);
    })
    .openapi(acceptInvitationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await acceptInvitation(db, actor, c.req.valid("json").token), 200);
    })
    .openapi(myOrgsRoute, async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ orgs: await listMyOrgs(db, actor) }, 200);
    })
    .openapi(myInvitationsRoute, async (c) => {
      const { actor } = await requireCaller(c, db);
      return c.json({ invitations: await listMyInvitations(db, actor) }, 200);
    })
    .openapi(acceptMyInvitationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await acceptInvitationById(db, actor, c.req.param("id")), 200);
    })
    .openapi(declineMyInvitationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await declineInvitation(db, actor, c.req.param("id")), 200);
    })
    .openapi(getOrgRoute, async (c) => {
      const caller = await currentCaller(c, db);
      return c.json(await describeOrg(db, caller?.actor ?? null, c.req.param("name")), 200);
    })
    .openapi(inviteMemberRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await inviteMember(db, actor, c.req.param("name"), c.req.valid("json")), 201);
    })
    .openapi(listOrgInvitationsRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json({ invitations: await listOrgInvitations(db, actor, c.req.param("name")) }, 200);
    })
    .openapi(revokeOrgInvitationRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await revokeOrgInvitation(db, actor, c.req.param("name"), c.req.param("id")), 200);
    })
    .openapi(setMemberRoleRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(await changeRole(db, actor, c.req.param("name"), c.req.param("username"), c.req.valid("json").role), 200);
    })
    .openapi(removeMemberRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(declared(MemberRemoved, await removeMember(db, actor, c.req.param("name"), c.req.param("username"))), 200);
    })
    .openapi(createOrgTokenRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(declared(CreatedToken, await createOrgToken(db, actor, c.req.param("name"), toTokenRequest(c.req.valid("json")))), 201);
    })
    .openapi(listOrgTokensRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(declared(OrgTokenList, { tokens: await listOrgTokens(db, actor, c.req.param("name")) }), 200);
    })
    .openapi(revokeOrgTokenRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(declared(TokenInfo, await revokeOrgToken(db, actor, c.req.param("name"), c.req.param("id"))), 200);
    })
    .openapi(getOrgRemoteMcpRoute, async (c) => {
      // Reading needs no particular scope (any member, as GET /v1/orgs/{name} shows its members).
      const { actor } = await requireCaller(c, db);
      return c.json(declared(OrgRemoteMcp, await orgRemoteMcp(db, actor, c.req.param("name"))), 200);
    })
    .openapi(setOrgRemoteMcpRoute, async (c) => {
      const { actor } = await requireCaller(c, db, MANAGE);
      return c.json(declared(OrgRemoteMcp, await setOrgRemoteMcp(db, actor, c.req.param("name"), c.req.valid("json").allowed)), 200);
    });
}
