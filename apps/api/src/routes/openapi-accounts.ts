/**
 * People in the OpenAPI document (openapi.ts renders it): sign-in through upstream identity
 * providers (upstream-auth.ts), local accounts, browser sessions and /v1/me (accounts.ts), personal
 * tokens (tokens.ts) and organizations (orgs.ts). Callers are a bearer token or the `rye_session`
 * cookie, which needs the session's CSRF token (`X-CSRF-Token`) on every method but GET and HEAD.
 */
import { registerKeySchema } from "./user-keys.ts";
import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/passwords.ts";
import { SCOPES } from "../auth/principal.ts";
import { FLOW_COOKIE, FLOW_TTL_SECONDS } from "../auth/upstream/flow-cookie.ts";
import { EMAIL_MAX_LENGTH, NAME_MAX_LENGTH, NAME_MIN_LENGTH } from "../auth/usernames.ts";
import { SESSION_COOKIE, SESSION_TTL_MS } from "../auth/web-sessions.ts";
import type { userView } from "../services/accounts.ts";
import type {
  acceptInvitation,
  changeRole,
  createOrg,
  declineInvitation,
  describeOrg,
  inviteMember,
  listMyInvitations,
  listMyOrgs,
  listOrgInvitations,
  listOrgTokens,
  removeMember,
  revokeOrgInvitation,
} from "../services/orgs.ts";
import { INVITATION_TTL_MS, ORG_TOKEN_SCOPES } from "../services/orgs.ts";
import type { issueToken, tokenView } from "../services/tokens.ts";
import { DEFAULT_TOKEN_DAYS, TOKEN_DISPLAY_PREFIX_LENGTH } from "../services/tokens.ts";
import { ACCOUNT_BODY_LIMIT_BYTES, plainText } from "./accounts.ts";
import type { NamespaceView } from "./namespaces.ts";
import type { Operation, Reply, SameKeys } from "../contract/operation.ts";
import { tokenRequestSchema } from "./tokens.ts";

const timestamp = z.iso.datetime();
const orgRole = z.enum(["owner", "admin", "member"]);
const NAME_RULES = `${NAME_MIN_LENGTH}-${NAME_MAX_LENGTH} lowercase letters, digits and single inner hyphens once trimmed and lowercased, not reserved (else VALIDATION_FAILED); users and organizations share one set of names`;

// ---------------------------------------------------------------- sign-in and sessions
const AuthProviders = z.object({
  providers: z.array(z.object({ id: z.string(), name: z.string(), type: z.enum(["oidc", "github", "supabase"]) })).meta({ description: "oidc and github: GET /v1/auth/oidc/{id}/start; supabase: POST /v1/auth/supabase/session." }),
  local_accounts: z.boolean().meta({ description: "Whether POST /v1/auth/signup and /v1/auth/login are open." }),
});
const UpstreamStartQuery = z.object({
  next: z.string().max(2048).optional().meta({ description: "Path on this registry to land on after sign-in (default /); absolute and protocol-relative URLs are refused." }),
});
const UpstreamCallbackQuery = z.object({
  state: z.string().meta({ description: "Must match this browser's sign-in flow." }),
  code: z.string().optional(),
  error: z.string().optional().meta({ description: "The provider refused (e.g. access_denied): 401." }),
  error_description: z.string().optional(),
  iss: z.string().optional().meta({ description: "RFC 9207, when the provider sends it." }),
});
const SupabaseSessionRequest = z.object({ access_token: z.string().max(16_384).meta({ description: "The Supabase Auth session's access token (asymmetrically signed JWT)." }) });
const SupabaseSession = z.object({ username: z.string(), csrf_token: z.string().meta({ description: "Send as X-CSRF-Token on cookie-authenticated changes." }) });
const User = z.object({ id: z.uuid(), username: z.string(), email: z.string().nullable(), email_verified: z.boolean() });
true satisfies SameKeys<z.output<typeof User>, ReturnType<typeof userView>>;
const Session = z.object({ user: User, csrf_token: z.string().meta({ description: "Send as X-CSRF-Token on cookie-authenticated changes." }) });
// Equivalent to the (private) signupSchema and loginSchema of accounts.ts.
const SignupRequest = z.strictObject({
  username: z.string().max(100).meta({ description: NAME_RULES }),
  email: z.string().max(EMAIL_MAX_LENGTH + 10),
  password: z.string().max(PASSWORD_MAX_LENGTH * 4).meta({ description: `${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters, neither the username nor the email (else VALIDATION_FAILED).` }),
});
const LoginRequest = z.strictObject({
  login: z.string().min(1).max(EMAIL_MAX_LENGTH + 10).meta({ description: "Username or email address." }),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH * 4),
});
const Me = User.extend({
  email: z.string().nullable().meta({ description: "null for an organization's CI token." }),
  scopes: z.array(z.string()).meta({ description: "What the caller may do: the token's scopes; every scope for a session." }),
  token: z
    .object({
      type: z.enum(["pat", "jwt"]).meta({ description: "pat: a personal or organization token (rye_pat_…); jwt: an OAuth access token." }),
      id: z.string(),
      org_id: z.uuid().nullable(),
      namespace: z.string().nullable(),
      item_pattern: z.string().nullable(),
      expires_at: timestamp.nullable().meta({ description: "null for access tokens and tokens that never expire." }),
    })
    .nullable()
    .meta({ description: "The bearer token; null for a session." }),
});

