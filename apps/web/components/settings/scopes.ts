/** What each token scope allows, in words (the API's scope list comes from its OAuth metadata). */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  "items:read": "Read items, including private items you can access",
  "items:write": "Publish, yank and deprecate items in your namespaces, and register author keys",
  "org:admin": "Manage your organizations: members, invitations and CI tokens",
};

export const describeScope = (scope: string): string => SCOPE_DESCRIPTIONS[scope] ?? scope;

/** The scopes tokens can have, as the API lists them (`scopes_supported`); the known three when it cannot say. */
export async function loadScopes(fetchMetadata: () => Promise<{ scopes_supported?: unknown }>): Promise<string[]> {
  try {
    const metadata = await fetchMetadata();
    if (Array.isArray(metadata.scopes_supported) && metadata.scopes_supported.every((s) => typeof s === "string")) return metadata.scopes_supported as string[];
  } catch {
    // fall through
  }
  return Object.keys(SCOPE_DESCRIPTIONS);
}
