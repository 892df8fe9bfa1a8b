/**
 * Accounts, sessions and personal tokens as the registry answers them: `GET /v1/me` (the CLI's who-am-I), the
 * website's session, and `/v1/tokens` (apps/api/src/routes/accounts.ts, tokens.ts). The API declares these answers
 * with them; clients parse with them (a z.object ignores fields it does not know, so an added field breaks no client).
 */
import { z } from "zod";
import { isoTimestampSchema } from "./common.ts";

/** What a bearer token may do (apps/api auth/principal.ts). */
export const TOKEN_SCOPES = ["items:read", "items:write", "org:admin"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
/** How many characters of a token's secret its listing shows. */
export const TOKEN_DISPLAY_PREFIX_LENGTH = 12;

export const userSchema = z.object({ id: z.uuid(), username: z.string(), email: z.string().nullable(), email_verified: z.boolean() }).meta({ id: "User" });

/** A web session: the account and the CSRF token its cookie-authenticated changes send. */
export const sessionSchema = z.object({ user: userSchema, csrf_token: z.string().meta({ description: "Send as X-CSRF-Token on cookie-authenticated changes." }) });
export type SessionInfo = z.infer<typeof sessionSchema>;

/** `GET /v1/me`: who is calling, with what. */
export const meSchema = userSchema.extend({
  email: z.string().nullable().meta({ description: "null for an organization's CI token." }),
  scopes: z.array(z.string()).meta({ description: "What the caller may do: the token's scopes; every scope for a session." }),
  token: z
    .object({
      type: z.enum(["pat", "jwt"]).meta({ description: "pat: a personal or organization token (rye_pat_…); jwt: an OAuth access token." }),
      id: z.string(),
      org_id: z.uuid().nullable(),
      namespace: z.string().nullable(),
      item_pattern: z.string().nullable(),
      expires_at: isoTimestampSchema.nullable().meta({ description: "null for access tokens and tokens that never expire." }),
    })
    .nullable()
    .meta({ description: "The bearer token; null for a session." }),
});
export type Me = z.infer<typeof meSchema>;

/** A personal or organization token as listed (never its secret). */
export const tokenInfoSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().meta({ description: `The secret's first ${TOKEN_DISPLAY_PREFIX_LENGTH} characters, to tell tokens apart.` }),
    scopes: z.array(z.enum(TOKEN_SCOPES)),
    namespace: z.string().nullable().meta({ description: "The only namespace it may publish to." }),
    item_pattern: z.string().nullable().meta({ description: "The only item ids it may publish." }),
    created_at: isoTimestampSchema,
    last_used_at: isoTimestampSchema.nullable(),
    expires_at: isoTimestampSchema.nullable(),
    revoked: z.boolean(),
  })
  .meta({ id: "TokenInfo" });
export type TokenInfo = z.infer<typeof tokenInfoSchema>;

/** A token just created: its secret, shown this once. */
export const createdTokenSchema = z.object({ token: z.string().meta({ description: "The secret (rye_pat_…), shown this once." }), ...tokenInfoSchema.shape });
export type CreatedToken = z.infer<typeof createdTokenSchema>;
export const tokenListSchema = z.object({ tokens: z.array(tokenInfoSchema) });