// ---------------------------------------------------------------- tokens
const TokenInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string().meta({ description: `The secret's first ${TOKEN_DISPLAY_PREFIX_LENGTH} characters, to tell tokens apart.` }),
  scopes: z.array(z.enum(SCOPES)),
  namespace: z.string().nullable().meta({ description: "The only namespace it may publish to." }),
  item_pattern: z.string().nullable().meta({ description: "The only item ids it may publish." }),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
  revoked: z.boolean(),
});
true satisfies SameKeys<z.output<typeof TokenInfo>, ReturnType<typeof tokenView>>;
const CreatedToken = z.object({ token: z.string().meta({ description: "The secret (rye_pat_…), shown this once." }), ...TokenInfo.shape });
true satisfies SameKeys<z.output<typeof CreatedToken>, Awaited<ReturnType<typeof issueToken>>>;
const TokenList = z.object({ tokens: z.array(TokenInfo) });
const UserKey = z.object({ fingerprint: z.string(), public_key: z.string(), label: z.string(), created_at: z.string(), revoked: z.boolean(), revoked_at: z.string().nullable() });
const UserKeyList = z.object({ keys: z.array(UserKey) });
const UserKeyChange = z.object({ status: z.enum(["registered", "already_registered", "revoked", "already_revoked"]), key: UserKey });
const OrgTokenInfo = TokenInfo.extend({ created_by: z.string().meta({ description: "Username of the member who created it." }) });
true satisfies SameKeys<z.output<typeof OrgTokenInfo>, Awaited<ReturnType<typeof listOrgTokens>>[number]>;
const OrgTokenList = z.object({ tokens: z.array(OrgTokenInfo) });

// ---------------------------------------------------------------- organizations (equivalents of the private schemas of orgs.ts)
const CreateOrgRequest = z.strictObject({ name: z.string().max(100).meta({ description: NAME_RULES }), display_name: plainText(100).optional() });
const OrgCreated = z.object({ name: z.string(), display_name: z.string(), role: z.literal("owner"), created_at: timestamp });
true satisfies SameKeys<z.output<typeof OrgCreated>, Awaited<ReturnType<typeof createOrg>>>;
const Org = z.object({
  name: z.string(),
  display_name: z.string(),
  item_count: z.number().int().meta({ description: "Public items; every item for members." }),
  created_at: timestamp,
  role: orgRole.optional().meta({ description: "Members only: the caller's role." }),
  members: z.array(z.object({ username: z.string(), role: orgRole, joined_at: timestamp })).optional().meta({ description: "Members only." }),
});
true satisfies SameKeys<z.output<typeof Org>, Awaited<ReturnType<typeof describeOrg>>>;
const InviteRequest = z
  .union([z.strictObject({ username: z.string().max(NAME_MAX_LENGTH), role: orgRole.default("member") }), z.strictObject({ email: z.string().max(300), role: orgRole.default("member") })])
  .meta({ description: "Exactly one of username (an existing user) and email. Only owners invite owners." });
