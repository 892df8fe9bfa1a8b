/** Personal API tokens: create (the secret is answered once), list, revoke. */
import { createRoute } from "@hono/zod-openapi";
import { z } from "zod";
import { createdTokenSchema, tokenInfoSchema, tokenListSchema } from "@rye/core";
import type { TOKEN_DISPLAY_PREFIX_LENGTH as SHOWN_PREFIX, TOKEN_SCOPES } from "@rye/core";
import { SCOPES } from "../auth/principal.ts";
import { NAME_MAX_LENGTH, normalizeName } from "../auth/usernames.ts";
import type { Same, SameKeys } from "../contract/operation.ts";
import { access, declared, errors, json, jsonRequest } from "../contract/route.ts";
import { contractRouter } from "../contract/router.ts";
import type { AppDeps } from "../services/deps.ts";
import type { issueToken, TOKEN_DISPLAY_PREFIX_LENGTH, tokenView } from "../services/tokens.ts";
import { createPersonalToken, DEFAULT_TOKEN_DAYS, ITEM_PATTERN_MAX_LENGTH, listPersonalTokens, MAX_TOKEN_DAYS, revokePersonalToken, type TokenRequest } from "../services/tokens.ts";
import { JSON_BODY, jsonBody, plainText, requireCaller, TOO_LARGE } from "./accounts.ts";

export const TOKEN_NAME_MAX_LENGTH = 100;

/** The body of `POST /v1/tokens` and `POST /v1/orgs/{name}/tokens`. */
export const tokenRequestSchema = z
  .strictObject({
    name: plainText(TOKEN_NAME_MAX_LENGTH).min(1),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length * 2),
    expires_in_days: z.number().int().min(1).max(MAX_TOKEN_DAYS).optional(),
    namespace: z.string().max(NAME_MAX_LENGTH).transform(normalizeName).optional(),
    item_pattern: z.string().max(ITEM_PATTERN_MAX_LENGTH).optional(),
  })
  .meta({ id: "TokenRequest" });

/** The service's form of a token request. */
export function toTokenRequest(body: z.output<typeof tokenRequestSchema>): TokenRequest {
  return { name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days, namespace: body.namespace, itemPattern: body.item_pattern };
}

// The answers are @rye/core's (the CLI and the website read them); here they are named in the document.
export const TokenInfo = tokenInfoSchema;
export const CreatedToken = createdTokenSchema.meta({ id: "CreatedToken" });
const TokenList = tokenListSchema.meta({ id: "TokenList" });
true satisfies SameKeys<z.output<typeof TokenInfo>, ReturnType<typeof tokenView>>;
true satisfies SameKeys<z.output<typeof CreatedToken>, Awaited<ReturnType<typeof issueToken>>>;
true satisfies Same<typeof SHOWN_PREFIX, typeof TOKEN_DISPLAY_PREFIX_LENGTH>;
true satisfies Same<typeof TOKEN_SCOPES, typeof SCOPES>;

export const createTokenRoute = createRoute({
  method: "post",
  path: "/v1/tokens",
  operationId: "createToken",
  summary: `Create a personal token (default lifetime ${DEFAULT_TOKEN_DAYS} days); a token can only create tokens within its own scopes, namespace, item pattern and lifetime`,
  tags: ["tokens"],
  ...access("caller+csrf"),
  middleware: [jsonBody] as const,
  request: { body: jsonRequest(tokenRequestSchema) },
  responses: {
    201: json(CreatedToken, "Created; the secret is in token, shown this once"),
    ...errors(JSON_BODY, [403, "Beyond the calling token's own rights, an OAuth access token or organization token, or a missing CSRF token"], TOO_LARGE),
  },
});
export const listTokensRoute = createRoute({
  method: "get",
  path: "/v1/tokens",
  operationId: "listTokens",
  summary: "The caller's personal tokens, newest first",
  tags: ["tokens"],
  ...access("caller"),
  responses: { 200: json(TokenList, "Tokens (no secrets)"), ...errors([403, "Organization tokens cannot list personal tokens"]) },
});
export const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/v1/tokens/{id}",
  operationId: "revokeToken",
  summary: "Revoke a personal token (again: no change)",
  tags: ["tokens"],
  ...access("caller+csrf"),
  responses: {
    200: json(TokenInfo, "Revoked"),
    ...errors([403, "A token revoking a token with scopes it lacks, an organization token, or a missing CSRF token"], [404, "No such token of the caller"]),
  },
});

export function tokenRoutes(deps: AppDeps) {
  return contractRouter()
    .openapi(createTokenRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(declared(CreatedToken, await createPersonalToken(deps.db, actor, toTokenRequest(c.req.valid("json")))), 201);
    })
    .openapi(listTokensRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(declared(TokenList, { tokens: await listPersonalTokens(deps.db, actor) }), 200);
    })
    .openapi(revokeTokenRoute, async (c) => {
      const { actor } = await requireCaller(c, deps.db);
      return c.json(declared(TokenInfo, await revokePersonalToken(deps.db, actor, c.req.param("id"))), 200);
    });
}
