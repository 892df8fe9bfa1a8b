/** OAuth `scope` strings ↔ the registry's token scopes, limited to what a client may ask for. */
import { SCOPES } from "../auth/principal.ts";
import type { OAuthClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";

export const SCOPE_DESCRIPTIONS: Record<(typeof SCOPES)[number], string> = {
  "items:read": "Read items, including private items you can access",
  "items:write": "Publish, yank and deprecate items in your namespaces",
  "org:admin": "Manage your organizations: members, invitations and CI tokens",
};

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(" ");
}

/** The requested scopes (space-separated), or the client's default when `raw` is absent; throws invalid_scope. */
export function parseScope(raw: string | undefined, client: OAuthClient): string[] {
  if (raw === undefined || raw.trim() === "") return [...client.defaultScopes];
  const requested = [...new Set(raw.split(" ").filter(Boolean))];
  const refused = requested.filter((s) => !client.allowedScopes.includes(s));
  if (refused.length > 0) throw new OAuthError("invalid_scope", `Unknown or not allowed scope: ${refused.join(" ")}`);
  return requested;
}

/** `requested` must be a subset of `granted` (RFC 6749 §6: a refresh may narrow, never widen). */
export function narrowScope(raw: string | undefined, granted: readonly string[]): string[] {
  if (raw === undefined || raw.trim() === "") return [...granted];
  const requested = [...new Set(raw.split(" ").filter(Boolean))];
  const wider = requested.filter((s) => !granted.includes(s));
  if (wider.length > 0) throw new OAuthError("invalid_scope", `The grant does not include: ${wider.join(" ")}`);
  return requested;
}
