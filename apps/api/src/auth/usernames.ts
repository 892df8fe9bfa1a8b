/**
 * Account and organization names (one namespace space: both own a row in `namespaces`) and email
 * addresses. Names are case-insensitive: they are lowercased before the rules are applied and stored.
 */

export const NAME_MIN_LENGTH = 2;
export const NAME_MAX_LENGTH = 39;
/** Lowercase letters, digits and single inner hyphens. */
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Names that would be confused with the registry itself, its pages or its routes. The website serves
 * `/{namespace}` for users and organizations next to its own top-level pages (`/directive/…`, `/tool/…`,
 * `/knowledge/…`, `/publish`, `/manage`, Next's `/_next/…`), so those can never be a namespace.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "_next", "about", "abuse", "account", "accounts", "admin", "administrator", "anonymous", "api", "app", "assets", "auth",
  "billing", "blog", "bundle", "bundles", "cdn", "contact", "dashboard", "device", "directive", "directives", "docs", "download", "downloads",
  "explore", "false", "health", "help", "home", "info", "invitations", "item", "items", "keys", "knowledge", "legal", "login", "logout",
  "manage", "mcp", "me", "mail", "new", "null", "oauth", "official", "org", "orgs", "organization", "organizations", "owner",
  "password", "postmaster", "privacy", "publish", "pull", "push", "ready", "register", "registry", "root", "rye", "rye-registry",
  "search", "security", "session", "sessions", "settings", "signin", "signout", "signup", "static", "status",
  "staff", "support", "system", "team", "terms", "token", "tokens", "tool", "tools", "true", "undefined", "user", "users",
  "v1", "v2", "verify", "webmaster", "well-known", "www",
]);

export const EMAIL_MAX_LENGTH = 254;
/** The dot-atom form of RFC 5322 (no quoted local parts, no comments) and an ASCII (punycode) domain with a dot. */
const EMAIL_PATTERN = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

export function normalizeName(input: string): string {
  return input.trim().toLowerCase();
}

function hasNameLength(name: string): boolean {
  return name.length >= NAME_MIN_LENGTH && name.length <= NAME_MAX_LENGTH;
}

/** What is wrong with a (normalized) user or organization name; empty when it may be registered. */
export function nameProblems(name: string): string[] {
  if (!hasNameLength(name)) return [`Names have ${NAME_MIN_LENGTH} to ${NAME_MAX_LENGTH} characters`];
  if (!NAME_PATTERN.test(name)) return ["Names use lowercase letters, digits and single hyphens, and do not start or end with a hyphen"];
  if (RESERVED_NAMES.has(name)) return [`The name ${name} is reserved`];
  return [];
}

/**
 * A name from a path or a sign-in form, normalized, or null when no user or organization can have
 * it (reserved names can: the registry's own). Look-ups go through this, never the raw input.
 */
export function lookupName(input: string): string | null {
  const name = normalizeName(input);
  return hasNameLength(name) && NAME_PATTERN.test(name) ? name : null;
}

/** Trimmed and lowercased, or null when it does not look like an email address. */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email) ? email : null;
}