const Invitation = z.object({
  id: z.uuid(),
  token: z.string().meta({ description: `The invitation secret (rye_inv_…), shown this once; valid ${INVITATION_TTL_MS / 86_400_000} days, for POST /v1/orgs/invitations/accept. A new invitation for the same person revokes the previous one.` }),
  org: z.string(),
  username: z.string().nullable(),
  email: z.string().nullable(),
  role: orgRole,
  expires_at: timestamp,
});
true satisfies SameKeys<z.output<typeof Invitation>, Awaited<ReturnType<typeof inviteMember>>>;
const AcceptInvitationRequest = z.strictObject({ token: z.string().min(1).max(200) });
const InvitationAccepted = z.object({ org: z.string(), role: orgRole });
true satisfies SameKeys<z.output<typeof InvitationAccepted>, Awaited<ReturnType<typeof acceptInvitation>>>;
const RoleRequest = z.strictObject({ role: orgRole });
const MemberRole = z.object({ org: z.string(), username: z.string(), role: orgRole });
true satisfies SameKeys<z.output<typeof MemberRole>, Awaited<ReturnType<typeof changeRole>>>;
const MemberRemoved = z.object({ org: z.string(), username: z.string(), removed: z.literal(true) });
true satisfies SameKeys<z.output<typeof MemberRemoved>, Awaited<ReturnType<typeof removeMember>>>;

// ---------------------------------------------------------------- namespaces (namespaces.ts)
const Namespace = z.object({
  name: z.string(),
  kind: z.enum(["user", "org"]),
  display_name: z.string(),
  created_at: timestamp,
  item_count: z.number().int().meta({ description: "Public items; every item for the namespace's owner or the organization's members." }),
  viewer_role: orgRole.nullable().meta({ description: "The caller's role: owner of their own user namespace, their role in an organization; null otherwise." }),
  members: z
    .array(z.object({ username: z.string(), role: orgRole, joined_at: timestamp }))
    .nullable()
    .meta({ description: "Organizations, for their members only (membership is not public); null for users and everyone else." }),
});
true satisfies SameKeys<z.output<typeof Namespace>, NamespaceView>;
const MyOrg = z.object({
  name: z.string(),
  display_name: z.string(),
  role: orgRole.meta({ description: "The caller's role." }),
  member_count: z.number().int(),
  joined_at: timestamp,
});
true satisfies SameKeys<z.output<typeof MyOrg>, Awaited<ReturnType<typeof listMyOrgs>>[number]>;
const MyOrgList = z.object({ orgs: z.array(MyOrg).meta({ description: "By name; a namespace-restricted token sees its namespace's organization only." }) });
const MyInvitation = z.object({
  id: z.uuid().meta({ description: "For POST /v1/me/invitations/{id}/accept or /decline." }),
  org: z.string(),
  org_display_name: z.string(),
  role: orgRole,
  invited_by: z.string().nullable().meta({ description: "Username of the member who invited (null when that account is gone)." }),
  created_at: timestamp,
  expires_at: timestamp,
});
true satisfies SameKeys<z.output<typeof MyInvitation>, Awaited<ReturnType<typeof listMyInvitations>>[number]>;
const MyInvitationList = z.object({ invitations: z.array(MyInvitation).meta({ description: "Pending invitations naming the caller's username, or their email once verified; newest first." }) });
const InvitationDeclined = z.object({ org: z.string(), id: z.uuid(), declined: z.literal(true) });
true satisfies SameKeys<z.output<typeof InvitationDeclined>, Awaited<ReturnType<typeof declineInvitation>>>;
const OrgInvitation = z.object({
  id: z.uuid(),
  username: z.string().nullable(),
  email: z.string().nullable(),
  role: orgRole,
  invited_by: z.string().nullable(),
  created_at: timestamp,
  expires_at: timestamp,
});
true satisfies SameKeys<z.output<typeof OrgInvitation>, Awaited<ReturnType<typeof listOrgInvitations>>[number]>;
const OrgInvitationList = z.object({ invitations: z.array(OrgInvitation).meta({ description: "Pending (not accepted, revoked or expired), newest first; the secrets are never shown again." }) });
const InvitationRevoked = z.object({ org: z.string(), id: z.uuid(), revoked: z.literal(true) });
true satisfies SameKeys<z.output<typeof InvitationRevoked>, Awaited<ReturnType<typeof revokeOrgInvitation>>>;

