/**
 * Upstream identity providers from the environment.
 *
 * `RYE_OIDC_PROVIDERS` is a JSON array, e.g.
 *   [{"id":"acme","type":"oidc","name":"Acme SSO","issuer":"https://sso.acme.example","client_id":"rye","client_secret":"…","only":true},
 *    {"id":"github","type":"github","name":"GitHub","client_id":"Iv1.…","client_secret":"…"}]
 * `RYE_LOCAL_ACCOUNTS=false` turns local (email + password) accounts off, for an organization whose
 * identity provider is the only way in. `RYE_COOKIE_SECRET` keys the sign-in flow cookie (see flow-key.ts).
 * Supabase Auth: `SUPABASE_URL` (the project URL), optional `SUPABASE_ANON_KEY` (lets rye ask Supabase
 * whether the email is confirmed; without it Supabase emails count as unverified) and
 * `RYE_SUPABASE_ALLOW_SIGNUP` (default true).
 * URLs must be https; plain http is accepted only for loopback hosts (local development and tests).
 */
import { z } from "zod";
import { RyeError } from "@rye/core";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** http://localhost, http://127.0.0.1 or http://[::1]: the only places plain http is allowed. */
export function isLoopbackHttp(url: string | URL): boolean {
  const u = typeof url === "string" ? new URL(url) : url;
  return u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname);
}

// The issuer is kept verbatim (some end in "/", and discovery compares it exactly); other URLs lose a trailing "/".
const secureUrl = z
  .string()
  .url()
  .refine((value) => value.startsWith("https://") || isLoopbackHttp(value), "must be an https:// URL (http:// only for localhost / 127.0.0.1)");
const endpointUrl = secureUrl.transform((value) => value.replace(/\/+$/, ""));

const common = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "must be 1-32 characters: lowercase letters, digits, '-', '_'").refine((id) => id !== "supabase", "\"supabase\" is reserved for Supabase Auth"),
  name: z.string().min(1).max(80),
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  scopes: z.string().min(1).optional(),
  only: z.boolean().default(false),
  allow_signup: z.boolean().default(true),
  token_endpoint_auth_method: z.enum(["client_secret_basic", "client_secret_post", "none"]).optional(),
};

const oidcProvider = z.object({ ...common, type: z.literal("oidc"), issuer: secureUrl }).strict();
const githubProvider = z
  .object({
    ...common,
    type: z.literal("github"),
    github_api_url: endpointUrl.default("https://api.github.com"),
    authorization_url: endpointUrl.default("https://github.com/login/oauth/authorize"),
    token_url: endpointUrl.default("https://github.com/login/oauth/access_token"),
  })
  .strict();

