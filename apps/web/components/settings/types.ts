/** Shapes of the account routes the settings pages read (documented in the API's OpenAPI document). */
import type { CreatedToken as CoreCreatedToken, TokenInfo as CoreTokenInfo } from "@rye/core";

/** A personal or organization token (@rye/core's contract); organization tokens also say who created them. */
export type TokenInfo = CoreTokenInfo & { created_by?: string };
export type CreatedToken = CoreCreatedToken;

export interface UserKey {
  fingerprint: string;
  public_key: string;
  label: string;
  created_at: string;
  revoked: boolean;
  revoked_at: string | null;
}

export type OrgRole = "owner" | "admin" | "member";

export interface MyOrg {
  name: string;
  display_name: string;
  role: OrgRole;
  member_count: number;
  joined_at: string;
}

export interface MyInvitation {
  id: string;
  org: string;
  org_display_name: string;
  role: OrgRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface OrgDetails {
  name: string;
  display_name: string;
  item_count: number;
  created_at: string;
  role?: OrgRole;
  members?: { username: string; role: OrgRole; joined_at: string }[];
}

export interface OrgInvitation {
  id: string;
  username: string | null;
  email: string | null;
  role: OrgRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface CreatedInvitation {
  id: string;
  token: string;
  org: string;
  username: string | null;
  email: string | null;
  role: OrgRole;
  expires_at: string;
}

/** An OAuth sign-in (GET /v1/me/oauth-grants): the CLI's or a third-party application's. */
export interface OAuthGrant {
  id: string;
  client_id: string;
  client_name: string | null;
  third_party: boolean;
  scopes: string[];
  resource: string | null;
  last_refreshed_at: string;
  expires_at: string;
}