export const ACCOUNT_SCHEMAS: Record<string, z.ZodType> = {
  AuthProviders,
  SupabaseSessionRequest,
  SupabaseSession,
  User,
  Session,
  SignupRequest,
  LoginRequest,
  Me,
  TokenRequest: tokenRequestSchema,
  TokenInfo,
  CreatedToken,
  TokenList,
  UserKeyList,
  UserKeyChange,
  RegisterKeyRequest: registerKeySchema,
  OrgTokenInfo,
  OrgTokenList,
  CreateOrgRequest,
  OrgCreated,
  Org,
  InviteRequest,
  Invitation,
  AcceptInvitationRequest,
  InvitationAccepted,
  RoleRequest,
  MemberRole,
  MemberRemoved,
  Namespace,
  MyOrgList,
  MyInvitationList,
  InvitationDeclined,
  OrgInvitationList,
  InvitationRevoked,
};

export const ACCOUNT_HEADERS: Record<string, Record<string, unknown>> = {
  SetSession: {
    description: `${SESSION_COOKIE}=<secret>; HttpOnly; SameSite=Lax; Path=/; Max-Age=${SESSION_TTL_MS / 1000} (Secure when the registry is served over https): the browser session.`,
    schema: { type: "string" },
  },
  ClearSession: { description: `${SESSION_COOKIE}=; Max-Age=0; Path=/: the session cookie removed.`, schema: { type: "string" } },
  SetFlow: { description: `${FLOW_COOKIE}=<sealed flow state>; HttpOnly; SameSite=Lax; Path=/v1/auth/; Max-Age=${FLOW_TTL_SECONDS}: finish the sign-in in this browser within ${FLOW_TTL_SECONDS / 60} minutes.`, schema: { type: "string" } },
};

// ---------------------------------------------------------------- operations
const SESSION_SET = { "Set-Cookie": { $ref: "#/components/headers/SetSession" } };
const redirect = (description: string, cookie: string): Reply => ({
  status: 302,
  description,
  headers: { Location: { required: true, schema: { type: "string", format: "uri-reference" } }, "Set-Cookie": { $ref: `#/components/headers/${cookie}` } },
});
const JSON_BODY: [number, string] = [400, "Not application/json, not matching the schema, or VALIDATION_FAILED"];
const TOO_LARGE: [number, string] = [413, `Bodies over ${ACCOUNT_BODY_LIMIT_BYTES} bytes`];
const LOCAL_ONLY: [number, string] = [403, "Local accounts are off on this registry (RYE_LOCAL_ACCOUNTS=false or an `only` provider), or the account is disabled"];
const UPSTREAM_ERRORS: Operation["errors"] = [
  [401, "The provider refused the sign-in, or its answer failed validation"],
  [403, "The account is disabled, or sign-up through this provider is closed"],
  [409, "The email belongs to an existing account that is not linked automatically (details.reason)"],
  [503, "The provider cannot be reached"],
];
const ORG_ADMIN = ["org:admin"] as const;
const orgOp = (method: Operation["method"], path: string, operationId: string, summary: string, rest: Pick<Operation, "ok" | "errors"> & Partial<Operation>): Operation => ({
  method,
  path: `/v1/orgs${path}`,
  operationId,
  summary,
  tag: "orgs",
  auth: method === "get" ? "caller" : "caller+csrf",
  scopes: [...ORG_ADMIN],
  ...rest,
});