const providersSchema = z
  .array(z.discriminatedUnion("type", [oidcProvider, githubProvider]))
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      if (seen.has(p.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate provider id "${p.id}"` });
      seen.add(p.id);
    });
    const only = list.findIndex((p) => p.only);
    if (only >= 0 && list.length > 1) ctx.addIssue({ code: "custom", path: [only, "only"], message: "a provider marked \"only\" must be the sole provider" });
  });

type ParsedProvider = z.infer<typeof providersSchema>[number];
export type UpstreamProvider = ParsedProvider & { scopes: string; token_endpoint_auth_method: "client_secret_basic" | "client_secret_post" | "none" };
export type OidcProvider = Extract<UpstreamProvider, { type: "oidc" }>;
export type GithubProvider = Extract<UpstreamProvider, { type: "github" }>;

const DEFAULT_SCOPES = { oidc: "openid email profile", github: "read:user user:email" } as const;

function withDefaults(p: ParsedProvider): UpstreamProvider {
  const scopes = p.scopes ?? DEFAULT_SCOPES[p.type];
  // RFC 6749 §2.3.1: servers must support HTTP Basic; GitHub documents client_secret in the body.
  const method = p.token_endpoint_auth_method ?? (!p.client_secret ? "none" : p.type === "github" ? "client_secret_post" : "client_secret_basic");
  if (method !== "none" && !p.client_secret) throw configError([`${p.id}.client_secret: required for token_endpoint_auth_method ${method}`]);
  return { ...p, scopes, token_endpoint_auth_method: method };
}

function configError(issues: string[]): RyeError {
  return new RyeError("BAD_REQUEST", `Invalid RYE_OIDC_PROVIDERS: ${issues.join("; ")}`, {
    details: issues,
    hint: "RYE_OIDC_PROVIDERS is a JSON array of {id, type: \"oidc\"|\"github\", name, issuer (oidc), client_id, client_secret?, scopes?, only?, allow_signup?}.",
  });
}

/** The configured providers (empty when `RYE_OIDC_PROVIDERS` is unset); throws a RyeError naming the bad field. */
export function loadUpstreamProviders(env: NodeJS.ProcessEnv = process.env): UpstreamProvider[] {
  const raw = env.RYE_OIDC_PROVIDERS?.trim();
  if (!raw) return [];
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw configError([`not valid JSON (${(err as Error).message})`]);
  }
  const parsed = providersSchema.safeParse(json);
  if (!parsed.success) {
    throw configError(
      parsed.error.issues.map((issue) => {
        const [index, ...rest] = issue.path;
        const id = typeof index === "number" && Array.isArray(json) ? (json[index] as { id?: unknown } | undefined)?.id : undefined;
        const where = typeof index === "number" ? `[${index}]${typeof id === "string" ? `(${id})` : ""}` : "";
        return `${where}${rest.length ? `.${rest.join(".")}` : ""}: ${issue.message}`.replace(/^:/, "(root):");
      }),
    );
  }
  return parsed.data.map(withDefaults);
}

function localAccountsSwitch(env: NodeJS.ProcessEnv): boolean | undefined {
  const value = env.RYE_LOCAL_ACCOUNTS?.trim().toLowerCase();
  if (value === undefined || value === "") return undefined;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new RyeError("BAD_REQUEST", `Invalid RYE_LOCAL_ACCOUNTS: "${env.RYE_LOCAL_ACCOUNTS}"`, { hint: "Use true or false." });
}

/**
 * Whether local (email + password) accounts may sign in and sign up: false when `RYE_LOCAL_ACCOUNTS`
 * is "false"/"0" or a provider is marked `only`; the local-account routes must honour it.
 */
export function localAccountsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const explicit = localAccountsSwitch(env);
  const providers = loadUpstreamProviders(env);
  const only = providers.find((p) => p.only);
  if (only && explicit === true) {
    throw new RyeError("BAD_REQUEST", `RYE_LOCAL_ACCOUNTS=true contradicts provider "${only.id}" marked "only"`, { hint: "Remove one of the two settings." });
  }
  const enabled = explicit ?? !only;
  if (!enabled && providers.length === 0 && !loadSupabaseAuth(env)) {
    throw new RyeError("BAD_REQUEST", "RYE_LOCAL_ACCOUNTS=false needs a provider in RYE_OIDC_PROVIDERS or SUPABASE_URL", { hint: "Otherwise nobody can sign in." });
  }
  return enabled;
}

const supabaseSchema = z.object({
  SUPABASE_URL: endpointUrl,
  SUPABASE_ANON_KEY: z.string().min(1).optional(),
  RYE_SUPABASE_ALLOW_SIGNUP: z.enum(["true", "false"]).default("true"),
});

export interface SupabaseAuthConfig {
  /** Project URL, e.g. https://abcd.supabase.co (no trailing "/"). */
  url: string;
  anonKey: string | undefined;
  allowSignup: boolean;
}

/** Supabase Auth as a sign-in method when `SUPABASE_URL` is set, else null. */
export function loadSupabaseAuth(env: NodeJS.ProcessEnv = process.env): SupabaseAuthConfig | null {
  if (!env.SUPABASE_URL?.trim()) return null;
  const parsed = supabaseSchema.safeParse({ ...env, SUPABASE_URL: env.SUPABASE_URL.trim(), SUPABASE_ANON_KEY: env.SUPABASE_ANON_KEY?.trim() || undefined });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new RyeError("BAD_REQUEST", `Invalid Supabase Auth configuration: ${issues.join("; ")}`, { details: issues });
  }
  const only = loadUpstreamProviders(env).find((p) => p.only);
  if (only) throw new RyeError("BAD_REQUEST", `SUPABASE_URL contradicts provider "${only.id}" marked "only"`, { hint: "Remove one of the two settings." });
  return { url: parsed.data.SUPABASE_URL, anonKey: parsed.data.SUPABASE_ANON_KEY, allowSignup: parsed.data.RYE_SUPABASE_ALLOW_SIGNUP === "true" };
}

export interface UpstreamAuthConfig {
  providers: UpstreamProvider[];
  localAccounts: boolean;
  supabase: SupabaseAuthConfig | null;
  /** `RYE_COOKIE_SECRET`; when unset the flow-cookie key is derived from the registry signing key. */
  cookieSecret: string | undefined;
}

/** Everything upstream sign-in reads from the environment, validated once at start. */
export function loadUpstreamAuthConfig(env: NodeJS.ProcessEnv = process.env): UpstreamAuthConfig {
  const cookieSecret = env.RYE_COOKIE_SECRET?.trim() || undefined;
  if (cookieSecret !== undefined && cookieSecret.length < 32) {
    throw new RyeError("BAD_REQUEST", "Invalid RYE_COOKIE_SECRET: it must be at least 32 characters", { hint: "Generate one with `openssl rand -base64 48`." });
  }
  return { providers: loadUpstreamProviders(env), localAccounts: localAccountsEnabled(env), supabase: loadSupabaseAuth(env), cookieSecret };
}