export const ACCOUNT_OPERATIONS: Operation[] = [
  { method: "get", path: "/v1/me/keys", operationId: "listUserKeys", summary: "The caller's registered author keys (signatures on pushed items are checked against them)", tag: "keys", auth: "caller", scopes: ["items:read"], ok: { status: 200, description: "Keys", schema: "UserKeyList" }, errors: [] },
  {
    method: "post",
    path: "/v1/me/keys",
    operationId: "registerUserKey",
    summary: "Register an Ed25519 public key (SPKI PEM) as the caller's author key; 200 when it already is",
    tag: "keys",
    auth: "caller+csrf",
    scopes: ["items:write"],
    body: "RegisterKeyRequest",
    ok: { status: 201, description: "Registered", schema: "UserKeyChange" },
    also: [{ status: 200, description: "Already registered to the caller (status already_registered)", schema: "UserKeyChange" }],
    errors: [400, [409, "Registered to another account, or revoked"], 413],
  },
  { method: "delete", path: "/v1/me/keys/{fingerprint}", operationId: "revokeUserKey", summary: "Revoke one of the caller's author keys", tag: "keys", auth: "caller+csrf", scopes: ["items:write"], ok: { status: 200, description: "Revoked", schema: "UserKeyChange" }, errors: [[404, "Not a key of the caller"]] },
  { method: "get", path: "/v1/auth/providers", operationId: "listAuthProviders", summary: "The sign-in methods of this registry", tag: "auth", auth: "none", ok: { status: 200, description: "Providers", schema: "AuthProviders" }, errors: [] },
  {
    method: "get",
    path: "/v1/auth/oidc/{provider}/start",
    operationId: "startUpstreamSignIn",
    summary: "Sign in through an OpenID Connect or GitHub provider: to the provider (code flow, PKCE S256, state, nonce)",
    tag: "auth",
    auth: "none",
    query: UpstreamStartQuery,
    ok: redirect("To the provider's authorization endpoint (Cache-Control: no-store)", "SetFlow"),
    errors: [[400, "next is not a path on this registry"], [401, "The provider's metadata failed validation"], [404, "No such provider"], [503, "The provider cannot be reached"]],
  },
  {
    method: "get",
    path: "/v1/auth/oidc/{provider}/callback",
    operationId: "finishUpstreamSignIn",
    summary: "The provider's redirect back: the account is found, linked or created, and a session starts",
    tag: "auth",
    auth: "none",
    query: UpstreamCallbackQuery,
    ok: redirect("Signed in: to the flow's next path, with the session cookie (the flow cookie is cleared whatever the outcome; Cache-Control: no-store)", "SetSession"),
    errors: [[400, "No flow cookie, another provider's, expired, or state mismatch"], [404, "No such provider"], ...UPSTREAM_ERRORS],
  },
  {
    method: "post",
    path: "/v1/auth/supabase/session",
    operationId: "supabaseSignIn",
    summary: "Sign in with a Supabase Auth session: its access token is verified, the account found, linked or created, and a session starts",
    tag: "auth",
    auth: "none",
    body: "SupabaseSessionRequest",
    ok: { status: 200, description: "Signed in (Cache-Control: no-store)", schema: "SupabaseSession", headers: SESSION_SET },
    errors: [[400, "Not application/json, or no access_token string"], [404, "Supabase Auth is not configured"], ...UPSTREAM_ERRORS],
  },
  {
    method: "post",
    path: "/v1/auth/signup",
    operationId: "signUp",
    summary: "Create a local account (and its namespace) and start a session",
    tag: "auth",
    auth: "none",
    body: "SignupRequest",
    ok: { status: 201, description: "Created and signed in", schema: "Session", headers: SESSION_SET },
    errors: [JSON_BODY, LOCAL_ONLY, [409, "The name or the email is taken (details.field)"], TOO_LARGE],
  },
  {
    method: "post",
    path: "/v1/auth/login",
    operationId: "signIn",
    summary: "Sign in with a username or email and a password",
    tag: "auth",
    auth: "none",
    body: "LoginRequest",
    ok: { status: 200, description: "Signed in", schema: "Session", headers: SESSION_SET },
    errors: [JSON_BODY, [401, "Wrong username, email or password"], LOCAL_ONLY, TOO_LARGE, [429, "Too many failed attempts for this account and IP (Retry-After), or the /v1 rate limit"]],
  },
  {
    method: "post",
    path: "/v1/auth/logout",
    operationId: "signOut",
    summary: "End the session (harmless without one)",
    tag: "auth",
    auth: "optional-session+csrf",
    ok: { status: 204, description: "Signed out", headers: { "Set-Cookie": { $ref: "#/components/headers/ClearSession" } } },
    errors: [],
  },
  { method: "get", path: "/v1/auth/session", operationId: "getSession", summary: "The signed-in user and the session's CSRF token", tag: "auth", auth: "session", ok: { status: 200, description: "The session", schema: "Session" }, errors: [] },
  { method: "get", path: "/v1/me", operationId: "whoami", summary: "Who is calling, with what", tag: "auth", auth: "caller", ok: { status: 200, description: "The caller", schema: "Me" }, errors: [] },
  {
    method: "post",
    path: "/v1/tokens",
    operationId: "createToken",
    summary: `Create a personal token (default lifetime ${DEFAULT_TOKEN_DAYS} days); a token can only create tokens within its own scopes, namespace, item pattern and lifetime`,
    tag: "tokens",
    auth: "caller+csrf",
    body: "TokenRequest",
    ok: { status: 201, description: "Created; the secret is in token, shown this once", schema: "CreatedToken" },
    errors: [JSON_BODY, [403, "Beyond the calling token's own rights, an OAuth access token or organization token, or a missing CSRF token"], TOO_LARGE],
  },
  { method: "get", path: "/v1/tokens", operationId: "listTokens", summary: "The caller's personal tokens, newest first", tag: "tokens", auth: "caller", ok: { status: 200, description: "Tokens (no secrets)", schema: "TokenList" }, errors: [[403, "Organization tokens cannot list personal tokens"]] },
  {
    method: "delete",
    path: "/v1/tokens/{id}",
    operationId: "revokeToken",
    summary: "Revoke a personal token (again: no change)",
    tag: "tokens",
    auth: "caller+csrf",
    ok: { status: 200, description: "Revoked", schema: "TokenInfo" },
    errors: [[403, "A token revoking a token with scopes it lacks, an organization token, or a missing CSRF token"], [404, "No such token of the caller"]],
  },
  orgOp("post", "", "createOrg", "Create an organization (and its namespace); the caller becomes its owner", { body: "CreateOrgRequest", ok: { status: 201, description: "Created", schema: "OrgCreated" }, errors: [JSON_BODY, [409, "The name is taken"], TOO_LARGE] }),
  orgOp("post", "/invitations/accept", "acceptInvitation", "Join an organization with an invitation (for the invited username, or the invited email once verified)", {
    body: "AcceptInvitationRequest",
    ok: { status: 200, description: "Joined", schema: "InvitationAccepted" },
    errors: [JSON_BODY, [403, "The invitation is for another account"], [404, "Unknown, expired, revoked or used invitation"], [409, "Already a member"], TOO_LARGE],
  }),
  {
    method: "get",
    path: "/v1/orgs/{name}",
    operationId: "getOrg",
    summary: "An organization: public view, plus members and the caller's role for members",
    tag: "orgs",
    auth: "optional-caller",
    ok: { status: 200, description: "The organization", schema: "Org" },
    errors: [404],
  },
  orgOp("post", "/{name}/invitations", "inviteMember", "Invite a user or an email address (owners and admins)", {
    body: "InviteRequest",
    ok: { status: 201, description: "Invited; the invitation token is shown this once", schema: "Invitation" },
    errors: [JSON_BODY, [404, "No such organization or user"], [409, "Already a member"], TOO_LARGE],
  }),
  { method: "get", path: "/v1/me/orgs", operationId: "listMyOrgs", summary: "The caller's organizations and role in each", tag: "orgs", auth: "caller", ok: { status: 200, description: "Organizations", schema: "MyOrgList" }, errors: [[403, "Organization tokens"]] },
  { method: "get", path: "/v1/me/invitations", operationId: "listMyInvitations", summary: "Pending invitations addressed to the caller", tag: "orgs", auth: "caller", ok: { status: 200, description: "Invitations", schema: "MyInvitationList" }, errors: [[403, "Organization tokens"]] },
  {
    method: "post",
    path: "/v1/me/invitations/{id}/accept",
    operationId: "acceptMyInvitation",
    summary: "Join an organization through a pending invitation addressed to the caller (no invitation secret needed)",
    tag: "orgs",
    auth: "caller+csrf",
    scopes: [...ORG_ADMIN],
    ok: { status: 200, description: "Joined", schema: "InvitationAccepted" },
    errors: [[404, "No pending invitation with this id for the caller (someone else's answers the same)"], [409, "Already a member"]],
  },
  {
    method: "post",
    path: "/v1/me/invitations/{id}/decline",
    operationId: "declineMyInvitation",
    summary: "Decline a pending invitation addressed to the caller",
    tag: "orgs",
    auth: "caller+csrf",
    scopes: [...ORG_ADMIN],
    ok: { status: 200, description: "Declined", schema: "InvitationDeclined" },
    errors: [[404, "No pending invitation with this id for the caller (someone else's answers the same)"]],
  },
  orgOp("get", "/{name}/invitations", "listOrgInvitations", "The organization's pending invitations (owners and admins)", { ok: { status: 200, description: "Invitations", schema: "OrgInvitationList" }, errors: [[404, "No such organization"]] }),
  orgOp("delete", "/{name}/invitations/{id}", "revokeOrgInvitation", "Withdraw a pending invitation (owners and admins; owner invitations: owners)", {
    ok: { status: 200, description: "Withdrawn", schema: "InvitationRevoked" },
    errors: [[404, "No such organization, or no pending invitation with this id in it"]],
  }),
  orgOp("patch", "/{name}/members/{username}", "setMemberRole", "Change a member's role (owners; admins for non-owners)", {
    body: "RoleRequest",
    ok: { status: 200, description: "The member's role", schema: "MemberRole" },
    errors: [JSON_BODY, [404, "No such organization, or not a member"], [409, "The last owner cannot be demoted"], TOO_LARGE],
  }),
  orgOp("delete", "/{name}/members/{username}", "removeMember", "Remove a member (owners and admins) or leave; the member's organization tokens are revoked", {
    ok: { status: 200, description: "Removed", schema: "MemberRemoved" },
    errors: [[404, "No such organization, or not a member"], [409, "The last owner cannot leave"]],
  }),
  orgOp("post", "/{name}/tokens", "createOrgToken", `Create an organization (CI) token: namespace forced to the organization, scopes ${ORG_TOKEN_SCOPES.join(" and ")} only`, {
    body: "TokenRequest",
    ok: { status: 201, description: "Created; the secret is in token, shown this once", schema: "CreatedToken" },
    errors: [JSON_BODY, [404, "No such organization"], TOO_LARGE],
  }),
  orgOp("get", "/{name}/tokens", "listOrgTokens", "The organization's tokens, newest first (owners and admins)", { ok: { status: 200, description: "Tokens (no secrets)", schema: "OrgTokenList" }, errors: [[404, "No such organization"]] }),
  {
    method: "get",
    path: "/v1/namespaces/{name}",
    operationId: "getNamespace",
    summary: "A namespace's profile: user or organization, display name, visible item count; an organization's members for its members only",
    tag: "orgs",
    auth: "optional-caller",
    ok: { status: 200, description: "The namespace", schema: "Namespace" },
    errors: [[404, "No such user or organization (also for names no one can have)"]],
  },
  orgOp("delete", "/{name}/tokens/{id}", "revokeOrgToken", "Revoke an organization token (owners and admins)", { ok: { status: 200, description: "Revoked", schema: "TokenInfo" }, errors: [[404, "No such organization or token"]] }),
];
